"""A write in one tenant never touches the other tenant's records, not even those with the
same ids (tests/hardening/tenants.py): every public write of `memory_core` runs in tenant
acme on a copy of the two-tenant store, and globex's memories (with vectors), edges, audit
rows and events are exactly as before. `WRITES` must name every write test_tenants_engine
lists."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import memory_core as mc
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.hardening.isolation import state, two_tenants
from tests.hardening.tenants import MARK, NOW, OWN_ID, TwoTenants, solo_id
from tests.hardening.test_tenants_engine import WRITES as LISTED

A, B = "acme", "globex"


class OtherModel(FakeEmbedder):
    """Another embedding model (same vectors, doubled words: different from the fake's)."""

    model_id = "test/fake-bow-other"

    def embed_batch(self, texts: Any) -> np.ndarray:
        return super().embed_batch([f"{t} {t}x" for t in texts])


def _pending_then_fill(store: MemoryStore, _: Path) -> Any:
    store.bulk.update(pa.table({"tenant": [store.tenant], "id": [OWN_ID],
                                "embedding_status": ["pending"]}))
    return mc.fill_pending(store)


def _import(store: MemoryStore, out: Path) -> Any:
    path = out / "new.ndjson"
    fresh = [Memory.new("acme imported a fresh note", "fact", id="m-new", tenant=A)]
    mc.write_export(path, fresh, [], tenant=A, exported_at=NOW)
    return mc.import_file(store, path, mode="merge")


def _undo_last(store: MemoryStore, _: Path) -> Any:
    batch = next(b for b in mc.audit_batches(store) if b.action == "archive")
    return mc.undo(store, str(batch.batch_id))


#: name -> a write in tenant acme that names ids globex holds too.
def _reject_a_candidate(store: MemoryStore) -> None:
    """Two alike observations of this tenant make a candidate; rejecting it writes."""
    store.add([Memory.new(f"acme deploy freeze blocks friday releases, week {n}",
                          memory_type="observation") for n in (1, 2)])
    found = mc.consolidation_candidates(store)
    assert found, "two alike observations make a candidate"
    mc.reject(store, found[0].id, reason="not one lesson")


WRITES: dict[str, Callable[[MemoryStore, Path], Any]] = {
    "edit": lambda s, _: mc.edit(s, "m-1", content="acme rewrote the pool note", tags=["x"]),
    "archive": lambda s, _: mc.archive(s, ["m-1", OWN_ID]),
    "archive[filter]": lambda s, _: mc.archive(s, Filter(tags=[MARK[A], "shared"])),
    "restore": lambda s, _: mc.restore(s, ["m-8"]),
    "delete": lambda s, _: mc.delete(s, ["m-2", OWN_ID]),
    "delete[purge]": lambda s, _: mc.delete(s, ["m-2", OWN_ID], purge=True),
    "merge": lambda s, _: mc.merge(s, ["m-3", "m-4"], "m-3"),
    "merge_many": lambda s, _: mc.merge_many(s, [(["m-3", "m-4"], "m-4")]),
    "supersede": lambda s, _: mc.supersede(s, "m-1", content="acme pool now holds forty"),
    "link": lambda s, _: mc.link(s, "m-1", "supports", "m-7"),
    "unlink": lambda s, _: mc.unlink(s, s.edges.list()[0].id),
    "correct": lambda s, _: mc.correct(s, "m-1", "modified", note="acme fixed it"),
    "cite": lambda s, _: mc.cite(s, ["m-1", OWN_ID]),
    "recall": lambda s, _: mc.recall(s, "postgres pool launch code", limit=10),
    "undo": _undo_last,
    "fill_pending": _pending_then_fill,
    "import_file": _import,
    "run_drill": lambda s, out: mc.run_drill(s, export_dir=out / "drill"),
    "consolidate": lambda s, _: mc.consolidate(s, ["m-1", "m-7"],
                                               "acme: the pool note and its follow-up agree"),
    "reject": lambda s, _: _reject_a_candidate(s),
}


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> TwoTenants:
    return two_tenants(tmp_path_factory)


def test_every_listed_write_is_run() -> None:
    assert LISTED - {"switch_model"} == {name.split("[")[0] for name in WRITES}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_write_in_one_tenant_leaves_the_other_as_it_was(two: TwoTenants, write: str,
                                                          tmp_path: Path) -> None:
    uri = two.copy(tmp_path / "store")
    acme, globex = two.open(A, uri), two.open(B, uri)
    before, acme_before = state(globex), state(acme)
    WRITES[write](acme, tmp_path)
    assert state(globex) == before
    if write != "run_drill":  # a drill puts the tenant back as it was
        assert state(acme) != acme_before  # the write did something


def test_undo_of_the_other_tenants_batch_is_refused(two: TwoTenants, tmp_path: Path) -> None:
    uri = two.copy(tmp_path / "store")
    acme, globex = two.open(A, uri), two.open(B, uri)
    before = state(globex), state(acme)
    theirs = [b.batch_id for b in mc.audit_batches(globex) if b.batch_id]
    assert theirs
    for batch_id in theirs:
        with pytest.raises(mc.MemlensError) as err:
            mc.undo(acme, str(batch_id))
        assert MARK[B] not in str(err.value) and B not in str(err.value)
    with pytest.raises(mc.MemlensError):
        mc.unlink(acme, globex.edges.list()[0].id)
    with pytest.raises(mc.MemlensError):
        mc.edit(acme, solo_id(B), content="acme reaches into globex")
    assert (state(globex), state(acme)) == before


def test_switching_the_model_embeds_each_tenants_own_text(two: TwoTenants,
                                                          tmp_path: Path) -> None:
    uri = two.copy(tmp_path / "store")
    acme, other = two.open(A, uri), OtherModel()
    mc.switch_model(acme, other)
    for tenant in (A, B):
        store = MemoryStore.open(uri, tenant=tenant, embedder=other)
        mine = store.get(OWN_ID, with_vectors=True)
        assert MARK[tenant] in mine.content
        expected = other.embed([mine.content])[0]
        assert np.allclose(np.asarray(mine.vector), expected, atol=1e-6)


def test_bulk_update_needs_the_tenant(two: TwoTenants, tmp_path: Path) -> None:
    """Regression: `bulk.update` matched on the id alone and wrote into both tenants."""
    uri = two.copy(tmp_path / "store")
    acme, globex = two.open(A, uri), two.open(B, uri)
    before = state(globex)
    acme.bulk.update(pa.table({"tenant": [A], "id": ["m-1"], "access_count": [99]}))
    assert acme.get("m-1").access_count == 99
    assert state(globex) == before
    assert replace(globex.get("m-1"), access_count=0) != replace(acme.get("m-1"),
                                                                access_count=0)


def test_a_purge_verifies_although_the_other_tenant_holds_the_id(two: TwoTenants,
                                                                  tmp_path: Path) -> None:
    """Regression: verify_deleted counted the other tenant's row with the same id, in the
    live table and in every table version, and reported the purge as failed."""
    uri = two.copy(tmp_path / "store")
    acme, globex = two.open(A, uri), two.open(B, uri)
    mc.delete(acme, [OWN_ID], purge=True)
    report = mc.verify_deleted(acme, [OWN_ID])
    assert report.passed, report.failures
    assert MARK[B] in globex.get(OWN_ID).content
