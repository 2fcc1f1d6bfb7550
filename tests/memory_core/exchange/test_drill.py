"""The recovery drill: passes on a seeded store, and never loses data when a step fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.exchange.drill import run_drill
from memory_core.exchange.export import export_store
from memory_core.model.errors import ImportConflictError, ReadOnlyError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.seeding import seed_from_export
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.exchange.conftest import WHEN, body


@pytest.fixture(scope="module")
def seeded_uri(tmp_path_factory: pytest.TempPathFactory) -> str:
    uri = str(tmp_path_factory.mktemp("drill") / "store")
    seed_from_export(MemoryStore.open(uri, embedder=FakeEmbedder()))
    return uri


def _snapshot_body(store: MemoryStore, path: Path) -> bytes:
    export_store(store, path, with_vectors=True, exported_at=WHEN)
    return body(path)


@pytest.mark.slow  # seeds and drills the 3,000-memory demo corpus
@pytest.mark.parametrize("drop_tables", [False, True])
def test_drill_passes_on_the_seeded_demo_store(seeded_uri: str, tmp_path: Path,
                                               drop_tables: bool) -> None:
    store = MemoryStore.open(seeded_uri, embedder=FakeEmbedder())
    before = _snapshot_body(store, tmp_path / "before.ndjson")
    report = run_drill(store, export_dir=tmp_path / "exports", drop_tables=drop_tables)
    assert report.passed, report.checks
    assert report.counts["memory"] == 3003 and report.counts["edge"] == 3515
    assert [c.step for c in report.checks] == [
        "export", "verify export file", "rehearse in a scratch store", "drop", "import",
        "verify re-export"]
    assert report.export_path is None and not list((tmp_path / "exports").iterdir())
    after = MemoryStore.open(seeded_uri, embedder=FakeEmbedder())
    assert _snapshot_body(after, tmp_path / "after.ndjson") == before
    assert after.audit.entries(limit=1)[0].action == "drill"


def test_a_failure_after_the_drop_restores_the_store_and_keeps_the_file(
        store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add([Memory.new(f"memory {i}", "fact") for i in range(5)])
    before = _snapshot_body(store, tmp_path / "before.ndjson")
    calls = []
    real = __import__("memory_core.exchange.drill", fromlist=["import_file"]).import_file

    def flaky(target, path, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(target.uri)
        if len(calls) == 2:  # the rehearsal passes, the real import fails
            raise OSError("disk full")
        return real(target, path, **kwargs)

    monkeypatch.setattr("memory_core.exchange.drill.import_file", flaky)
    report = run_drill(store, export_dir=tmp_path / "exports")
    assert not report.passed
    assert [c.step for c in report.checks][-2:] == ["import", "rollback"]
    assert report.export_path and Path(report.export_path).is_file()
    assert _snapshot_body(store, tmp_path / "after.ndjson") == before


def test_a_failed_rehearsal_stops_before_the_store_is_touched(
        store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add([Memory.new("keep me", "fact")])
    version = store.version

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("scratch disk full")

    monkeypatch.setattr("memory_core.exchange.drill.import_file", broken)
    report = run_drill(store, export_dir=tmp_path)
    assert not report.passed and report.checks[-1].step == "verify before dropping"
    assert store.version == version and store.count() == 1
    assert report.export_path and Path(report.export_path).is_file()


def test_drop_tables_is_refused_when_other_tenants_share_them(store: MemoryStore,
                                                             tmp_path: Path) -> None:
    store.add([Memory.new("mine", "fact")])
    MemoryStore.open(store.uri, tenant="acme", embedder=store.embedder).add(
        [Memory.new("theirs", "fact")])
    report_error = None
    try:
        run_drill(store, export_dir=tmp_path, drop_tables=True)
    except ImportConflictError as exc:
        report_error = str(exc)
    assert report_error is None  # reported as a failed check, not raised
    acme = MemoryStore.open(store.uri, tenant="acme", embedder=store.embedder)
    assert acme.count(Filter(status=STATUSES)) == 1 and store.count() == 1


def test_read_only_store_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    store.read_only = True
    with pytest.raises(ReadOnlyError, match="so drill is refused"):
        run_drill(store, export_dir=tmp_path)


def test_drill_passes_after_curation_and_batches_survive_it(store: MemoryStore,
                                                            tmp_path: Path) -> None:
    """Regression: imports dropped audit rows' batch ids, so the rehearsal's re-export
    differed (the drill failed on any store with a curation batch) and no batch could be
    undone after a restore."""
    from memory_core.curation import archive, audit_batches, undo

    store.add([Memory.new("keep this note", "fact", id="k"),
               Memory.new("archive this note", "fact", id="a")])
    archive(store, ["a"])
    report = run_drill(store, export_dir=tmp_path / "exports")
    assert report.passed, report.checks
    [batch] = [b for b in audit_batches(store) if b.action == "archive"]
    assert batch.batch_id
    undo(store, batch.batch_id)
    assert store.get("a").status == "active"
