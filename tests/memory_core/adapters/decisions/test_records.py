"""The `decisions` adapter on its golden folder (data/decision_records/herd/decisions): herd's
front matter, superagents' bold fields, SpecKit's multi-record files with metadata
tables, adr-tools records; counts, fields, supersedes edges, statuses, idempotence, dry runs,
--limit/--project, sniffing, broken inputs that change nothing, and the CLI report."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_core.adapters.base import stable_id
from memory_core.adapters.decisions.fields import parse_date, parse_front_matter, status_of
from memory_core.adapters.decisions.markdown import split_records
from memory_core.adapters.decisions.records import DecisionRecordsAdapter
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader, first_line
from memory_core.model.errors import ExportFormatError, MemlensError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import run_cli

DATA = Path(__file__).parents[1] / "data" / "decision_records"
FOLDER = DATA / "herd" / "decisions"
BROKEN = DATA / "broken"
ALL = Filter(status=STATUSES)


def rid(key: str) -> str:
    return stable_id("decisions", key)


HDR31, HDR33, HDR34 = rid("HDR-31"), rid("HDR-33"), rid("HDR-34")
ADR1, ADR2, ADR4, ADR5, ADR6 = (rid(f"ADR-{n}") for n in (1, 2, 4, 5, 6))
#: Path order: adr/0001, adr/0006, adr/ADR-0002, adr/decision-record (4, 5), hdr/...
IMPORTED = (ADR1, ADR6, ADR2, ADR4, ADR5, HDR31, HDR33, HDR34)
SKIPPED = {
    "not a decision record (no status, number or Decision section)":
        {"count": 1, "examples": ["README.md"]},
    "section outside any decision record":
        {"count": 1, "examples": ["adr/decision-record.md line 63 (Session Decision Log)"]},
    "a template, not a decision record": {"count": 1, "examples": ["adr/template.md"]},
    "supersedes reference to a record not in the input":
        {"count": 1, "examples": ["hdr/0034-embedding-pipeline.md: Superseded by HDR-0099"]},
}


def test_golden_folder_imports_with_expected_counts(store: MemoryStore) -> None:
    report = import_file(store, FOLDER, format="decisions")
    assert report.format == "decisions" and report.mode == "merge"
    assert report.records == {"memory": 8, "edge": 3, "audit": 0}
    assert report.inserted == IMPORTED
    assert report.skipped == SKIPPED
    assert report.read == 8 + 3 + 4
    assert report.duplicates == {} and report.edges_added == 3
    assert store.count(ALL) == 8


def test_statuses_from_every_header_style(store: MemoryStore) -> None:
    import_file(store, FOLDER, format="decisions")
    statuses = {m.metadata["key"]: (m.status, m.metadata["status_raw"])
                for m in store.get_many(list(IMPORTED)).values()}
    assert statuses == {
        "ADR-0001": ("superseded", "Superseded by [6. Keep decisions beside the code they "
                                   "govern](0006-keep-decisions-beside-code.md)"),  # ## Status
        "ADR-0006": ("active", "Accepted"),
        "ADR-0002": ("superseded", "Superseded by ADR-004"),  # **Status:** line
        "ADR-004": ("active", "Accepted"),  # | **Status** | table
        "ADR-005": ("archived", "Rejected"),
        "HDR-0031": ("superseded", "superseded"),  # front matter
        "HDR-0033": ("active", "accepted"),
        "HDR-0034": ("active", "proposed"),
    }


def test_fields_of_a_front_matter_record(store: MemoryStore) -> None:
    import_file(store, FOLDER, format="decisions")
    hdr = store.get(HDR33)
    assert hdr.content == (
        "HDR-0033: LanceDB Semantic Memory Architecture\n\nLanceDB stores agent-queryable "
        "memory as a single `memories` table with metadata filters. Markdown files remain "
        "the human-readable system of record.")
    assert hdr.memory_type == "decision_context" and hdr.source == "import:decisions"
    assert hdr.agent == "Faust" and hdr.project == "herd"  # decisions/ is generic: its parent
    assert hdr.why == "AX is a first-class concern (HDR-0029)."
    assert hdr.created_at == datetime(2026, 2, 15, tzinfo=UTC) == hdr.updated_at
    meta = hdr.metadata
    assert meta["path"] == "hdr/0033-semantic-memory.md" and meta["number"] == 33
    assert meta["deciders"] == ["Faust"] and meta["supersedes"] == ["HDR-0031"]
    assert meta["fields"]["principle"] == "AX is a first-class concern (HDR-0029)"
    assert meta["fields"]["superseded-by"] is None and meta["date_source"] == "date"
    assert meta["text"] == (FOLDER / "hdr" / "0033-semantic-memory.md").read_text()
    assert store.get(HDR31).tags == ("storage", "sqlite")
    draft = store.get(HDR34)
    assert draft.project == "herd-mcp" and draft.tags == ("embeddings", "local-first")
    assert draft.created_at == datetime(2026, 2, 20, 10, 0, tzinfo=UTC)
    assert draft.agent is None and draft.metadata["deciders"] == ["Faust", "Steve"]
    assert draft.content.endswith("\n\nEmbed locally with all-MiniLM-L6-v2 (int8 ONNX), "
                                  "batch size 32.")  # **Summary**: label dropped
    assert draft.metadata["fields"]["summary"] == ("Embed locally with a small ONNX model; "
                                                   "fall back to BM25 when the model is "
                                                   "missing.")


def test_fields_of_bold_table_and_adr_tools_records(store: MemoryStore) -> None:
    import_file(store, FOLDER, format="decisions")
    bold = store.get(ADR2)
    assert bold.content == ("ADR-0002: Memory Export Schema Versioning\n\nEmbed a schema "
                            "version header in every export file. Require explicit migration "
                            "steps between versions.")
    assert bold.created_at == datetime(2026, 2, 20, tzinfo=UTC)  # "February 20, 2026"
    assert bold.metadata["deciders"] == ["Yao", "Rem", "Kani"]
    assert bold.metadata["authors"] == ["Kani"] and bold.agent is None
    table = store.get(ADR4)
    assert table.metadata["document_title"] == "Decision Record: Harness Memory Exports"
    assert table.metadata["line"] == 8 and table.metadata["path"] == "adr/decision-record.md"
    assert table.metadata["text"].startswith("## ADR-004: Export Manifest With Checksums\n")
    assert "## ADR-005" not in table.metadata["text"]
    assert table.metadata["fields"] == {"Status": "Accepted", "Date": "2026-03-02",
                                        "Deciders": "Yao, Rem", "Supersedes": "ADR-0002"}
    tools = store.get(ADR1)
    assert tools.content == ("ADR-0001: Record architecture decisions\n\nWe will use "
                             "Architecture Decision Records, as described by Michael Nygard.")
    assert tools.created_at == datetime(2026, 1, 5, tzinfo=UTC)


def test_supersedes_edges_point_from_the_newer_record(store: MemoryStore) -> None:
    import_file(store, FOLDER, format="decisions")
    edges = {(e.source_id, e.target_id): e for e in store.edges.list()}
    assert set(edges) == {(HDR33, HDR31), (ADR6, ADR1), (ADR4, ADR2)}
    assert {e.relation for e in edges.values()} == {"supersedes"}
    # declared on both sides, in two styles (adr-tools link, `Supersedes: ADR-001`): one edge
    assert edges[(ADR6, ADR1)].evidence == (
        "adr/0001-record-architecture-decisions.md: Superseded by [6. Keep decisions beside "
        "the code they govern](0006-keep-decisions-beside-code.md)",
        "adr/0006-keep-decisions-beside-code.md: Supersedes ADR-001")
    assert edges[(HDR33, HDR31)].created_at == datetime(2026, 2, 15, tzinfo=UTC)
    assert edges[(ADR4, ADR2)].metadata == {"newer": "ADR-004", "older": "ADR-0002"}


def test_a_second_import_adds_nothing(store: MemoryStore) -> None:
    import_file(store, FOLDER, format="decisions")
    versions = store.table_versions()
    again = import_file(store, FOLDER)
    assert again.inserted == () and again.updated == () and again.unchanged == IMPORTED
    assert again.edges_added == 0 and again.edges_skipped == 3
    assert store.table_versions() == versions
    assert store.count(ALL) == 8 and len(store.edges.list()) == 3


def test_dry_run_reports_and_writes_nothing(store: MemoryStore) -> None:
    versions = store.table_versions()
    report = import_file(store, FOLDER, format="decisions", dry_run=True)
    assert report.dry_run and report.inserted == IMPORTED and report.existing == ()
    assert report.edges_added == 3 and report.pending == 8 and report.skipped == SKIPPED
    assert store.table_versions() == versions and store.count(ALL) == 0


def test_limit_takes_the_first_records_in_path_order(store: MemoryStore) -> None:
    report = import_file(store, FOLDER, options=ReadOptions(limit=3))
    assert report.inserted == (ADR1, ADR6, ADR2) and report.edges_added == 1
    assert report.skipped["supersedes reference to a record left out by --limit"] == {
        "count": 1, "examples": ["adr/ADR-0002-export-versioning.md: Superseded by ADR-004"]}


def test_project_option_and_param(store: MemoryStore) -> None:
    report = import_file(store, FOLDER, options=ReadOptions(project="herd"), dry_run=True)
    assert HDR34 not in report.inserted and len(report.inserted) == 7
    assert report.skipped["another project than --project"] == {
        "count": 1, "examples": ["hdr/0034-embedding-pipeline.md"]}
    import_file(store, FOLDER, options=ReadOptions(params={"project": "atlas"}))
    projects = {m.project for m in store.get_many(list(IMPORTED)).values()}
    assert projects == {"atlas", "herd-mcp"}  # a record's own project field wins
    with pytest.raises(ExportFormatError, match="has no --param model; it takes project"):
        import_file(store, FOLDER, options=ReadOptions(params={"model": "x"}))
    with pytest.raises(ExportFormatError, match="decisions format does not take --table"):
        import_file(store, FOLDER, format="decisions", options=ReadOptions(table="t"))


@pytest.mark.parametrize(("name", "message"), [
    ("binary.md", r"binary.md is a binary file, not a markdown decision record"),
    ("latin1.md", r"latin1.md: line 1 is not UTF-8 text \(byte 13\)"),
    ("truncated-front-matter.md",
     r"truncated-front-matter.md: the front matter opened on line 1 is never closed"),
    ("status-list.md", r"status-list.md: status must be text, got list \['accepted', "),
    ("missing-title.md", r"missing-title.md: the decision record has no title"),
    ("bad-date.md", r"bad-date.md: date 'next sprint' is not a date this reader understands"),
    ("nothing-here.md", r"there is nothing at .*nothing-here.md"),
])
def test_broken_inputs_name_the_problem_and_change_nothing(store: MemoryStore, name: str,
                                                           message: str) -> None:
    import_file(store, FOLDER / "hdr", format="decisions")
    versions = store.table_versions()
    with pytest.raises(MemlensError, match=message):
        import_file(store, BROKEN / name, format="decisions")
    assert store.table_versions() == versions


def test_one_broken_file_in_a_folder_stops_the_whole_import(store: MemoryStore,
                                                            tmp_path: Path) -> None:
    folder = shutil.copytree(FOLDER, tmp_path / "decisions")
    shutil.copy(BROKEN / "bad-date.md", folder / "adr" / "0012-nightly-composites.md")
    versions = store.table_versions()
    with pytest.raises(ExportFormatError, match=r"0012-nightly-composites.md: date 'next "):
        import_file(store, folder)
    assert store.table_versions() == versions and store.count(ALL) == 0
    with pytest.raises(ExportFormatError, match=r"there is nothing at .*missing"):
        import_file(store, tmp_path / "missing", format="decisions")
    with pytest.raises(ExportFormatError, match=r"there is no file or folder at .*missing"):
        DecisionRecordsAdapter().open(tmp_path / "missing")


def test_auto_format_recognises_folders_and_records_only() -> None:
    assert detect_reader(FOLDER).name == "decisions"
    assert detect_reader(FOLDER / "hdr" / "0031-storage-engine.md").name == "decisions"
    adapter = DecisionRecordsAdapter()
    assert not adapter.sniff(FOLDER / "README.md", first_line(FOLDER / "README.md"))
    others = [p for p in (DATA.parent).rglob("*") if p.is_file() and DATA not in p.parents]
    others += list((Path(__file__).parents[2] / "exchange" / "data").glob("*.ndjson"))
    assert others
    for path in others:
        assert not adapter.sniff(path, first_line(path)), path
    assert not adapter.sniff(DATA.parent / "hades", "")


def test_dates_fall_back_to_the_param_then_the_file_time(store: MemoryStore,
                                                         tmp_path: Path) -> None:
    record = tmp_path / "adr" / "0007-use-uv.md"
    record.parent.mkdir()
    record.write_text("# 7. Use uv\n\n## Status\n\nAccepted\n\n## Decision\n\nWe use uv.\n")
    os.utime(record, (1_767_225_600, 1_767_225_600))  # 2026-01-01T00:00:00Z
    source = DecisionRecordsAdapter().open(record.parent)
    [doc] = [r.doc for r in source.records()]
    assert doc["created_at"] == "2026-01-01T00:00:00Z"
    assert doc["metadata"]["date_source"] == "file mtime" and doc["project"] == tmp_path.name
    options = ReadOptions(params={"default_date": "2025-12-24"})
    [doc] = [r.doc for r in DecisionRecordsAdapter().open(record, options).records()]
    assert doc["created_at"] == "2025-12-24T00:00:00Z"
    assert doc["metadata"]["date_source"] == "param default_date"
    assert doc["id"] == rid("ADR-7") and doc["content"] == "ADR-0007: Use uv\n\nWe use uv."


def test_a_number_used_in_two_files_gets_ids_from_the_paths(tmp_path: Path) -> None:
    for spec in ("001-search", "002-decay"):
        (tmp_path / spec).mkdir()
        (tmp_path / spec / "decision-record.md").write_text(
            "# Decision Record\n\n## ADR-001: Retrieval\n\n| **Status** | Accepted |\n"
            f"| **Date** | 2026-02-01 |\n\n### Decision\n\nChoose {spec}.\n\n"
            "## ADR-002: Follow-up\n\n| **Status** | Proposed |\n| **Date** | 2026-02-02 |\n"
            "| **Supersedes** | ADR-001 |\n")
    source = DecisionRecordsAdapter().open(tmp_path)
    records = list(source.records())
    ids = {r.doc["id"] for r in records if r.kind == "memory"}
    assert stable_id("decisions", "001-search/decision-record.md", "ADR-1") in ids
    assert len(ids) == 4 and source.skips.total == 0
    edges = [(r.doc["source_id"], r.doc["target_id"]) for r in records if r.kind == "edge"]
    assert edges == [(stable_id("decisions", f"{s}/decision-record.md", "ADR-2"),
                      stable_id("decisions", f"{s}/decision-record.md", "ADR-1"))
                     for s in ("001-search", "002-decay")]  # resolved within the same file


def test_folders_without_records(store: MemoryStore, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Status: not markdown\n")
    with pytest.raises(ExportFormatError, match="holds no .md files"):
        import_file(store, tmp_path, format="decisions")
    (tmp_path / "README.md").write_text("# Notes\n\nNothing decided here.\n")
    (tmp_path / "empty.md").write_text("")
    report = import_file(store, tmp_path, format="decisions")
    assert report.records == {"memory": 0, "edge": 0, "audit": 0}
    assert set(report.skipped) == {"empty file", "not a decision record (no status, number "
                                                 "or Decision section)"}


LINES = st.sampled_from(["---", "status: accepted", "status:", "  - x", "# ADR-001: T",
                         "## ADR-002: U", "## Decision", "| **Status** | Rejected |",
                         "**Date:** 2026-01-01", "```", "<!--", "-->", "Superseded by 3",
                         "", "text", "title: T", "## Status", "a: [b, 'c", "key: |"])


@given(st.lists(LINES | st.text(max_size=20), max_size=25))
def test_any_text_parses_or_names_the_problem(lines: list[str]) -> None:
    try:
        records, _ = split_records("\n".join(lines), "f.md")
    except ExportFormatError as exc:
        assert str(exc).startswith("f.md")
    else:
        assert all(r.text.endswith("\n") for r in records)


def test_front_matter_subset() -> None:
    lines = ["---", "status: 'accepted'  ", "deciders: [Faust, \"Steve, Jr\"]", "tags:",
             "- a", "- 'b c'", "count: 3", "superseded-by: ~", "# a comment", "notes: |",
             "  line one", "  line two", "owner:", "  name: Faust", "  team: core", "---",
             "# Title"]
    fields, body = parse_front_matter(lines, "f.md")
    assert body == 16
    assert fields == {"status": "accepted", "deciders": ["Faust", "Steve, Jr"],
                      "tags": ["a", "b c"], "count": 3, "superseded-by": None,
                      "notes": "line one\nline two", "owner": {"name": "Faust", "team": "core"}}
    with pytest.raises(ExportFormatError, match=r"f.md: front matter line 3: 'just text' is "
                                                r"not `key: value`"):
        parse_front_matter(["---", "a: 1", "just text", "---"], "f.md")
    with pytest.raises(ExportFormatError, match=r"line 3: the key 'a' appears twice"):
        parse_front_matter(["---", "a: 1", "a: 2", "---"], "f.md")


@pytest.mark.parametrize("text", [
    "2024-03-05", "2024-03-05T00:00Z", "2024/03/05", "March 5, 2024", "Mar 5 2024",
    "5 March 2024", "Tue, 5th March 2024", "2024-03-05 (amended 2024-04-01)",
])
def test_date_formats(text: str) -> None:
    assert parse_date(text, "f.md") == datetime(2024, 3, 5, tzinfo=UTC)


def test_dates_with_times_zones_and_errors() -> None:
    assert parse_date("2024-03-05T10:00+02:00", "f.md") == datetime(2024, 3, 5, 8,
                                                                    tzinfo=UTC)
    for bad in ("03/05/2024", "next sprint", "February 30, 2024"):
        with pytest.raises(ExportFormatError, match="write it as 2024-03-05"):
            parse_date(bad, "f.md")
    with pytest.raises(ExportFormatError, match="date must be a date, got int 2024"):
        parse_date(2024, "f.md")


@pytest.mark.parametrize(("raw", "status"), [
    ("Accepted", "active"), ("Proposed", "active"), ("Draft", "active"),
    ("Deprecated", "archived"), ("Rejected", "archived"), ("Superseded", "superseded"),
    ("Accepted, superseded by ADR-9", "superseded"), ("✅ approved", "active"),
])
def test_status_words(raw: str, status: str) -> None:
    assert status_of(raw, "f.md", None) == status


def test_unknown_status_is_an_error_unless_a_param_says(store: MemoryStore,
                                                        tmp_path: Path) -> None:
    (tmp_path / "0001-x.md").write_text("# ADR-0001: X\n\nStatus: Amended\nDate: 2026-01-01\n")
    with pytest.raises(ExportFormatError, match=r"0001-x.md: status 'Amended' is not a "
                                                r"decision status.*unknown_status=active"):
        import_file(store, tmp_path, format="decisions")
    report = import_file(store, tmp_path, options=ReadOptions(
        params={"unknown_status": "archived"}))
    assert store.get(report.inserted[0]).status == "archived"


@pytest.mark.model
def test_cli_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    code, out, err = run_cli(["--store", store, "import", str(FOLDER)], capsys)
    assert code == 0, err
    assert out.splitlines() == [
        "format: decisions (--format auto chose it); mode merge",
        f"read 15 records from {FOLDER} (decisions schema_version 1): 8 memory, 3 edge, "
        f"0 audit",
        "memories: 8 imported, 0 updated, 0 unchanged; 0 vectors kept, 8 embedded, 0 pending",
        "edges: 3 created, 0 already there; audit rows: 0 added",
        "duplicates by content_hash: 0",
        "skipped: 4",
        "  1 not a decision record (no status, number or Decision section) (e.g. README.md)",
        "  1 section outside any decision record (e.g. adr/decision-record.md line 63 "
        "(Session Decision Log))",
        "  1 a template, not a decision record (e.g. adr/template.md)",
        "  1 supersedes reference to a record not in the input (e.g. "
        "hdr/0034-embedding-pipeline.md: Superseded by HDR-0099)",
    ]
    code, out, _ = run_cli(["--store", store, "import", str(FOLDER), "--dry-run"], capsys)
    assert code == 0 and "0 would be new, 8 already in the tenant" in out
    assert "edges: 0 would be created, 3 already there" in out
