"""Read-only mode through the API: every write path refuses before writing, reads still work.

A populated store is opened read-only (`read_only=True`, as MEMLENS_READ_ONLY or `--read-only`
open it); each write path must raise `ReadOnlyError` with the one wording
(`ReadOnlyError.refusing`) and leave every table version where it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from memory_core.evaluation import evaluate_config
from memory_core.evaluation.queryset import parse_query
from memory_core.exchange.diff import diff_sides
from memory_core.exchange.diff_sides import load_side
from memory_core.exchange.drill import run_drill
from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file, import_into
from memory_core.model.config import Settings
from memory_core.model.errors import ReadOnlyError, StoreNotFoundError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import STATUSES
from memory_core.reembed import fill_pending, switch_model
from memory_core.retrieval.config import preset
from memory_core.retrieval.recall import recall
from memory_core.retrieval.search import search
from memory_core.seeding import seed_from_export
from memory_core.stats import store_stats
from memory_core.store import MemoryStore
from memory_core.store.bulk import KEEP_VERSIONS
from memory_core.store.indexes import ensure_indexes
from memory_core.store.scratch import SCRATCH
from tests.conftest import FakeEmbedder

REFUSAL = "is open read-only (--read-only or MEMLENS_READ_ONLY), so "


class OtherFake(FakeEmbedder):
    """Another model, for `switch_model` and `set_vector_model`."""

    model_id = "test/other-fake"
    dimension = 8


@dataclass(frozen=True)
class Populated:
    """A store with memories, an edge, audit rows and an export of itself."""

    uri: str
    ids: tuple[str, ...]
    export: Path

    def open(self, *, read_only: bool = True) -> MemoryStore:
        return MemoryStore.open(self.uri, embedder=FakeEmbedder(), read_only=read_only)


@pytest.fixture
def populated(tmp_path: Path) -> Populated:
    writer = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    memories = [Memory.new("refresh token race fixed with a mutex", "decision",
                           project="atlas"),
                Memory.new("two tabs refreshing tokens logged users out", "observation",
                           project="atlas"),
                Memory.new("prefer uv over pip for installs", "preference", project="herd")]
    writer.add(memories)
    writer.edges.add([Edge.new(memories[1].id, memories[0].id, "caused")])
    export = tmp_path / "export.ndjson"
    export_store(writer, export, with_vectors=True)
    return Populated(writer.uri, tuple(m.id for m in memories), export)


def _row(store: MemoryStore, memory_id: str) -> pa.Table:
    return store.bulk.scan(["id", "importance"], f"id = '{memory_id}'")


#: (name, the write, the action its refusal names); each gets the read-only handle and the
#: populated store.
WRITES: list[tuple[str, Callable[[MemoryStore, Populated], Any], str]] = [
    ("add", lambda s, p: s.add([Memory.new("a new fact", "fact")]), "so add is"),
    ("upsert", lambda s, p: s.upsert([s.get(p.ids[0]).with_changes(content="changed")]),
     "so upsert is"),
    ("record_access", lambda s, p: s.record_access([p.ids[0]]), "so record access is"),
    ("add_edges", lambda s, p: s.edges.add([Edge.new(p.ids[0], p.ids[2], "related_to")]),
     "so add edges is"),
    ("append_audit", lambda s, p: s.audit.append("note", [p.ids[0]]), "so note is"),
    ("writing", lambda s, p: s.writing("anything").__enter__(), "so anything is"),
    ("import", lambda s, p: import_file(s, p.export, mode="merge"), "--dry-run checks"),
    ("import_into", lambda s, p: import_into(Settings.from_env(store_uri=p.uri,
                                                               read_only=True),
                                             p.export, embedder=FakeEmbedder()),
     "so import is"),
    ("seed", lambda s, p: seed_from_export(s, p.export), "so seeding is"),
    ("reembed", lambda s, p: fill_pending(s), "so reembed is"),
    ("reembed --model", lambda s, p: switch_model(s, OtherFake()), "so reembed --model is"),
    ("index", lambda s, p: ensure_indexes(s), "so `memlens index` is"),
    ("drill", lambda s, p: run_drill(s, export_dir=p.export.parent / "drill"),
     "so drill is"),
    ("bulk.append", lambda s, p: s.bulk.append("memory", s.bulk.scan(
        s.tables.memories.schema.names).slice(0, 0)), "so append is"),
    ("bulk.update", lambda s, p: s.bulk.update(_row(s, p.ids[0])), "so update is"),
    ("bulk.delete_ids", lambda s, p: s.bulk.delete_ids("memory", [p.ids[0]]),
     "so delete ids is"),
    ("bulk.delete_tenant", lambda s, p: s.bulk.delete_tenant(), "so delete tenant is"),
    ("bulk.drop_tables", lambda s, p: s.bulk.drop_tables(), "so drop tables is"),
    ("bulk.set_vector_model", lambda s, p: s.bulk.set_vector_model(OtherFake()),
     "so set vector model is"),
    ("bulk.optimize", lambda s, p: s.bulk.optimize(), "so optimize is"),
    ("bulk.restore", lambda s, p: s.bulk.restore({"memories": 1}), "so restore is"),
]


@pytest.mark.parametrize("write, action", [(w, a) for _, w, a in WRITES],
                         ids=[name for name, _, _ in WRITES])
def test_every_write_path_refuses_and_changes_no_table(
        populated: Populated, write: Callable[[MemoryStore, Populated], Any],
        action: str) -> None:
    ro = populated.open()
    before = ro.table_versions()
    with pytest.raises(ReadOnlyError) as raised:
        write(ro, populated)
    message = str(raised.value)
    assert message.startswith(f"the store {populated.uri} {REFUSAL}"), message
    assert action in message
    assert "run without --read-only and with MEMLENS_READ_ONLY unset to write" in message
    assert ro.table_versions() == before
    assert populated.open(read_only=False).table_versions() == before
    assert not (Path(populated.uri) / ".memlens-journal.json").exists()
    assert ro.model_id == FakeEmbedder.model_id and ro.count() == 3


def test_recall_reads_without_recording_access(populated: Populated) -> None:
    ro = populated.open()
    before = ro.table_versions()
    result = recall(ro, "refresh token race", limit=2)
    assert result.items and len(result.items) <= 2
    assert ro.table_versions() == before
    assert {m.access_count for m in ro.list(Filter(status=STATUSES))} == {0}


def test_reads_work_read_only(populated: Populated, tmp_path: Path) -> None:
    ro = populated.open()
    before = ro.table_versions()
    hits = search(ro, "refresh token race", config=preset("hybrid"), limit=3)
    assert hits.hits and hits.degraded  # no full-text index, and none is created
    assert {m.id for m in ro.list()} == set(populated.ids)
    assert ro.get(populated.ids[0]).project == "atlas"
    assert len(ro.edges.list()) == 1 and ro.audit.entries()
    assert store_stats(ro).memories == 3
    written = export_store(ro, tmp_path / "again.ndjson")
    assert written.manifest.counts == {"memory": 3, "edge": 1, "event": 0}
    assert diff_sides(load_side(str(populated.export), ro), load_side("live", ro)).identical
    query = parse_query({"qid": "q1", "query": "refresh token race",
                         "relevant": {populated.ids[0]: 1}})
    assert evaluate_config(ro, [query], preset("hybrid")).means()
    assert ro.table_versions() == before


def test_import_dry_run_works_read_only_and_stages_outside_the_store(
        populated: Populated) -> None:
    ro = populated.open()
    before = ro.table_versions()
    report = import_file(ro, populated.export, mode="merge", dry_run=True)
    assert report.dry_run and sorted(report.existing) == sorted(populated.ids)
    assert ro.table_versions() == before
    assert not (Path(populated.uri) / SCRATCH).exists()  # the store's folder is untouched
    settings = Settings.from_env(store_uri=populated.uri, read_only=True)
    assert import_into(settings, populated.export, embedder=FakeEmbedder(), mode="merge",
                       dry_run=True).dry_run


def test_read_only_open_of_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError, match="no memlens store at"):
        MemoryStore.open(str(tmp_path / "none"), embedder=FakeEmbedder(), read_only=True)
    assert not (tmp_path / "none").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreNotFoundError, match="holds no memlens store"):
        MemoryStore.open(str(tmp_path / "empty"), embedder=FakeEmbedder(), read_only=True)
    assert not list((tmp_path / "empty").iterdir())


def test_read_only_open_of_an_incomplete_store_adds_no_table(populated: Populated) -> None:
    writer = populated.open(read_only=False)
    writer.tables.db.drop_table("edges")
    with pytest.raises(StoreNotFoundError, match="incomplete memlens store \\(no 'edges'"):
        populated.open()
    assert not (Path(populated.uri) / "edges.lance").exists()
    assert populated.open(read_only=False).edges.count() == 0  # a writer adds it back


def test_bulk_optimize_writes_under_the_lock_and_keeps_every_version(
        populated: Populated, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = populated.open(read_only=False)
    table = writer.tables.memories
    journal = Path(populated.uri) / ".memlens-journal.json"
    real, seen = table.optimize, []

    def spy(**kwargs: Any) -> Any:
        seen.append((kwargs.get("cleanup_older_than"), journal.exists()))
        return real(**kwargs)

    monkeypatch.setattr(table, "optimize", spy)
    writer.bulk.optimize()
    # LanceDB's default would prune versions older than 7 days: undo needs them all
    [(retention, journalled)] = seen
    assert retention is not None and retention >= KEEP_VERSIONS
    assert journalled and not journal.exists()
