"""The `locomo` adapter: LoCoMo samples as dialog-turn memories, one project per sample, their
questions as a query set with normalised evidence; optional observation and summary units;
broken files."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.adapters.base import stable_id
from memory_core.adapters.benchmarks.locomo import dialog_ids, parse_date_time
from memory_core.evaluation.queryset import load_queries
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader
from memory_core.model.errors import ExportFormatError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import run_cli

LOCOMO = Path(__file__).parents[1] / "data" / "locomo" / "locomo_small.json"
ALL = Filter(status=STATUSES)
ALL_UNITS = ReadOptions(params={"units": "turns,observations,summaries"})


def turn(sample: str, dia_id: str) -> str:
    return stable_id("locomo", sample, dia_id)


def observation(sample: str, session: int, speaker: str, index: int) -> str:
    return stable_id("locomo", sample, "observation", session, speaker, index)


def summary(sample: str, session: int) -> str:
    return stable_id("locomo", sample, "summary", session)


def read_ndjson(path: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {line["qid"]: line for line in lines}


def test_evidence_strings_and_dates_parse() -> None:
    assert dialog_ids("D8:6; D9:17") == ["D8:6", "D9:17"]
    assert dialog_ids("D30:05") == ["D30:5"]
    assert dialog_ids("D1:2 D1:3") == dialog_ids("D1:2,D1:3") == ["D1:2", "D1:3"]
    assert dialog_ids("not-an-id") == []
    assert parse_date_time("12:05 am on 1 Sept, 2023") == datetime(2023, 9, 1, 0, 5)
    assert parse_date_time("12:30 pm on 9 June, 2023") == datetime(2023, 6, 9, 12, 30)
    assert parse_date_time("noon on 9 June") is None


def test_turns_become_event_memories_one_project_per_sample(store: MemoryStore,
                                                            tmp_path: Path) -> None:
    report = import_file(store, LOCOMO, format="locomo", queries_out=tmp_path / "q.ndjson")
    assert report.format == "locomo" and report.mode == "merge"
    assert report.records == {"memory": 12, "edge": 0, "audit": 0}
    assert len(report.inserted) == 12 and report.duplicates == {}
    assert store.count(Filter(project="conv-1")) == 7
    assert store.count(Filter(project="conv-2")) == 5
    # session_3 of conv-1 has a date and no turns: nothing comes of it
    assert store.count(Filter(session_id="conv-1:session_3")) == 0

    first = store.get(turn("conv-1", "D1:1"))
    assert first.content == "Ana: Hey Ben! I signed up for the city half marathon in September."
    assert (first.memory_type, first.source, first.tags) == ("event", "transcript", ("locomo",))
    assert (first.project, first.session_id, first.agent) == ("conv-1", "conv-1:session_1", "Ana")
    assert first.created_at.isoformat() == "2023-05-08T13:56:00+00:00"
    assert first.metadata == {"dia_id": "D1:1", "session": 1, "turn": 1,
                              "session_date_time": "1:56 pm on 8 May, 2023"}

    photo = store.get(turn("conv-1", "D2:2"))
    assert photo.content == ("Ben: Look what I painted at the lake last weekend. "
                             "[shares a photo: a painting of a sunrise over a lake]")
    # the session starts 10:37 am; the second turn is one second later
    assert photo.created_at.isoformat() == "2023-06-27T10:37:01+00:00"
    assert photo.metadata == {
        "dia_id": "D2:2", "session": 2, "turn": 2,
        "session_date_time": "10:37 am on 27 June, 2023",
        "img_url": ["https://example.org/images/lake-sunrise.jpg"],
        "blip_caption": "a painting of a sunrise over a lake", "query": "sunrise lake painting"}
    # an abbreviated month, pm
    flat = store.get(turn("conv-2", "D2:1"))
    assert flat.created_at.isoformat() == "2024-02-14T16:40:00+00:00"
    assert flat.session_id == "conv-2:session_2" and flat.agent == "Dev"


def test_evidence_is_normalised_and_what_cannot_be_is_reported(store: MemoryStore,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "queries" / "locomo.ndjson"
    report = import_file(store, LOCOMO, queries_out=out)
    assert report.skipped == {
        "evidence names a turn that does not exist": {
            "count": 2, "examples": ["sample conv-1 q6: D2:9", "sample conv-1 q7: D5:1"]},
        "question has no evidence turn: not written as a query": {
            "count": 2, "examples": ["sample conv-1 q6", "sample conv-1 q8"]},
        "evidence is not a dialog id": {
            "count": 1, "examples": ["sample conv-2 q3: 'not-an-id'"]},
    }
    assert report.queries == 11 and report.queries_path == str(out)
    queries = read_ndjson(out)
    assert list(queries) == [f"conv-1:q{n}" for n in (1, 2, 3, 4, 5, 7, 9)] + \
        [f"conv-2:q{n}" for n in (1, 2, 3, 4)]

    def relevant(qid: str) -> set[str]:
        assert set(queries[qid]["relevant"].values()) == {1}
        return set(queries[qid]["relevant"])

    assert relevant("conv-1:q1") == {turn("conv-1", "D1:3")}
    # "D1:3; D2:3" split
    assert relevant("conv-1:q2") == {turn("conv-1", "D1:3"), turn("conv-1", "D2:3")}
    # "D1:01" -> D1:1
    assert relevant("conv-1:q3") == {turn("conv-1", "D1:1"), turn("conv-1", "D2:1")}
    # "D2:2 D1:2" split on the space
    assert relevant("conv-1:q4") == {turn("conv-1", "D2:2"), turn("conv-1", "D1:2")}
    # D5:1 does not exist: dropped, D1:2 kept
    assert relevant("conv-1:q7") == {turn("conv-1", "D1:2")}
    # "D2:1,D2:3" split on the comma
    assert relevant("conv-1:q9") == {turn("conv-1", "D2:1"), turn("conv-1", "D2:3")}
    assert relevant("conv-2:q2") == {turn("conv-2", "D2:1")}  # "D2:01"
    assert relevant("conv-2:q3") == {turn("conv-2", "D1:2")}  # "not-an-id" dropped


def test_query_lines_are_scoped_to_their_sample_and_tagged(store: MemoryStore,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    import_file(store, LOCOMO, queries_out=out)
    queries = read_ndjson(out)
    assert queries["conv-1:q1"] == {
        "qid": "conv-1:q1", "query": "What is the name of Ana's dog?",
        "relevant": {turn("conv-1", "D1:3"): 1},
        "filter": {"memory_type": "event", "project": "conv-1"},
        "tags": ["single-hop", "turns"]}
    tags = {qid: q["tags"][0] for qid, q in queries.items() if qid.startswith("conv-1")}
    assert tags == {"conv-1:q1": "single-hop", "conv-1:q2": "temporal",
                    "conv-1:q3": "multi-hop", "conv-1:q4": "open-domain",
                    "conv-1:q5": "adversarial", "conv-1:q7": "single-hop",
                    "conv-1:q9": "temporal"}
    # the adversarial question has evidence, so it is kept
    assert queries["conv-1:q5"]["relevant"] == {turn("conv-1", "D2:2"): 1}
    for qid, query in queries.items():
        sample = qid.split(":")[0]
        assert query["filter"]["project"] == sample
        assert {m.project for m in store.get_many(list(query["relevant"])).values()} == {sample}
    # memlens eval reads the file as it is
    loaded = load_queries(out)
    assert len(loaded) == 11 and loaded[0].filter == Filter(project="conv-1",
                                                            memory_type="event")


def test_answers_are_added_when_asked_for(store: MemoryStore, tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    import_file(store, LOCOMO, queries_out=out,
                options=ReadOptions(params={"answers": "include"}))
    queries = read_ndjson(out)
    assert queries["conv-1:q5"]["adversarial_answer"] == "a sunrise"
    assert queries["conv-1:q5"]["category"] == 5 and "answer" not in queries["conv-1:q5"]
    assert queries["conv-1:q9"]["answer"] == 2023
    assert queries["conv-1:q1"]["answer"] == "Pico"


def test_observations_and_summaries_as_units(store: MemoryStore, tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    report = import_file(store, LOCOMO, options=ALL_UNITS, queries_out=out)
    assert report.records == {"memory": 25, "edge": 8, "audit": 0}
    assert store.count(Filter(memory_type="observation")) == 9
    assert store.count(Filter(memory_type="session_summary")) == 4
    assert report.skipped["observation evidence names a turn that does not exist"] == {
        "count": 1, "examples": ["sample conv-1 session_2_observation Ben 2: D2:7"]}
    assert report.skipped["no observations hold the question's evidence: no observations "
                          "query"] == {"count": 1, "examples": ["sample conv-2 q2"]}

    dog = store.get(observation("conv-1", 1, "Ana", 2))
    assert dog.content == "Ana adopted a rescue dog named Pico."
    assert (dog.memory_type, dog.source, dog.agent) == ("observation", "agent_inference", "Ana")
    assert dog.session_id == "conv-1:session_1"
    assert dog.created_at.isoformat() == "2023-05-08T13:56:00+00:00"
    assert dog.metadata == {"evidence": ["D1:3"], "session": 1, "speaker": "Ana"}
    edges = store.edges.list(memory_id=dog.id)
    assert [(e.source_id, e.target_id, e.relation, tuple(e.evidence)) for e in edges] == [
        (dog.id, turn("conv-1", "D1:3"), "derived_from", ("D1:3",))]
    lisbon = store.get(observation("conv-1", 2, "Ben", 2))
    assert store.edges.list(memory_id=lisbon.id) == []

    second = store.get(summary("conv-1", 2))
    assert second.memory_type == "session_summary" and second.project == "conv-1"
    assert second.created_at.isoformat() == "2023-06-27T10:37:00+00:00"

    queries = read_ndjson(out)
    assert report.queries == len(queries) == 11 + 10 + 11
    assert queries["conv-1:q3:observations"]["relevant"] == {
        observation("conv-1", 1, "Ana", 1): 1, observation("conv-1", 2, "Ana", 1): 1}
    assert queries["conv-1:q3:observations"]["filter"] == {"project": "conv-1",
                                                           "memory_type": "observation"}
    assert queries["conv-1:q3:observations"]["tags"] == ["multi-hop", "observations"]
    assert queries["conv-1:q3:summaries"]["relevant"] == {summary("conv-1", 1): 1,
                                                          summary("conv-1", 2): 1}
    assert queries["conv-1:q1:summaries"]["relevant"] == {summary("conv-1", 1): 1}


def test_a_second_import_adds_nothing(store: MemoryStore, tmp_path: Path) -> None:
    first = import_file(store, LOCOMO, options=ALL_UNITS, queries_out=tmp_path / "1.ndjson")
    assert len(first.inserted) == 25 and first.edges_added == 8
    versions, count = store.table_versions(), store.count(ALL)
    again = import_file(store, LOCOMO, options=ALL_UNITS, queries_out=tmp_path / "2.ndjson")
    assert again.inserted == () and again.updated == () and len(again.unchanged) == 25
    assert again.edges_added == 0 and again.edges_skipped == 8
    assert store.table_versions() == versions and store.count(ALL) == count
    assert (tmp_path / "1.ndjson").read_bytes() == (tmp_path / "2.ndjson").read_bytes()


def test_awkward_turns_are_reported(store: MemoryStore, tmp_path: Path) -> None:
    samples = json.loads(LOCOMO.read_text())
    session = samples[1]["conversation"]["session_1"]
    session[1]["dia_id"] = "D1:1"  # a repeated id: the first turn keeps it
    session[2]["text"] = " "  # no text and no photo
    samples[1]["qa"][2]["evidence"] = ["D1:3"]
    path = tmp_path / "awkward.json"
    path.write_text(json.dumps(samples))
    report = import_file(store, path, options=ReadOptions(project="conv-2"))
    assert len(report.inserted) == 3
    assert report.skipped == {
        "dialog turn repeats a dia_id (the first kept)": {
            "count": 1, "examples": ["sample conv-2 D1:1 (session_1 turn 2)"]},
        "dialog turn without text": {"count": 1, "examples": ["sample conv-2 D1:3"]},
        "evidence names a turn without text": {"count": 1, "examples": ["sample conv-2 q3: D1:3"]},
        "question has no evidence turn: not written as a query": {
            "count": 1, "examples": ["sample conv-2 q3"]},
    }
    assert store.get(turn("conv-2", "D1:1")).content.startswith("Cleo: Big news")


def test_dry_run_writes_nothing(store: MemoryStore, tmp_path: Path) -> None:
    versions = store.table_versions()
    out = tmp_path / "q.ndjson"
    report = import_file(store, LOCOMO, dry_run=True, queries_out=out)
    assert report.dry_run and len(report.inserted) == 12 and report.existing == ()
    assert report.queries == 11 and report.pending == 12
    assert store.table_versions() == versions and store.count(ALL) == 0
    assert not out.exists()


def test_limit_and_project_pick_samples(store: MemoryStore, tmp_path: Path) -> None:
    out = tmp_path / "q.ndjson"
    report = import_file(store, LOCOMO, options=ReadOptions(limit=1), queries_out=out)
    assert len(report.inserted) == 7 and report.queries == 7
    assert all(qid.startswith("conv-1:") for qid in read_ndjson(out))
    report = import_file(store, LOCOMO, options=ReadOptions(project="conv-2"))
    assert len(report.inserted) == 5 and store.count(Filter(project="conv-2")) == 5
    with pytest.raises(ExportFormatError, match="holds no sample 'conv-9'"):
        import_file(store, LOCOMO, options=ReadOptions(project="conv-9"))


def test_auto_picks_locomo(store: MemoryStore, tmp_path: Path) -> None:
    assert detect_reader(LOCOMO).name == "locomo"
    # the sniff reads only the head: sample_id may come last, as in locomo10.json
    big = tmp_path / "big.json"
    samples = json.loads(LOCOMO.read_text())
    samples[0]["qa"] = samples[0]["qa"] * 200
    big.write_text(json.dumps(samples, indent=4))
    assert big.stat().st_size > 50_000
    assert detect_reader(big).name == "locomo"
    assert import_file(store, LOCOMO).format == "locomo"


def _edit(change: Callable[[list[Any]], None]) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        samples = json.loads(LOCOMO.read_text())
        change(samples)
        path = folder / "broken.json"
        path.write_text(json.dumps(samples, indent=4))
        return path
    return write


def _truncated(folder: Path) -> Path:
    path = folder / "broken.json"
    text = LOCOMO.read_text()
    path.write_text(text[: len(text) * 3 // 4])
    return path


def _binary(folder: Path) -> Path:
    path = folder / "broken.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    return path


def _object(folder: Path) -> Path:
    path = folder / "broken.json"
    path.write_text('{"sample_id": "conv-1", "conversation": {}}')
    return path


def _set(path: str, value: Any) -> Callable[[list[Any]], None]:
    """Set `value` at a `/`-separated path into the samples ("1/qa/2/category")."""
    def change(samples: list[Any]) -> None:
        keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split("/")]
        target: Any = samples
        for key in keys[:-1]:
            target = target[key]
        if value is DELETE:
            del target[keys[-1]]
        else:
            target[keys[-1]] = copy.deepcopy(value)
    return change


DELETE = object()
BROKEN = {
    "truncated JSON": (_truncated, r"invalid JSON at line \d+ .*the file may be truncated"),
    "binary file": (_binary, "is a binary file"),
    "not an array": (_object, "is not a JSON array of LoCoMo samples"),
    "qa not a list": (_edit(_set("1/qa", {"question": "?"})),
                      r"sample 'conv-2' \(item 2\): 'qa' must be list, got dict"),
    "turn without text": (_edit(_set("1/conversation/session_1/1/text", DELETE)),
                          r"sample 'conv-2' \(item 2\): conversation.session_1\[2\]: the "
                          r"record has no 'text'"),
    "category out of range": (_edit(_set("1/qa/2/category", 7)),
                              r"sample 'conv-2' \(item 2\): qa\[3\]: category 7 is not 1-5"),
    "category not a number": (_edit(_set("1/qa/0/category", "2")),
                              r"qa\[1\]: 'category' must be int, got str"),
    "no sample_id": (_edit(_set("1/sample_id", DELETE)),
                     r"item 2: the record has no 'sample_id'"),
    "conversation not an object": (_edit(_set("1/conversation", [])),
                                   r"'conversation' must be dict, got list"),
    "unreadable date": (_edit(_set("1/conversation/session_2_date_time", "last Tuesday")),
                        r"conversation.session_2_date_time 'last Tuesday' is not a date time"),
    "session without a date": (_edit(_set("1/conversation/session_2_date_time", DELETE)),
                               r"has session_2 but no session_2_date_time"),
    "evidence not text": (_edit(_set("1/qa/0/evidence", [3])),
                          r"qa\[1\]: evidence items must be dia_id text, got 3"),
    "dia_id not a dialog id": (_edit(_set("1/conversation/session_1/1/dia_id", "first")),
                               r"session_1\[2\]: dia_id 'first' is not one 'D<session>:<turn>'"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_inputs_name_the_problem_and_write_nothing(case: str, store: MemoryStore,
                                                          tmp_path: Path) -> None:
    import_file(store, LOCOMO, options=ReadOptions(limit=1))
    versions, count = store.table_versions(), store.count(ALL)
    make, message = BROKEN[case]
    path = make(tmp_path)
    with pytest.raises(ExportFormatError, match=message):
        import_file(store, path, format="locomo", queries_out=tmp_path / "q.ndjson")
    assert store.table_versions() == versions and store.count(ALL) == count
    assert not (tmp_path / "q.ndjson").exists()


@pytest.mark.parametrize("params, message", [
    ({"units": "turns,dialogs"}, "--param units='turns,dialogs': use a comma list of turns"),
    ({"answers": "maybe"}, "--param answers='maybe' is not allowed; use one of: omit, include"),
    ({"scope": "shared"}, "the locomo format has no --param scope"),
])
def test_bad_params_are_refused(params: dict[str, str], message: str,
                                store: MemoryStore) -> None:
    with pytest.raises(ExportFormatError, match=message):
        import_file(store, LOCOMO, options=ReadOptions(params=params))


@pytest.mark.model
def test_cli_import_writes_the_query_set(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    store, out = str(tmp_path / "s"), tmp_path / "q.ndjson"
    code, text, err = run_cli(["--store", store, "import", "--format", "locomo", str(LOCOMO),
                               "--queries-out", str(out)], capsys)
    assert code == 0, err
    assert "format: locomo; mode merge" in text
    assert "memories: 12 imported, 0 updated, 0 unchanged" in text
    assert ("2 evidence names a turn that does not exist (e.g. sample conv-1 q6: D2:9, "
            "sample conv-1 q7: D5:1)") in text
    assert ("2 question has no evidence turn: not written as a query (e.g. sample conv-1 q6, "
            "sample conv-1 q8)") in text
    assert f"queries: 11 written to {out}" in text
    assert len(read_ndjson(out)) == 11
