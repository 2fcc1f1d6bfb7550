"""Hostile filter values (tests/payloads.py `FILTER_VALUES`) through every filter-taking API
and CLI option select exactly the rows that hold them: each value is stored in one row's
project, agent, repo, session and tags, beside plain decoys, so a quote that closes the
string, an `OR 1=1`, a LIKE wildcard or a lookalike would widen (or empty) the result.
Refused values are one `MemlensError` line that shows no SQL or LanceDB internals.
tests/memory_core/test_filters.py covers `Filter` and `MemoryStore.list` alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memory_core as mc
from memory_core.cli import cli
from memory_core.evaluation import Query
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli
from tests.hardening.isolation import text_of, use_fast_stand_ins
from tests.payloads import FILTER_VALUES, LOOKALIKES

NOW = mc.Memory.new("x").created_at
HOSTILE_IDS = frozenset(f"h-{i}" for i in range(len(FILTER_VALUES)))
DECOYS = frozenset(f"d-{i}" for i in range(4))
#: Filter fields that take free text, and the CLI option of each.
FIELDS = {"project": "--project", "agent": "--agent", "repo": "--repo",
          "session_id": "--session", "tags": "--tag"}
#: The values the slower APIs and commands are tried with (the store's reads take them all).
CURATED = ("' OR 1=1 --", "'; DROP TABLE memories; --", "\\", "%", "_", "\uff07 OR 1=1 --",
           "nul\x00byte", "x" * 10_000)


#: What an error line must never show: query text and the database's internals.
INTERNALS = ("WHERE", "LIKE", " IN (", "lance", "Lance", "DataFusion", "datafusion",
             "Traceback", "array_has")


def _row(i: int, value: str) -> Memory:
    return Memory.new(f"hostile row {i} about the pool cache", "fact", id=f"h-{i}",
                      project=value, agent=value, repo=value, session_id=value,
                      tags=[value, "hostile"])


def _decoy(i: int) -> Memory:
    return Memory.new(f"decoy row {i} about the pool cache", "fact", id=f"d-{i}",
                      project="plain", agent="plain", repo="plain", session_id="plain",
                      tags=["plain"])


@pytest.fixture(scope="module")
def uri(tmp_path_factory: pytest.TempPathFactory) -> str:
    store = MemoryStore.open(str(tmp_path_factory.mktemp("injection") / "store"),
                             embedder=FakeEmbedder())
    store.add([_row(i, v) for i, v in enumerate(FILTER_VALUES)] +
              [_decoy(i) for i in range(len(DECOYS))])
    return store.uri


@pytest.fixture
def store(uri: str) -> MemoryStore:
    return MemoryStore.open(uri, embedder=FakeEmbedder())


@pytest.fixture
def copy(uri: str, tmp_path: Path) -> MemoryStore:
    import shutil

    shutil.copytree(uri, tmp_path / "copy")
    return MemoryStore.open(str(tmp_path / "copy"), embedder=FakeEmbedder())


@pytest.fixture(autouse=True)
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    use_fast_stand_ins(monkeypatch)


def _expected(value: str | list[str]) -> set[str]:
    values = [value] if isinstance(value, str) else value
    return {f"h-{i}" for i, v in enumerate(FILTER_VALUES) if v in values}


def _export_ids(store: MemoryStore, f: Filter, out: Path) -> set[str]:
    mc.export_store(store, out / "e.ndjson", filter=f)
    lines = (json.loads(line) for line in (out / "e.ndjson").read_text().splitlines())
    return {d["id"] for d in lines if d.get("kind") == "memory"}


def _graph_ids(store: MemoryStore, f: Filter, out: Path) -> set[str]:
    mc.write_graph(store, out / "g.json", format="json", filter=f)
    return {n["id"] for n in json.loads((out / "g.json").read_text())["nodes"]}


def _eval_ids(store: MemoryStore, f: Filter, _: Path) -> set[str]:
    run = mc.run_queries(store, [Query("q", "hostile row pool cache", {"h-0": 1}, filter=f)],
                         mc.preset("hybrid"), depth=50)
    return {i for i, _ in run.ranked.get("q", ())}


#: API -> the ids it returns for a filter (`out`: a folder for files).
APIS: dict[str, Callable[[MemoryStore, Filter, Path], set[str]]] = {
    "MemoryStore.list": lambda s, f, _: {m.id for m in s.list(f)},
    "MemoryStore.ids": lambda s, f, _: s.ids(f),
    "MemoryStore.scan": lambda s, f, _: set(s.scan(["id"], f)["id"].to_pylist()),
    **{f"search[{p}]": (lambda s, f, _, p=p: {h.memory.id for h in mc.search(
        s, "hostile row pool cache", f, mc.preset(p), limit=50).hits})
       for p in ("vector", "bm25", "full")},
    "export_store": _export_ids,
    "write_graph": _graph_ids,
    "decay_impact": lambda s, f, _: _ids_in(text_of(mc.decay_impact(
        s, "hostile row pool", filter=f, limit=50)).split()),
    "run_queries": _eval_ids,
}
#: Counting APIs: how many rows the filter selects.
COUNTS: dict[str, Callable[[MemoryStore, Filter], int]] = {
    "MemoryStore.count": lambda s, f: s.count(f),
    "decay_frame": lambda s, f: len(mc.decay_frame(s, f)),
}


@pytest.mark.parametrize("api", sorted(APIS))
def test_each_value_selects_exactly_its_row(store: MemoryStore, api: str,
                                            tmp_path: Path) -> None:
    # every field through the store's reads; the project (the same code path) elsewhere
    fast = api.startswith("MemoryStore")
    for field in FIELDS if api == "MemoryStore.list" else ("project",):
        for value in FILTER_VALUES if fast else CURATED:
            got = APIS[api](store, Filter(**{field: value}), tmp_path)
            assert got == _expected(value), (api, field, value[:40])
        every = list(FILTER_VALUES)
        assert APIS[api](store, Filter(**{field: every}), tmp_path) == HOSTILE_IDS
        for value in LOOKALIKES:
            assert APIS[api](store, Filter(**{field: value}), tmp_path) == set(), value[:40]


@pytest.mark.parametrize("api", sorted(COUNTS))
def test_each_value_counts_exactly_its_row(store: MemoryStore, api: str) -> None:
    for field in FIELDS if api.startswith("MemoryStore") else ("project",):
        assert [COUNTS[api](store, Filter(**{field: v})) for v in FILTER_VALUES] == \
            [1] * len(FILTER_VALUES)
        assert [COUNTS[api](store, Filter(**{field: v})) for v in LOOKALIKES] == \
            [0] * len(LOOKALIKES)


def test_the_map_and_duplicates_take_only_the_hostile_rows(store: MemoryStore) -> None:
    every = Filter(project=list(FILTER_VALUES))
    projection = mc.project(store, every, params=mc.MapParams(n_neighbors=3), cache=False)
    assert set(projection.frame["id"].to_list()) == HOSTILE_IDS
    pairs = mc.near_duplicates(store, every, threshold=0.1)
    assert set(pairs["a"].to_list()) | set(pairs["b"].to_list()) <= HOSTILE_IDS
    assert len(pairs) > 0


def _status(store: MemoryStore) -> dict[str, str]:
    return {m.id: m.status for m in store.list(Filter(status=mc.STATUSES))}


@pytest.mark.parametrize("value", CURATED, ids=lambda v: repr(v[:20]))
def test_curation_by_filter_changes_exactly_the_matching_rows(copy: MemoryStore,
                                                              value: str) -> None:
    before = _status(copy)
    mc.archive(copy, Filter(project=value))
    after = _status(copy)
    assert {i for i in after if after[i] != before[i]} == _expected(value)
    mc.restore(copy, Filter(tags=value, status="archived"))
    assert _status(copy) == before
    mc.delete(copy, Filter(agent=value))
    assert set(_status(copy)) == set(before) - _expected(value)


def test_curation_by_a_lookalike_changes_nothing(copy: MemoryStore) -> None:
    before = _status(copy)
    for value in LOOKALIKES:
        for action in (mc.archive, mc.delete):
            try:
                action(copy, Filter(project=value))
            except mc.MemlensError as exc:
                _check_line(str(exc))
    assert _status(copy) == before


def test_recall_scopes_to_a_hostile_project_tag(copy: MemoryStore) -> None:
    for value in CURATED:
        result = mc.recall(copy, "hostile row pool cache", limit=20, project_tag=value)
        assert {item["id"] for item in result.items} == _expected(value), value[:40]


# -- the CLI ---------------------------------------------------------------------------------

def _repeat(option: str, values: Any) -> list[str]:
    return [arg for v in values for arg in (option, v)]


def _cli_ids(uri: str, argv: list[str]) -> set[str]:
    result = CliRunner().invoke(cli, ["--store", uri, *argv])
    assert result.exit_code == 0, (argv[:3], result.output[-300:])
    try:
        docs = [json.loads(result.stdout)]
    except json.JSONDecodeError:  # JSON lines
        docs = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return _ids_in(docs)


def _ids_in(data: Any) -> set[str]:
    """Every row id (h-N, d-N) anywhere in `data`."""
    if isinstance(data, str):
        return {data} if re.fullmatch(r"[hd]-\d+", data) else set()
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, list):
        return set().union(*(_ids_in(v) for v in data)) if data else set()
    return set()


#: command (before the filter options) -> every memory id its JSON output names.
CLI_READS = {
    "ls": ["ls", "--limit", "0", "--json"],
    "search": ["search", "hostile row pool cache", "--limit", "100", "--json"],
    "duplicates": ["duplicates", "--threshold", "0.1", "--json"],
    "decay impact": ["decay", "impact", "hostile row pool cache", "--limit", "100", "--json"],
    "map": ["map", "--n-neighbors", "3", "--no-cache", "--json"],
}


@pytest.mark.parametrize("command", sorted(CLI_READS))
def test_cli_filter_options_select_exactly_the_matching_rows(uri: str, command: str) -> None:
    # every option through `ls`; the others share its filter options (one is enough)
    options = tuple(FIELDS.values()) if command == "ls" else ("--project",)
    for option in options:
        got = _cli_ids(uri, [*CLI_READS[command], *_repeat(option, FILTER_VALUES)])
        assert got <= HOSTILE_IDS and (got or command == "duplicates"), (command, option)
        if command != "duplicates":
            assert got == HOSTILE_IDS, (command, option)
        for value in ("%", "_", "*", "' OR 1=1 --", "\\"):
            if command == "map":
                continue  # three memories at least: the set above covers it
            got = _cli_ids(uri, [*CLI_READS[command], option, value])
            assert got <= _expected(value), (command, option, value)
        assert _cli_ids(uri, [*CLI_READS["ls"], option, "admin"]) == set()


def test_cli_export_and_graph_export_filter_exactly(uri: str, tmp_path: Path) -> None:
    for value in ("%", "_", "' OR 1=1 --", "\u0430dmin", "x" * 10_000):
        out = tmp_path / "e.ndjson"
        CliRunner().invoke(cli, ["--store", uri, "export", str(out), "--project", value])
        ids = {json.loads(line).get("id") for line in out.read_text().splitlines()[1:]}
        assert ids - {None} == _expected(value)
        graph = tmp_path / "g.json"
        CliRunner().invoke(cli, ["--store", uri, "graph", "export", "--format", "json",
                                 "--tag", value, "--output", str(graph)])
        assert {n["id"] for n in json.loads(graph.read_text())["nodes"]} == _expected(value)


def test_cli_curation_by_filter_changes_exactly_the_matching_rows(copy: MemoryStore) -> None:
    before = _status(copy)
    for value in ("%", "_", "' OR 1=1 --", "\uff07 OR 1=1 --", "admin"):
        result = CliRunner().invoke(cli, ["--store", copy.uri, "archive", "--project", value,
                                          "-y"])
        assert result.exit_code in (0, 1), result.output
        changed = {i for i, s in _status(copy).items() if s != before[i]}
        assert changed <= {f"h-{i}" for i, v in enumerate(FILTER_VALUES)
                           if v in ("%", "_", "' OR 1=1 --", "\uff07 OR 1=1 --")}
    assert {i for i, s in _status(copy).items() if s != before[i]} == \
        _expected(["%", "_", "' OR 1=1 --", "\uff07 OR 1=1 --"])


# -- refusals ---------------------------------------------------------------------------------

def _check_line(message: str) -> None:
    assert "\n" not in message.strip(), message
    assert not any(word in message for word in INTERNALS), message
    assert not any(ord(c) < 32 and c not in "\n\t" for c in message), repr(message)
    assert "\u202e" not in message and "\x00" not in message


@pytest.mark.parametrize("option", ["--status", "--importance", "--embedding-status",
                                    "--since", "--until"])
def test_refused_values_are_one_clean_line(uri: str, option: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    for value in FILTER_VALUES:
        code, out, err = run_cli(["--store", uri, "ls", option, value], capsys)
        assert code == 1 and out == "", (option, value[:40])
        _check_line(err)
        assert len(err) < 1000


def test_refused_filters_in_the_engine_are_memlens_errors(store: MemoryStore) -> None:
    for value in [*FILTER_VALUES, "\ud800"]:
        for field in ("memory_type", "status", "importance", "created_after", "project"):
            try:
                store.list(Filter(**{field: value}))
            except mc.MemlensError as exc:
                _check_line(str(exc))


def test_hostile_ids_and_sessions_in_cli_lookups(uri: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for value in (*CURATED, "bell\x07 esc\x1b[31m", "\u200fright-to-left\u202e"):
        for argv in (["show", value], ["decay", "show", value],
                     ["ls", "--type", value, "--json"],
                     ["events", "--session", value, "--json"],
                     ["audit", "--actor", value, "--json"]):
            code, out, err = run_cli(["--store", uri, *argv], capsys)
            assert code in (0, 1), argv
            _check_line(err)
            if code == 0 and argv[0] in ("events", "ls"):
                assert out.strip() in ("", "[]"), argv


def test_a_hostile_tenant_is_quoted_in_the_hint(uri: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the unknown-tenant error suggested `--tenant NAME` unquoted, so pasting
    the hint for a tenant named like a command ran it."""
    for value in ("x; touch /tmp/pwned", "' OR 1=1 --", "$(id)", "nul\x00byte"):
        code, out, err = run_cli(["--store", uri, "--tenant", value, "ls"], capsys)
        assert code == 1 and out == ""
        _check_line(err)
        assert f"--tenant {value}" not in err
    _, _, err = run_cli(["--store", uri, "--tenant", "x; touch /tmp/pwned", "ls"], capsys)
    assert "--tenant 'x; touch /tmp/pwned' to create it" in err
