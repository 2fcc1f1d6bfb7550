"""Filters become safe LanceDB predicates: hostile values select exactly their own rows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.model.errors import InvalidFilterError, MemlensError
from memory_core.model.filters import Filter, sql_string
from memory_core.model.records import Memory
from memory_core.model.schema import normalise_memory_type
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

HOSTILE = [
    "' OR 1=1 --", "'; DROP TABLE memories; --", "it's", "''", "\\", "\\'", "a\\' OR 'a'='a",
    "nul\x00byte", "ünïcødé 😀 漢字", '"double"', "%", "_", "a\nb\tc", "x" * 20_000, " ",
    "tenant = 'default'", ") OR (1=1", "[0]", "array_has(tags, 'x')",
]
SHARED = [HealthCheck.function_scoped_fixture]
values = st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=60),
                   st.text(min_size=500, max_size=3000))


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> dict:
    store = MemoryStore.open(str(tmp_path_factory.mktemp("filters") / "s"),
                             embedder=FakeEmbedder())
    decoys = [Memory.new(f"decoy {i}", "observation", project=f"p{i}", agent="a", tags=["t"])
              for i in range(5)]
    store.add(decoys, dedup=False)
    return {"store": store, "rows": {m.id: m for m in decoys}}


def _matching(rows: dict, field: str, value: str) -> set[str]:
    if field == "tags":
        return {i for i, m in rows.items() if value in m.tags}
    return {i for i, m in rows.items() if getattr(m, field) == value}


@settings(max_examples=40, deadline=None, suppress_health_check=SHARED)
@given(value=values, field=st.sampled_from(["project", "agent", "session_id", "repo", "tags"]))
def test_hostile_values_select_exactly_their_rows(shared: dict, field: str, value: str) -> None:
    store, rows = shared["store"], shared["rows"]
    kwargs = {"tags": [value]} if field == "tags" else {field: value}
    memory = Memory.new(f"row for {field}", "observation", **kwargs)
    store.add([memory], dedup=False)
    rows[memory.id] = memory
    got = {m.id for m in store.list(Filter(**{field: value}))}
    assert got == _matching(rows, field, value)
    assert store.count(Filter(**{field: value})) == len(got)


@settings(max_examples=25, deadline=None, suppress_health_check=SHARED)
@given(value=values)
def test_hostile_memory_types_match_their_normalised_form(shared: dict, value: str) -> None:
    store, rows = shared["store"], shared["rows"]
    try:
        memory = Memory.new("typed row", value)
    except MemlensError:
        with pytest.raises(InvalidFilterError):
            Filter(memory_type=value).to_predicate("default")
        return
    store.add([memory], dedup=False)
    rows[memory.id] = memory
    got = {m.id for m in store.list(Filter(memory_type=value))}
    wanted = normalise_memory_type(value)
    assert got == {i for i, m in rows.items() if m.memory_type == wanted}


@settings(max_examples=30, deadline=None, suppress_health_check=SHARED)
@given(value=values)
def test_hostile_tenant_sees_nothing_of_others(shared: dict, value: str) -> None:
    store = shared["store"]
    assert store.count(Filter(tenant=value)) == (len(shared["rows"]) if value == "default" else 0)


@given(st.text())
def test_sql_string_round_trips_quotes(value: str) -> None:
    literal = sql_string(value)
    assert literal.startswith("'") and literal.endswith("'")
    assert literal[1:-1].replace("''", "'") == value


@pytest.mark.parametrize("bad", [
    {"project": 5}, {"project": ["ok", None]}, {"tags": [b"bytes"]}, {"status": "deleted"},
    {"importance": "urgent"}, {"embedding_status": "done"}, {"created_after": "yesterday"},
    {"tags": ["x"], "tags_mode": "some"},
])
def test_bad_filter_values_raise_invalid_filter(bad: dict) -> None:
    with pytest.raises(InvalidFilterError):
        Filter(**bad).to_predicate("default")


def test_from_dict_rejects_unknown_fields() -> None:
    with pytest.raises(InvalidFilterError, match="unknown filter field.*colour"):
        Filter.from_dict({"project": "x", "colour": "red"})
    assert Filter.from_dict({"project": "x"}) == Filter(project="x")


def test_predicate_shape() -> None:
    flt = Filter(project=["a", "b"], tags=["x", "y"], tags_mode="all",
                 created_after=datetime(2026, 5, 1, tzinfo=UTC), status=["active", "archived"])
    assert flt.to_predicate("t") == (
        "tenant = 't' AND status IN ('active', 'archived') AND project IN ('a', 'b') AND "
        "array_has_all(tags, ['x', 'y']) AND created_at >= TIMESTAMP '2026-05-01T00:00:00.000000Z'"
    )


def test_time_range_and_tags_select_rows(store: MemoryStore) -> None:
    store.add([
        Memory.new("april", created_at="2026-04-10T00:00:00Z", tags=["ci", "cache"]),
        Memory.new("may", created_at="2026-05-10T00:00:00Z", tags=["ci"]),
        Memory.new("june", created_at="2026-06-10T00:00:00Z", tags=["auth"]),
    ])
    in_range = store.list(Filter(created_after="2026-05-01", created_before="2026-06-30"))
    assert sorted(m.content for m in in_range) == ["june", "may"]
    assert sorted(m.content for m in store.list(Filter(tags=["cache", "auth"]))) == ["april",
                                                                                     "june"]
    both = store.list(Filter(tags=["ci", "cache"], tags_mode="all"))
    assert [m.content for m in both] == ["april"]


def test_an_empty_free_text_value_matches_exactly_the_empty_field(store: MemoryStore) -> None:
    # None is "no restriction"; "" is a value a record can hold, so it stays selectable
    store.add([Memory.new("blank", project="", agent="", tags=[""]),
               Memory.new("absent"), Memory.new("named", project="herd", agent="a")],
              dedup=False)
    for field in ("project", "agent", "tags"):
        value = [""] if field == "tags" else ""
        assert [m.content for m in store.list(Filter(**{field: value}))] == ["blank"], field
    assert store.count(Filter(project=None)) == 3


@pytest.mark.parametrize(("field", "value", "message"), [
    ("tenant", "", "tenant is empty; leave it None for the store's tenant"),
    ("created_after", "", "created_after is empty; leave it None for no bound"),
    ("created_before", "  ", "created_before is empty; leave it None for no bound"),
    ("status", "", "unknown status ''"),
    ("importance", "", "unknown importance ''"),
    ("embedding_status", "", "unknown embedding_status ''"),
    ("memory_type", "", "memory_type must be a non-empty string"),
])
def test_an_empty_value_that_can_match_nothing_is_refused(field: str, value: str,
                                                          message: str) -> None:
    with pytest.raises(InvalidFilterError) as caught:
        Filter(**{field: value}).to_predicate("default")
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("field", ["project", "tenant", "tags", "ids"])
def test_text_that_is_not_unicode_is_refused_not_a_crash(field: str) -> None:
    # what a byte that is not UTF-8 on the command line becomes (surrogateescape)
    value = "caf\udce9"
    with pytest.raises(InvalidFilterError, match=r"'caf\\udce9' is not valid Unicode text"):
        Filter(**{field: [value] if field in ("tags", "ids") else value}).to_predicate("d")
