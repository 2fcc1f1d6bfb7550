"""Query-set files: loading, writing, and errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.evaluation import (
    Query,
    QuerySetError,
    load_queries,
    select_tags,
    write_queries,
)
from memory_core.evaluation.queryset import sample_queries
from memory_core.model.errors import InvalidRecordError, MemlensError
from memory_core.model.filters import Filter
from memory_core.seeding import DEMO_QUERIES, demo_dir

GOOD = {"qid": "q1", "query": "why uv?", "relevant": {"m1": 2, "m2": 1},
        "filter": {"project": "herd", "memory_type": ["decision"]}, "tags": ["why"]}


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "queries.ndjson"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_good_file_loads_into_typed_queries(tmp_path: Path) -> None:
    second = {"qid": "q2", "query": "ci cache", "relevant": {"m3": 1}}
    path = _write(tmp_path, json.dumps(GOOD), "", "   ", json.dumps(second))
    queries = load_queries(path)
    assert [q.qid for q in queries] == ["q1", "q2"]
    first = queries[0]
    assert first.relevant == {"m1": 2, "m2": 1} and first.relevant_ids == ("m1", "m2")
    assert first.filter == Filter(project="herd", memory_type=["decision"])
    assert first.tags == ("why",)
    assert queries[1].filter == Filter() and queries[1].tags == ()


def test_a_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(GOOD))
    plain = load_queries(path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_queries(path) == plain


def test_the_demo_query_set_loads() -> None:
    queries = load_queries(demo_dir() / DEMO_QUERIES)
    assert len(queries) == 154 and len({q.qid for q in queries}) == 154
    assert all(min(q.relevant.values()) >= 1 for q in queries)


BAD_LINES = [
    ("{not json", "not JSON"),
    ('["a list"]', "expected a JSON object"),
    ('{"query": "x", "relevant": {"m": 1}}', "'qid' must be non-empty text"),
    ('{"qid": 7, "query": "x", "relevant": {"m": 1}}', "'qid' must be non-empty text"),
    ('{"qid": "q", "query": " ", "relevant": {"m": 1}}', "'query' must be non-empty text"),
    ('{"qid": "q", "query": "x"}', "'relevant' must be a non-empty object"),
    ('{"qid": "q", "query": "x", "relevant": {}}', "'relevant' must be a non-empty object"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 0}}', "grade of 'm' must be an integer >= 1"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 1.5}}', "must be an integer >= 1"),
    ('{"qid": "q", "query": "x", "relevant": {"m": "2"}}', "must be an integer >= 1"),
    ('{"qid": "q", "query": "x", "relevant": {"m": true}}', "must be an integer >= 1"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 1}, "filter": {"projet": "a"}}',
     "unknown filter field(s) projet; known:"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 1}, "filter": {"project": 5}}',
     "bad filter"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 1}, "filter": {"status": "gone"}}',
     "bad filter"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 1}, "filter": []}', "'filter' must be"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 1}, "tags": "why"}', "'tags' must be"),
    ('{"qid": "q", "query": "x", "relevant": {"m": 1}, "relevent": {}}',
     "unknown key(s) relevent"),
]


@pytest.mark.parametrize("line, message", BAD_LINES)
def test_bad_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = _write(tmp_path, json.dumps(GOOD), "", line)
    with pytest.raises(QuerySetError) as info:
        load_queries(path)
    assert str(info.value).startswith(f"{path}:3: ")
    assert message in str(info.value)
    assert isinstance(info.value, InvalidRecordError | MemlensError)


def test_a_repeated_qid_names_both_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(GOOD), json.dumps(GOOD | {"query": "again"}))
    with pytest.raises(QuerySetError, match=r":2: qid 'q1' repeats the one on line 1"):
        load_queries(path)


def test_empty_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(QuerySetError, match="holds no queries"):
        load_queries(_write(tmp_path, "", " "))
    with pytest.raises(QuerySetError, match="cannot read the query set"):
        load_queries(tmp_path / "absent.ndjson")
    binary = tmp_path / "b.ndjson"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(QuerySetError, match="not UTF-8"):
        load_queries(binary)


def test_write_then_load_gives_the_same_queries(tmp_path: Path) -> None:
    queries = [Query("b", "second", {"m2": 3}, Filter.from_dict({"agent": ["x", "y"]}),
                     ("t",)),
               Query("a", "first\u2028line", {"m1": 1})]
    path = tmp_path / "out.ndjson"
    assert write_queries(path, queries) == 2
    # canonical JSON keeps U+2028 unescaped: the loader must split on "\n" only
    assert load_queries(path) == queries
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    assert first_line == ('{"filter":{"agent":["x","y"]},"qid":"b","query":"second",'
                          '"relevant":{"m2":3},"tags":["t"]}')
    with pytest.raises(QuerySetError, match="qid 'a' appears twice"):
        write_queries(path, [queries[1], queries[1]])


texts = st.text(st.characters(codec="utf-8"), min_size=1).filter(str.strip)
query_docs = st.fixed_dictionaries(
    {"qid": texts, "query": texts,
     "relevant": st.dictionaries(texts, st.integers(1, 5), min_size=1, max_size=4),
     "filter": st.fixed_dictionaries({}, optional={
         "project": st.lists(texts, min_size=1, max_size=2), "agent": texts}),
     "tags": st.lists(texts, max_size=3, unique=True)})


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(query_docs, min_size=1, max_size=4, unique_by=lambda d: str(d["qid"])))
def test_round_trip_of_any_query_set(tmp_path_factory: pytest.TempPathFactory,
                                     docs: list[dict]) -> None:
    path = tmp_path_factory.mktemp("rt") / "q.ndjson"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    loaded = load_queries(path)
    again = tmp_path_factory.mktemp("rt") / "again.ndjson"
    write_queries(again, loaded)
    assert load_queries(again) == loaded
    assert [q.to_dict() for q in loaded] == docs


def test_select_tags_keeps_any_and_names_known_tags() -> None:
    queries = [Query("a", "x", {"m": 1}, tags=("why",)), Query("b", "y", {"m": 1},
                                                               tags=("keyword", "api")),
               Query("c", "z", {"m": 1})]
    assert [q.qid for q in select_tags(queries, ["api", "why"])] == ["a", "b"]
    assert select_tags(queries, []) == queries
    with pytest.raises(QuerySetError, match="no query has the tag.*known tags: api, keyword, "
                                            "why"):
        select_tags(queries, ["nope"])


def test_a_repeated_tag_counts_a_query_once(tmp_path: Path) -> None:
    from memory_core.evaluation import RetrievalRun, result_from_run

    path = tmp_path / "q.ndjson"
    path.write_text('{"qid": "q1", "query": "x", "relevant": {"m": 1}, "tags": ["a", "a"]}\n'
                    '{"qid": "q2", "query": "y", "relevant": {"m": 1}, "tags": ["a"]}\n')
    queries = load_queries(path)
    assert queries[0].tags == ("a",)
    result = result_from_run(queries, RetrievalRun.from_ranked({"q1": ["m"]}), ks=(1,))
    row = result.by_tag.filter(result.by_tag["metric"] == "recall@1").to_dicts()[0]
    assert (row["n"], row["mean"]) == (2, 0.5)  # q1 found m, q2 found nothing


# -- samples of a large set ----------------------------------------------------------------

def _numbered(tmp_path: Path, count: int) -> Path:
    """`count` queries q0..q{count-1}, with a blank line after every tenth."""
    lines = []
    for n in range(count):
        lines.append(json.dumps({"qid": f"q{n}", "query": f"query {n}", "relevant": {"m": 1}}))
        if n % 10 == 9:
            lines.append("")
    return _write(tmp_path, *lines)


def test_a_sample_is_the_seeded_choice_among_the_queries_in_file_order(tmp_path: Path) -> None:
    import random

    path = _numbered(tmp_path, 50)
    sample = sample_queries(path, 10, seed=3)
    assert sample.total == 50 and sample.sampled
    # the documented rule: random.Random(seed).sample of the non-blank lines' indices
    assert [q.qid for q in sample.queries] == [
        f"q{n}" for n in sorted(random.Random(3).sample(range(50), 10))]
    assert sample_queries(path, 10, seed=3) == sample
    assert sample_queries(path, 10, seed=4).queries != sample.queries
    whole = sample_queries(path, 50, seed=3)
    assert not whole.sampled and whole.queries == load_queries(path)
    assert sample_queries(path, 0).queries == load_queries(path)  # 0: every query


def test_a_sample_reads_only_its_lines_as_queries(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(GOOD), "not json")
    assert [q.qid for q in sample_queries(path, 1, seed=1).queries] == ["q1"]  # index 0
    with pytest.raises(QuerySetError, match=r"queries\.ndjson:2: not JSON"):
        sample_queries(path, 1, seed=0)  # index 1: the bad line is in the sample
    with pytest.raises(QuerySetError, match="holds no queries"):
        sample_queries(_write(tmp_path, "", " "), 5)


@pytest.mark.slow
def test_sampling_a_huge_set_costs_the_memory_of_the_sample(tmp_path: Path) -> None:
    import tracemalloc

    path = tmp_path / "huge.ndjson"
    with path.open("w", encoding="utf-8") as out:
        for n in range(200_000):
            out.write(f'{{"qid": "q{n}", "query": "why were the tests slow {n}", '
                      f'"relevant": {{"m{n}": 1}}, "tags": ["paraphrase"]}}\n')
    tracemalloc.start()
    try:
        sample = sample_queries(path, 100, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sample.total == 200_000 and len(sample.queries) == 100
    # the whole set as Query objects is some 170 MB (`load_queries`), the file 22 MB; the
    # sample's peak was 0.12 MB
    assert peak < 5_000_000, peak
