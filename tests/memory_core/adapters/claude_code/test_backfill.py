"""Backfilling long Claude Code sessions (`data/claude_code/backfill`, written by
`make_backfill.py`): compaction summaries and their sections become memories, the work after
a compaction continues its request, long requests come out in parts, and re-importing
changes nothing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memory_core import lineage
from memory_core.adapters.base import stable_id
from memory_core.adapters.claude_code.adapter import discover, read_session
from memory_core.adapters.claude_code.parse import SKIP_COMPACT, SKIP_ORPHAN
from memory_core.adapters.claude_code.parts import split_parts
from memory_core.exchange.import_report import ImportReport
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).parents[1] / "data" / "claude_code" / "backfill"
FOLDER = ROOT / "-home-sam-code-fxledger"
LONG = "3f6c1d2a-9b4e-4c7d-8a15-6e2f0b9c4d11"
NEXT = "8a41e07b-2c5d-4f19-b3a6-0d7e9c1f5a22"
#: Requests of the long session and its compactions (line 74 during R1, 129 during R2).
R1, R2, R3 = ("814630b2-a489-5791-a441-4297796e6212", "c7842e9b-12fc-5b98-8424-55defb2ff140",
              "94074466-4f3c-5b21-9d05-a7a37ddbc6ab")
C1, C2 = "eae57359-1d8c-5a56-bbe2-0a4da18baad0", "d83580bc-712f-5570-ad8e-5716e870d3f2"
SUB = "0e854389-8c62-5b94-9d0d-e0d5e69676c6"
#: The next day's session opens with a compaction (bold headings); a manual /compact with a
#: summary in plain prose comes before its one request.
N1, N2 = "e27a5890-00e7-5fc9-ae62-10f6a6895cb1", "b5b2fce3-3645-5fa8-bcfa-5c632c02bd73"
PR = "085d367d-7f8a-5aea-aac3-83aea193e65f"

SKIP_REPEATED = "lesson, decision or pending task repeated from an earlier compaction summary"
SKIP_UNSURE = ("compaction summary without recognised section headings (kept whole as one "
               "session_summary, no lessons, decisions or pending tasks taken from it)")


def mid(session: str, key: str) -> str:
    return stable_id("claude_code", session, key)


def part(session: str, request: str, n: int) -> str:
    return mid(session, f"thread {request}" + ("" if n == 1 else f" part {n}"))


def edges_of(store: MemoryStore) -> set[tuple[str, str, str]]:
    return {(e.relation, e.source_id, e.target_id) for e in store.edges.list()}


Imported = tuple[MemoryStore, ImportReport]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Imported:
    """The fixture imported once into a fresh store (the tests below only read it)."""
    store = MemoryStore.open(str(tmp_path_factory.mktemp("backfill") / "store"),
                             embedder=FakeEmbedder(), tenant="default")
    return store, import_file(store, ROOT)


def test_a_backfill_produces_summaries_lessons_decisions_and_threads(imported: Imported) -> None:
    store, report = imported
    memories = store.list(limit=None)
    assert Counter(m.memory_type for m in memories) == {
        "thread": 17, "session_summary": 6, "lesson": 6, "decision": 3}
    assert sum("pending" in m.tags for m in memories) == 3
    assert sum("compaction" in m.tags for m in memories) == 4
    # edges, counted by hand: the long session 36 = 1 (part 1 of R1 -> its subagent's thread)
    # + first compaction 5 relates_to + 7 derived_from + second 1 + 5 + 4 + the session
    # summary 11 + 2; the next session 9 = its compactions 2 + 2, its summary 3 + 2
    assert report.records == {"memory": 32, "edge": 45, "audit": 0}
    assert report.duplicates == {}
    assert report.notes == ("the deterministic extractor produced 14 thread, 6 lesson, "
                            "4 compaction summary, 3 decision, 3 pending task, "
                            "2 session_summary",)
    skipped = {reason: s["count"] for reason, s in report.skipped.items()}
    assert SKIP_ORPHAN not in skipped
    assert skipped[SKIP_REPEATED] == 2 and skipped[SKIP_UNSURE] == 1
    assert skipped["meta line (isMeta: caveats and injected context)"] == 2
    assert skipped["interruption marker ([Request interrupted by user])"] == 1


def _assistant_texts(path: Path) -> set[str]:
    """The uuids of the assistant lines of `path` that hold text, read straight from JSON."""
    found = set()
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        if line.get("type") != "assistant":
            continue
        content = line["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if any(b["type"] == "text" and b["text"].strip() for b in blocks):
            found.add(line["uuid"])
    return found


def test_no_assistant_text_is_left_out() -> None:
    """Every assistant text line, before and after each compaction, lands in a part."""
    sessions, _ = discover(ROOT)
    for files in sessions:
        session = read_session(files, lambda reason, where: None)
        for transcript, path in zip(session.transcripts, (files.main, *files.subagents),
                                    strict=True):
            kept = {step.uuid for exchange in transcript.exchanges
                    for p in split_parts(exchange) for step in p.steps if step.kind == "text"}
            assert kept == _assistant_texts(path), path
            assert kept


def test_a_compaction_summary_and_its_sections(imported: Imported) -> None:
    store, _ = imported
    summary = store.get(mid(LONG, f"compaction {C1}"))
    assert (summary.memory_type, summary.tags, summary.project, summary.session_id) == (
        "session_summary", ("compaction",), "fxledger", LONG)
    assert summary.content.startswith(
        "Compaction summary 1 of a Claude Code session in fxledger on branch "
        "feat/multi-currency, 2025-11-18 09:01–10:49 UTC (107 min):\n\n"
        "1. Primary Request and Intent:\n   The user asked to add multi-currency support")
    assert summary.content.endswith("run the tests and commit.")
    for left_out in ("This session is being continued", "chronologically analyze",
                     "Please continue the conversation"):
        assert left_out not in summary.content
    assert summary.created_at.isoformat() == "2025-11-18T10:49:31.158000+00:00"
    meta = summary.metadata
    assert (meta["trigger"], meta["pre_tokens"], meta["compaction"], meta["line"]) == (
        "auto", 157311, 1, 74)
    assert (meta["lessons"], meta["decisions"], meta["pending"]) == (3, 2, 2)
    assert meta["request_uuid"] == R1 and meta["started_at"] == "2025-11-18T09:01:40.278000Z"
    assert meta["sections"] == ["Primary Request and Intent", "Key Technical Concepts",
                                "Files and Code Sections", "Errors and fixes",
                                "Problem Solving", "All user messages", "Pending Tasks",
                                "Current Work", "Optional Next Step"]

    cent = store.get(mid(LONG, f"lesson {C1} 1"))
    assert cent.memory_type == "lesson" and cent.content == (
        "Converted totals off by one cent: `test_report_totals_in_base_currency` expected "
        "1234.57 and got 1234.56, because amounts were converted as floats and summed before "
        "rounding.\nFix: convert with `Decimal`, quantize each converted amount to 0.01 with "
        "ROUND_HALF_EVEN, then sum.")
    assert cent.metadata["has_fix"] is True and cent.created_at == summary.created_at
    assert store.get(mid(LONG, f"lesson {C1} 2")).content.endswith(
        "Fix: declare the column with `DEFAULT 'EUR'`; every existing row is in euros.\n"
        "Found by `test_migrations_apply_to_v6_fixture`, not by the user.")
    assert store.get(mid(LONG, f"decision {C1} 2")).content == (
        "Decided to convert each transaction on its booking date rather than converting "
        "monthly totals at a month-end rate, so that reports match the bank statements.")
    retry = store.get(mid(LONG, f"pending {C1} 1"))
    assert (retry.memory_type, retry.tags, retry.content) == (
        "thread", ("pending",),
        "Pending task: Add retry with backoff to the ECB rate fetcher (`fxledger/fetch.py`).")


def test_a_second_compaction_carries_items_over_only_once(imported: Imported) -> None:
    store, _ = imported
    second = store.get(mid(LONG, f"compaction {C2}"))
    assert "## 1. Primary Request and Intent" in second.content
    assert (second.metadata["lessons"], second.metadata["decisions"],
            second.metadata["pending"]) == (2, 1, 1)
    # the one-cent lesson and the README task were already taken from the first summary
    assert store.get(mid(LONG, f"lesson {C2} 1")).content.startswith("Retry tests took 62 s")
    assert store.get(mid(LONG, f"lesson {C2} 2")).content.endswith(
        "Fix: write to a temporary file in the same directory, then `os.replace` it over "
        "`rates.json`.")
    assert store.get(mid(LONG, f"pending {C2} 1")).content.startswith(
        "Pending task: Add an `--offline` flag")
    with pytest.raises(KeyError):
        store.get(mid(LONG, f"lesson {C2} 3"))


def test_other_heading_styles_and_a_summary_without_headings(imported: Imported) -> None:
    store, _ = imported
    bold = store.get(mid(NEXT, f"compaction {N1}"))
    assert bold.content.startswith(
        "Compaction summary 1 of a Claude Code session in fxledger on branch "
        "feat/multi-currency, at the start of the transcript (2025-11-19 08:40 UTC):\n\n"
        "**Primary Request and Intent:**")
    assert store.get(mid(NEXT, f"lesson {N1} 1")).content == (
        "`test_report_offline_without_cache` failed with `FileNotFoundError` when no cache "
        "existed yet.\nFix: `load_rates` raises `MissingRateError(\"no cached rates yet; run "
        "once without --offline\")` instead.")
    prose = store.get(mid(NEXT, f"compaction {N2}"))  # kept whole, nothing taken from it
    assert prose.content.endswith("The user wants a pull request description next.")
    assert "sections" not in prose.metadata and prose.metadata["trigger"] == "manual"
    assert [m for m in store.list(limit=None)
            if m.metadata.get("compaction_uuid") == N2] == [prose]


def test_a_long_request_comes_out_in_parts_each_with_its_conclusion(imported: Imported) -> None:
    store, _ = imported
    parts = [store.get(part(LONG, R1, n)) for n in range(1, 7)]
    assert parts[0].content.startswith("User: Add multi-currency support to the ledger: store")
    assert parts[0].content.endswith(
        "Assistant (part 1 of 6): All 148 tests pass: totals are converted in Decimal and "
        "rounded per transaction, and the migration defaults old rows to EUR. Committing.")
    assert [p.metadata.get("boundary") for p in parts] == [
        "test run", "test run", "test run", "compaction", "test run", None]
    after = parts[4]
    assert after.content.startswith("Continuing request: Add multi-currency support")
    assert "\n\nAssistant (part 5 of 6, after a compaction): The retry tests pass, but in " \
           "62 s" in after.content
    assert after.metadata["after_compaction"] == C1 and after.metadata["request_uuid"] == R1
    assert after.created_at > store.get(mid(LONG, f"compaction {C1}")).created_at
    assert parts[5].content.split("Assistant (part 6 of 6): ")[1].startswith(
        "Multi-currency support is in, in four commits")
    assert parts[0].metadata["subagents"] == ["7c2e9f1"]
    assert all("subagents" not in p.metadata for p in parts[1:])

    interrupted = store.get(part(LONG, R2, 3))
    assert interrupted.metadata["interrupted"] is True
    assert interrupted.content.endswith(
        "Assistant (part 3 of 3, after a compaction): Found two leftover debug `print` calls "
        "in `fetch_daily_rates` (lines 48 and 61), from the stub run; the rest of the module "
        "is as committed.")
    assert store.get(part(LONG, R3, 1)).content.startswith(
        "User: Leave the prints, I'll take them out myself.")


def test_work_after_a_compaction_with_no_request_continues_the_summarised_one(
        imported: Imported) -> None:
    store, _ = imported
    first = store.get(part(NEXT, N1, 1))
    assert first.content.startswith(
        "Continuing request: Finish `feat/multi-currency`: add an `--offline` flag to "
        "`fxledger report` that skips the rate fetch")
    assert "\n\nAssistant (part 1 of 2, after a compaction): 164 passed." in first.content
    assert first.metadata["continuation"] is True and "request_uuid" not in first.metadata
    assert store.get(part(NEXT, N1, 2)).content.endswith("README.md documents `--base` and "
                                                         "`--offline`.")
    # the manual /compact between two requests opened no thread of its own
    with pytest.raises(KeyError):
        store.get(part(NEXT, N2, 1))
    assert store.get(part(NEXT, PR, 1)).content.startswith(
        "User: Write the PR description for feat/multi-currency.")
    summary = store.get(mid(NEXT, "session"))
    assert summary.content.splitlines()[1:4] == [
        "First request: Finish `feat/multi-currency`: add an `--offline` flag to `fxledger "
        "report` that skips the rate fetch and uses the cached rates, and document `--base` "
        "and `--offline` in README.md.",
        "2 exchanges in 3 threads.", "2 compactions, each kept as a summary of its own."]


def test_edges_show_where_each_memory_came_from(imported: Imported) -> None:
    store, _ = imported
    edges = edges_of(store)
    one, two = mid(LONG, f"compaction {C1}"), mid(LONG, f"compaction {C2}")
    taken = {(kind, n) for kind, n in [("lesson", 1), ("lesson", 2), ("lesson", 3),
                                       ("decision", 1), ("decision", 2), ("pending", 1),
                                       ("pending", 2)]}
    for kind, n in taken:
        assert ("derived_from", mid(LONG, f"{kind} {C1} {n}"), one) in edges
    assert ("derived_from", two, one) in edges  # the second summary had the first in context
    related = {target for relation, source, target in edges
               if relation == "relates_to" and source == one}
    # the first four parts led up to it, the fifth continued from it
    assert related == {part(LONG, R1, n) for n in range(1, 6)}
    assert {target for relation, source, target in edges
            if relation == "relates_to" and source == two} == {
        part(LONG, R1, 5), part(LONG, R1, 6), part(LONG, R2, 1), part(LONG, R2, 2),
        part(LONG, R2, 3)}
    session = mid(LONG, "session")
    assert {("relates_to", session, one), ("relates_to", session, two),
            ("derived_from", part(LONG, R1, 1), mid(LONG, f"thread {SUB}"))} <= edges
    assert {target for relation, source, target in edges
            if relation == "derived_from" and source == session} == {
        *(part(LONG, R1, n) for n in range(1, 7)), *(part(LONG, R2, n) for n in (1, 2, 3)),
        part(LONG, R3, 1), mid(LONG, f"thread {SUB}")}


def test_the_lineage_of_a_lesson_leads_to_the_summaries_it_came_from(
        imported: Imported) -> None:
    store, _ = imported
    found = lineage(store, mid(LONG, f"lesson {C2} 1"))
    assert [(a.memory_id, a.hops) for a in found.ancestors] == [
        (mid(LONG, f"compaction {C2}"), 1), (mid(LONG, f"compaction {C1}"), 2)]
    assert {d.memory_id for d in lineage(store, mid(LONG, f"compaction {C1}")).descendants
            } >= {mid(LONG, f"lesson {C1} 1"), mid(LONG, f"pending {C1} 2"),
                  mid(LONG, f"compaction {C2}"), mid(LONG, f"lesson {C2} 1")}


def test_reimporting_changes_nothing_and_ids_are_stable(store: MemoryStore) -> None:
    first = import_file(store, ROOT)
    versions = store.table_versions()
    again = import_file(store, ROOT)
    assert again.inserted == () and again.updated == () and len(again.unchanged) == 32
    assert again.edges_added == 0 and again.edges_skipped == 45
    assert store.table_versions() == versions and store.count() == 32
    assert set(first.inserted) == set(again.unchanged)
    assert mid(LONG, f"lesson {C1} 1") in first.inserted


def test_dry_run_writes_nothing(store: MemoryStore) -> None:
    versions = store.table_versions()
    report = import_file(store, ROOT, dry_run=True)
    assert report.dry_run and len(report.inserted) == 32 and report.edges_added == 45
    assert store.table_versions() == versions and store.count() == 0


@pytest.mark.parametrize("mode, types, skipped", [
    ("summary", {"thread": 14, "session_summary": 6}, {}),
    ("skip", {"thread": 14, "session_summary": 2}, {SKIP_COMPACT: 4}),
])
def test_compactions_param_keeps_summaries_alone_or_none(
        store: MemoryStore, mode: str, types: dict[str, int], skipped: dict[str, int]) -> None:
    report = import_file(store, ROOT, options=ReadOptions(params={"compactions": mode}))
    assert Counter(m.memory_type for m in store.list(limit=None)) == types
    reasons = {r: s["count"] for r, s in report.skipped.items()}
    assert {r: n for r, n in reasons.items() if r in (SKIP_COMPACT, SKIP_UNSURE)} == skipped
    assert SKIP_ORPHAN not in reasons  # the work after each compaction is kept either way
