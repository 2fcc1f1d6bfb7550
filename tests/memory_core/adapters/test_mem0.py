"""The `mem0` adapter: `get_all()` output as a list or `{"results", "relations"}`, with offset
timestamps, user ids as metadata or tenant, duplicates, empty memories and broken files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.adapters.mem0 import Mem0Adapter
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader, first_line
from memory_core.model.errors import ExportFormatError, MemlensError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

DATA = Path(__file__).parent / "data"
LISTING = DATA / "mem0" / "get_all.json"
RESULTS = DATA / "mem0" / "results.json"
ALL = Filter(status=STATUSES)
VEGETARIAN = "0b7c6a1e-3f6a-4d53-9a8e-5f2d1c7b9e10"
WINDOW = "5d1f2b8c-8e7a-4c0e-b6a4-2e9f0c3d7a11"
PAYMENTS = "9a3e4f70-1c2b-4d5e-8f90-a1b2c3d4e5f6"
AGAIN = "c4e8a2d6-7b3f-4e1a-9c5d-0f6e8b2a4c13"


def test_list_imports_with_utc_times_agents_runs_and_categories(store: MemoryStore) -> None:
    report = import_file(store, LISTING, format="mem0")
    assert report.format == "mem0" and report.mode == "merge"
    assert report.records == {"memory": 3, "edge": 0, "audit": 0}
    assert report.duplicates == {AGAIN: VEGETARIAN}  # same words, spacing aside
    assert report.skipped == {"empty memory": {"count": 1, "examples": ["item 5"]}}
    assert report.read == 5 and set(report.inserted) == {VEGETARIAN, WINDOW, PAYMENTS}

    food = store.get(VEGETARIAN)
    assert food.content == "Is vegetarian and avoids dairy" and food.memory_type == "fact"
    assert food.tags == ("food", "dietary restrictions") and food.source == "import:mem0"
    # -07:00 and +02:00 offsets become the UTC instants they name
    assert food.created_at.isoformat() == "2024-07-20T08:20:34.123456+00:00"
    assert food.updated_at.isoformat() == "2024-07-21T07:02:11.500000+00:00"
    assert food.metadata == {"source": "onboarding chat",
                             "mem0_hash": "6f73ff206c39d7398e9a2f53cf56da35", "user_id": "alice"}
    assert (food.agent, food.session_id) == (None, None)
    seat = store.get(WINDOW)
    assert (seat.agent, seat.session_id) == ("travel-assistant", "trip-2024-09")
    assert seat.created_at.isoformat() == "2024-08-02T13:15:00+00:00"
    assert seat.updated_at == seat.created_at
    work = store.get(PAYMENTS)
    assert work.tags == ()
    assert {k: v for k, v in work.metadata.items() if k != "mem0_hash"} == {
        "user_id": "bob", "actor_id": "bob", "role": "user", "immutable": False}


def test_results_document_skips_graph_relations(store: MemoryStore) -> None:
    report = import_file(store, RESULTS)
    assert report.format == "mem0"
    assert report.records == {"memory": 3, "edge": 0, "audit": 0}
    assert report.skipped == {"graph relation between entities, not memories": {
        "count": 2, "examples": ["relation 1 (carol -has_pet-> miso)",
                                 "relation 2 (carol -allergic_to-> peanuts)"]}}
    vim = store.get("1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d")
    assert vim.memory_type == "procedural_memory" and vim.session_id == "setup-session"
    peanuts = store.get("3f9d8c7b-6a5e-4d3c-2b1a-0f9e8d7c6b5a")
    assert peanuts.created_at.isoformat() == "2025-01-15T06:10:05.250000+00:00"
    assert peanuts.metadata["confidence"] == 0.9 and peanuts.tags == ("health",)


def test_a_second_import_adds_nothing(store: MemoryStore) -> None:
    import_file(store, LISTING)
    versions, count = store.table_versions(), store.count(ALL)
    again = import_file(store, LISTING)
    assert again.inserted == () and again.updated == () and len(again.unchanged) == 3
    assert again.duplicates == {AGAIN: VEGETARIAN}
    assert store.table_versions() == versions and store.count(ALL) == count


def test_dry_run_and_limit(store: MemoryStore) -> None:
    versions = store.table_versions()
    report = import_file(store, RESULTS, dry_run=True)
    assert report.dry_run and len(report.inserted) == 3 and report.pending == 3
    assert store.table_versions() == versions and store.count(ALL) == 0
    report = import_file(store, LISTING, options=ReadOptions(limit=2))
    assert set(report.inserted) == {VEGETARIAN, WINDOW} and report.skipped == {}


def test_user_id_as_tenant_imports_one_user(tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    alice = MemoryStore.open(str(tmp_path / "s"), embedder=fake_embedder, tenant="alice")
    params = {"user_id_as": "tenant"}
    report = import_file(alice, LISTING, options=ReadOptions(params=params))
    assert set(report.inserted) == {VEGETARIAN, WINDOW}
    assert report.skipped == {
        "user_id 'bob' is not the tenant 'alice' (user_id_as=tenant)":
            {"count": 1, "examples": ["item 3"]},
        "empty memory": {"count": 1, "examples": ["item 5"]},
    }
    assert "user_id" not in alice.get(VEGETARIAN).metadata
    with pytest.raises(ExportFormatError, match="give --tenant USER_ID"):
        Mem0Adapter().open(LISTING, ReadOptions(params={"user_id_as": "tenant"}))
    with pytest.raises(ExportFormatError, match="user_id_as=owner is not one of"):
        import_file(alice, LISTING, options=ReadOptions(params={"user_id_as": "owner"}))
    with pytest.raises(ExportFormatError, match="has no --param deleted"):
        import_file(alice, LISTING, options=ReadOptions(params={"deleted": "skip"}))


GOOD = {"id": "f0e1d2c3-b4a5-4968-8776-655443322110", "memory": "Likes jazz",
        "hash": "x", "created_at": "2024-07-20T01:20:34-07:00", "user_id": "alice"}


def _write(items: object):  # type: ignore[no-untyped-def]
    return lambda p: p.write_text(json.dumps(items), encoding="utf-8")


@pytest.mark.parametrize(("write", "message"), [
    (lambda p: p.write_text(LISTING.read_text(encoding="utf-8")[:400], encoding="utf-8"),
     r"broken.json: invalid JSON at line \d+, column \d+ .*truncated"),
    (lambda p: p.write_bytes(b"SQLite format 3\x00\x10\x00\x01\x01"), "is a binary file"),
    (_write([GOOD, {**GOOD, "id": "other", "memory": 3.5}]),
     r"broken.json: item 2: 'memory' must be str, got float 3.5"),
    (_write([{k: v for k, v in GOOD.items() if k != "memory"}]),
     r"broken.json: item 1: the record has no 'memory'"),
    (_write([{k: v for k, v in GOOD.items() if k != "id"}]), r"item 1: the record has no 'id'"),
    (_write([{**GOOD, "id": 17}]), r"item 1: 'id' must be str, got int 17"),
    (_write([{**GOOD, "metadata": "vip"}]), r"item 1: metadata must be a JSON object"),
    (_write([{**GOOD, "created_at": "last tuesday"}]),
     r"item 1: created_at 'last tuesday' is not an ISO-8601 time"),
    (_write([{**GOOD, "categories": [1, 2]}]), r"item 1: categories must be a list of text"),
    (_write({"results": {"0": GOOD}}), r"a JSON array of memories or an object with"),
    (_write({"results": [GOOD], "relations": {"a": 1}}), r"'relations' must be a JSON array"),
    (_write([GOOD, "Likes jazz"]), r"broken.json: item 2 is not a JSON object"),
])
def test_broken_inputs_name_the_problem_and_change_nothing(
        store: MemoryStore, tmp_path: Path, write, message: str) -> None:  # type: ignore[no-untyped-def]
    import_file(store, RESULTS)
    versions = store.table_versions()
    path = tmp_path / "broken.json"
    write(path)
    with pytest.raises(MemlensError, match=message):
        import_file(store, path, format="mem0")
    assert store.table_versions() == versions


def test_auto_format_recognises_mem0_files_only(tmp_path: Path) -> None:
    assert detect_reader(LISTING).name == "mem0" and detect_reader(RESULTS).name == "mem0"
    adapter = Mem0Adapter()
    others = [*(DATA / "mcp_memory").iterdir(),
              *(Path(__file__).parents[1] / "exchange" / "data").glob("*.ndjson")]
    for path in others:
        assert not adapter.sniff(path, first_line(path)), path
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    assert not adapter.sniff(empty, "[]") and not adapter.sniff(tmp_path, "")


@pytest.mark.model
def test_cli_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    code, out, err = run_cli(["--store", store, "import", str(RESULTS), "--dry-run"], capsys)
    assert code == 0, err
    assert "format: mem0 (--format auto chose it); mode merge; dry run, nothing written" in out
    assert "memories: 3 would be new, 0 already in the tenant" in out
    assert ("2 graph relation between entities, not memories (e.g. relation 1 (carol "
            "-has_pet-> miso), relation 2 (carol -allergic_to-> peanuts))") in out
    code, out, err = run_cli(["--store", store, "import", str(LISTING), "--format", "mem0",
                              "--param", "user_id_as=metadata"], capsys)
    assert code == 0, err
    assert "read 5 records" in out and "memories: 3 imported, 0 updated, 0 unchanged" in out
    assert "duplicates by content_hash: 1" in out and "1 empty memory (e.g. item 5)" in out
