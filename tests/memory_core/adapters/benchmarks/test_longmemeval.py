"""The `longmemeval` adapter: each question's haystack as its own project (or sessions shared),
turn- or session-level relevance, abstention questions skipped, broken files, and the
streaming reader of large JSON arrays."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.adapters.base import stable_id
from memory_core.adapters.benchmarks import common as benchmark
from memory_core.adapters.benchmarks.longmemeval import LongMemEvalAdapter, parse_date
from memory_core.evaluation.queryset import load_queries
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader
from memory_core.model.errors import ExportFormatError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import run_cli

LONGMEMEVAL = Path(__file__).parents[1] / "data" / "longmemeval" / "longmemeval_small.json"
ALL = Filter(status=STATUSES)
SHARED = ReadOptions(params={"scope": "shared"})
DEGREE, BIKES, SHOES = "7f3a9c21", "b81c44e0", "gpt4_2c81e5f3"
SKIPPED = {
    "turn with empty content": {"count": 2, "examples": [
        "question b81c44e0 ultrachat_301077 turn 2",
        "question gpt4_2c81e5f3 ultrachat_301077 turn 2"]},
    "answer session not in the haystack": {"count": 1, "examples": [
        "question b81c44e0: answer_90ab12cd_3"]},
    "abstention question (_abs): skipped": {"count": 1, "examples": ["question 5e9d0b7a_abs"]},
}


def turn(question: str, session: str, index: int) -> str:
    return stable_id("longmemeval", question, session, index)


def shared(session: str, index: int) -> str:
    return stable_id("longmemeval", session, index)


def read_ndjson(path: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {line["qid"]: line for line in lines}


def test_dates_parse() -> None:
    assert parse_date("2023/05/20 (Sat) 02:21") == datetime(2023, 5, 20, 2, 21)
    assert parse_date("2023/5/2 17:00") == datetime(2023, 5, 2, 17, 0)
    assert parse_date("20 May 2023") is None and parse_date("2023/02/30 (Thu) 10:00") is None


def test_each_question_gets_its_haystack_as_a_project(store: MemoryStore,
                                                      tmp_path: Path) -> None:
    report = import_file(store, LONGMEMEVAL, format="longmemeval",
                         queries_out=tmp_path / "q.ndjson")
    assert report.format == "longmemeval" and report.mode == "merge"
    assert report.records == {"memory": 17, "edge": 0, "audit": 0}
    assert report.skipped == SKIPPED
    assert report.read == 17 + 4 and report.duplicates == {}
    assert [store.count(Filter(project=q)) for q in (DEGREE, BIKES, SHOES)] == [5, 7, 5]
    assert store.count(Filter(project="5e9d0b7a_abs")) == 0

    said = store.get(turn(DEGREE, "answer_5d2e0a11", 1))
    assert said.content == ("user: I graduated with a degree in Business Administration, and "
                            "now I want to move into data analysis.")
    assert (said.memory_type, said.source, said.tags) == ("event", "transcript",
                                                          ("longmemeval",))
    assert (said.project, said.session_id, said.agent) == (DEGREE, "answer_5d2e0a11", "user")
    assert said.created_at.isoformat() == "2023-05-22T14:05:00+00:00"
    assert said.metadata == {"role": "user", "turn": 1, "session_date": "2023/05/22 (Mon) 14:05",
                             "has_answer": True}
    third = store.get(turn(DEGREE, "answer_5d2e0a11", 3))
    assert third.created_at.isoformat() == "2023-05-22T14:05:02+00:00"
    assert third.agent == "user" and third.metadata["has_answer"] is False
    # the filler session of two haystacks is stored once per question, at each one's date
    pasta = [store.get(turn(q, "sharegpt_Qx81kLm_0", 1)) for q in (DEGREE, BIKES)]
    assert pasta[0].content == pasta[1].content
    assert [p.created_at.isoformat()[:16] for p in pasta] == ["2023-05-20T02:21",
                                                             "2023-05-09T19:45"]


def test_queries_grade_flagged_turns_or_whole_sessions(store: MemoryStore,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    report = import_file(store, LONGMEMEVAL, queries_out=out)
    queries = read_ndjson(out)
    assert report.queries == 3 and list(queries) == [DEGREE, BIKES, SHOES]
    assert queries[DEGREE] == {
        "qid": DEGREE, "query": "What degree did I graduate with?",
        "relevant": {turn(DEGREE, "answer_5d2e0a11", 1): 2,
                     turn(DEGREE, "answer_5d2e0a11", 2): 1,
                     turn(DEGREE, "answer_5d2e0a11", 3): 1},
        "filter": {"project": DEGREE}, "tags": ["single-session-user"]}
    # no has_answer flags: every turn of the answer sessions (the missing third is dropped)
    assert queries[BIKES]["relevant"] == {
        turn(BIKES, s, t): 1 for s in ("answer_90ab12cd_1", "answer_90ab12cd_2") for t in (1, 2)}
    assert queries[BIKES]["tags"] == ["multi-session"]
    assert queries[SHOES]["relevant"] == {
        turn(SHOES, "answer_77aa21f0_1", 1): 2, turn(SHOES, "answer_77aa21f0_1", 2): 1,
        turn(SHOES, "answer_77aa21f0_2", 1): 2, turn(SHOES, "answer_77aa21f0_2", 2): 1}
    assert all(m.project == q for q, query in queries.items()
               for m in store.get_many(list(query["relevant"])).values())
    assert [q.tags for q in load_queries(out)] == [("single-session-user",),
                                                  ("multi-session",), ("temporal-reasoning",)]


@pytest.mark.parametrize("relevance, degree", [
    ("session", {1: 1, 2: 1, 3: 1}), ("turn", {1: 2, 2: 1, 3: 1}), ("auto", {1: 2, 2: 1, 3: 1}),
])
def test_relevance_param(relevance: str, degree: dict[int, int], store: MemoryStore,
                         tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    import_file(store, LONGMEMEVAL, queries_out=out,
                options=ReadOptions(params={"relevance": relevance, "answers": "include"}))
    queries = read_ndjson(out)
    assert queries[DEGREE]["relevant"] == {turn(DEGREE, "answer_5d2e0a11", t): g
                                           for t, g in degree.items()}
    assert set(queries[BIKES]["relevant"].values()) == {1}
    assert queries[BIKES]["answer"] == 3
    assert queries[BIKES]["question_date"] == "2023/06/10 (Sat) 09:12"


def test_flagged_relevance_keeps_only_has_answer_turns(store: MemoryStore,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    report = import_file(store, LONGMEMEVAL, queries_out=out,
                         options=ReadOptions(params={"relevance": "flagged"}))
    queries = read_ndjson(out)
    assert queries[DEGREE]["relevant"] == {turn(DEGREE, "answer_5d2e0a11", 1): 1}
    assert queries[SHOES]["relevant"] == {turn(SHOES, "answer_77aa21f0_1", 1): 1,
                                          turn(SHOES, "answer_77aa21f0_2", 1): 1}
    # BIKES flags no turn: strict turn-level relevance has nothing to grade it on
    assert BIKES not in queries and report.queries == 2
    assert report.skipped["question flags no has_answer turn (relevance=flagged): not "
                          "written as a query"] == {"count": 1, "examples": [f"question {BIKES}"]}


def test_shared_scope_stores_each_session_once(store: MemoryStore, tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    report = import_file(store, LONGMEMEVAL, options=SHARED, queries_out=out)
    assert report.records == {"memory": 14, "edge": 0, "audit": 0}
    assert report.skipped["turn with empty content"]["count"] == 1
    pasta = store.get(shared("sharegpt_Qx81kLm_0", 1))
    assert pasta.project == "longmemeval" and pasta.session_id == "sharegpt_Qx81kLm_0"
    assert pasta.created_at.isoformat() == "2023-05-20T02:21:00+00:00"  # the first question's
    assert "has_answer" not in pasta.metadata
    queries = read_ndjson(out)
    assert queries[BIKES]["filter"] == {
        "project": "longmemeval",
        "session_id": ["answer_90ab12cd_1", "sharegpt_Qx81kLm_0", "ultrachat_301077",
                       "answer_90ab12cd_2"]}
    assert queries[DEGREE]["relevant"] == {shared("answer_5d2e0a11", 1): 2,
                                           shared("answer_5d2e0a11", 2): 1,
                                           shared("answer_5d2e0a11", 3): 1}
    # the filter scopes the search to exactly the question's haystack
    haystack = store.ids(load_queries(out)[1].filter)
    assert len(haystack) == 7 and set(queries[BIKES]["relevant"]) <= haystack


def test_shared_scope_reports_a_session_whose_turns_differ(store: MemoryStore,
                                                           tmp_path: Path) -> None:
    questions = json.loads(LONGMEMEVAL.read_text())
    questions[1]["haystack_sessions"][1][0]["content"] = "Another pasta question."
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(questions))
    report = import_file(store, path, options=SHARED)
    assert report.skipped["session repeats with other turns (the first kept)"] == {
        "count": 1, "examples": ["question b81c44e0 sharegpt_Qx81kLm_0"]}
    assert store.get(shared("sharegpt_Qx81kLm_0", 1)).content.startswith("user: Can you")


@pytest.mark.parametrize("options", [ReadOptions(), SHARED])
def test_a_second_import_adds_nothing(options: ReadOptions, store: MemoryStore) -> None:
    first = import_file(store, LONGMEMEVAL, options=options)
    versions, count = store.table_versions(), store.count(ALL)
    again = import_file(store, LONGMEMEVAL, options=options)
    assert again.inserted == () and again.updated == ()
    assert len(again.unchanged) == len(first.inserted) == count
    assert store.table_versions() == versions and store.count(ALL) == count


def test_dry_run_limit_and_project(store: MemoryStore, tmp_path: Path) -> None:
    versions = store.table_versions()
    report = import_file(store, LONGMEMEVAL, dry_run=True, queries_out=tmp_path / "q.ndjson")
    assert report.dry_run and len(report.inserted) == 17 and report.queries == 3
    assert store.table_versions() == versions and not (tmp_path / "q.ndjson").exists()
    report = import_file(store, LONGMEMEVAL, options=ReadOptions(limit=2))
    assert len(report.inserted) == 12 and "abstention question (_abs): skipped" \
        not in report.skipped
    report = import_file(store, LONGMEMEVAL, options=ReadOptions(project=SHOES))
    assert len(report.inserted) == 5 and report.skipped["turn with empty content"]["count"] == 1
    with pytest.raises(ExportFormatError, match="holds no question 'nope'"):
        import_file(store, LONGMEMEVAL, options=ReadOptions(project="nope"))


def test_auto_reads_the_head_only(store: MemoryStore, tmp_path: Path) -> None:
    assert detect_reader(LONGMEMEVAL).name == "longmemeval"
    # sniffing a 277 MB file must not parse it: a broken tail is not noticed
    head = tmp_path / "head.json"
    head.write_text(LONGMEMEVAL.read_text()[:3000] + "\x00 garbage" * 5000)
    assert LongMemEvalAdapter().sniff(head, "[")
    assert import_file(store, LONGMEMEVAL).format == "longmemeval"


def test_the_stream_crosses_chunk_boundaries(store: MemoryStore,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    whole = [r.doc for r in LongMemEvalAdapter().open(LONGMEMEVAL).records()]
    monkeypatch.setattr(benchmark, "CHUNK_BYTES", 7)
    assert [r.doc for r in LongMemEvalAdapter().open(LONGMEMEVAL).records()] == whole
    assert len(whole) == 17


def _write(text: str | bytes) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        path = folder / "broken.json"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        return path
    return write


def _edit(change: Callable[[list[Any]], None]) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        questions = json.loads(LONGMEMEVAL.read_text())
        change(questions)
        path = folder / "broken.json"
        path.write_text(json.dumps(questions))
        return path
    return write


def _pop(index: int, key: str) -> Callable[[list[Any]], None]:
    return lambda qs: qs[index].pop(key) and None


def _put(index: int, key: str, value: Any) -> Callable[[list[Any]], None]:
    return lambda qs: qs[index].__setitem__(key, value)


def _turn(index: int, session: int, at: int, key: str, value: Any = None
          ) -> Callable[[list[Any]], None]:
    def change(qs: list[Any]) -> None:
        one = qs[index]["haystack_sessions"][session][at]
        if value is None:
            del one[key]
        else:
            one[key] = value
    return change


TEXT = LONGMEMEVAL.read_text()
BROKEN = {
    "truncated JSON": (_write(TEXT[: len(TEXT) * 2 // 3]),
                       r"broken.json: item \d: invalid JSON at line \d+ .*may be truncated"),
    "binary file": (_write(b"PK\x03\x04\x14\x00\x00\x00\x08\x00"), "is a binary file"),
    "not an array": (_write('{"question_id": "x"}'),
                     "is not a JSON array of LongMemEval questions"),
    "item not an object": (_edit(lambda qs: qs.append(["x"])),
                           "item 5 is not a JSON object"),
    "no question_type": (_edit(_pop(3, "question_type")),
                         r"question 'gpt4_2c81e5f3' \(item 4\): the record has no "
                         r"'question_type'"),
    "haystack not a list": (_edit(_put(1, "haystack_sessions", {"a": []})),
                            r"question 'b81c44e0' \(item 2\): 'haystack_sessions' must be "
                            r"list, got dict"),
    "turn without content": (_edit(_turn(3, 2, 1, "content")),
                             r"haystack_sessions\[3\] \(answer_77aa21f0_2\)\[2\]: the record "
                             r"has no 'content'"),
    "has_answer not a boolean": (_edit(_turn(0, 1, 0, "has_answer", "yes")),
                                 r"'has_answer' must be bool, got str"),
    "lengths differ": (_edit(lambda qs: qs[3]["haystack_dates"].pop()),
                       r"must be as long as each other, got 3, 2, 3"),
    "unreadable date": (_edit(lambda qs: qs[1]["haystack_dates"].__setitem__(0, "May 2")),
                        r"haystack_dates\[1\] 'May 2' is not a date"),
    "answer ids not a list": (_edit(_put(0, "answer_session_ids", "answer_5d2e0a11")),
                              r"'answer_session_ids' must be list, got str"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_inputs_name_the_problem_and_write_nothing(case: str, store: MemoryStore,
                                                          tmp_path: Path) -> None:
    import_file(store, LONGMEMEVAL, options=ReadOptions(limit=1))
    versions, count = store.table_versions(), store.count(ALL)
    make, message = BROKEN[case]
    with pytest.raises(ExportFormatError, match=message):
        import_file(store, make(tmp_path), format="longmemeval",
                    queries_out=tmp_path / "q.ndjson")
    assert store.table_versions() == versions and store.count(ALL) == count
    assert not (tmp_path / "q.ndjson").exists()


def test_bad_params_are_refused(store: MemoryStore) -> None:
    with pytest.raises(ExportFormatError, match="--param scope='all' is not allowed"):
        import_file(store, LONGMEMEVAL, options=ReadOptions(params={"scope": "all"}))
    with pytest.raises(ExportFormatError, match="the longmemeval format has no --param units"):
        import_file(store, LONGMEMEVAL, options=ReadOptions(params={"units": "turns"}))


@pytest.mark.model
def test_cli_import_writes_the_query_set(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    store, out = str(tmp_path / "s"), tmp_path / "q.ndjson"
    code, text, err = run_cli(["--store", store, "import", str(LONGMEMEVAL),
                               "--queries-out", str(out)], capsys)
    assert code == 0, err
    assert "format: longmemeval (--format auto chose it); mode merge" in text
    assert "memories: 17 imported, 0 updated, 0 unchanged" in text
    assert "1 abstention question (_abs): skipped (e.g. question 5e9d0b7a_abs)" in text
    assert f"queries: 3 written to {out}" in text
    assert list(read_ndjson(out)) == [DEGREE, BIKES, SHOES]
