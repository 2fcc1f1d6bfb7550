"""Every engine API that reads tenant data returns only the chosen tenant's, from a store
whose two tenants share memory ids and texts (tests/hardening/tenants.py).

`READS` is the enumeration: each public function of `memory_core` that takes a store is a
read here, a write in test_tenants_writes.py, or tenant-free with a reason; a test keeps the
three lists covering `__all__`, so a new API shows up as missing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memory_core as mc
from memory_core.decay import DecayParams
from memory_core.evaluation import Query
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.projection import MapParams
from memory_core.store import MemoryStore
from tests.hardening.isolation import assert_only_own, text_of, two_tenants, use_fast_stand_ins
from tests.hardening.tenants import IDS, MARK, NOW, OWN_ID, TENANTS, TwoTenants, other, solo_id

ALL = Filter(status=STATUSES)
A_, B_ = TENANTS


def _queries(tenant: str) -> list[Query]:
    return [Query("q1", "postgres pool sockets", {"m-1": 2}),
            Query("q2", "launch code vault rotation", {OWN_ID: 2, solo_id(tenant): 1}),
            Query("q3", "cache ttl sessions", {"m-3": 1, "m-4": 1})]


def _export(store: MemoryStore, out: Path) -> Path:
    path = out / f"{store.tenant}.ndjson"
    mc.export_store(store, path, with_audit=True, with_vectors=True)
    return path


def _first_version(store: MemoryStore) -> Any:
    """The side of the memories table as the first add left it (the curation came later)."""
    first = min(v.version for v in store.changes.history() if v.version > 1)
    return mc.load_side(f"version:{first}", store)


def _with_memories(store: MemoryStore, *results: Any) -> Any:
    """`results`, and the memories of this tenant that the ids they name are."""
    named = [i for i in (*IDS, solo_id(A_), solo_id(B_)) if i in text_of(results)]
    return results, store.get_many(named)


def _map(store: MemoryStore) -> Any:
    projection = mc.project(store, ALL, params=MapParams(n_neighbors=3), cache=False)
    return projection, mc.place_query(store, projection, "launch code vault")


def _embedders(store: MemoryStore) -> Any:
    return mc.evaluate_embedders(store, _queries(store.tenant), mc.preset("vector"),
                                 None, store.embedder, names=("same", "again"))


def _recall_id(store: MemoryStore) -> str:
    """The id of the tenant's recall (tests/hardening/tenants.py records one per tenant)."""
    return str(mc.past_recalls(store)[0].recall_id)


#: name -> what the API returns for a store of one tenant (`out`: a folder for files).
READS: dict[str, Callable[[MemoryStore, Path], Any]] = {
    **{f"search[{name}]": (lambda s, _, n=name: mc.search(
        s, "launch code vault postgres pool", ALL, mc.preset(n), limit=50, now=NOW))
       for name in mc.PRESETS},
    "MemoryStore.list": lambda s, _: s.list(ALL),
    "MemoryStore.get_many": lambda s, _: s.get_many([*IDS, solo_id(A_), solo_id(B_)]),
    "MemoryStore.get": lambda s, _: s.get(OWN_ID),
    "MemoryStore.iter_memories": lambda s, _: list(s.iter_memories(ALL)),
    "MemoryStore.scan": lambda s, _: s.scan(["id", "project", "content"], ALL),
    "MemoryStore.ids": lambda s, _: s.ids(ALL),
    "MemoryStore.edges": lambda s, _: s.edges.list(include_inactive=True),
    "MemoryStore.audit_query": lambda s, _: s.audit.query(limit=None),
    "MemoryStore.events": lambda s, _: s.events.query(),
    "store_stats": lambda s, _: mc.store_stats(s),
    "memories_over_time": lambda s, _: (mc.memories_over_time(s), mc.store_stats(s)),
    "filter_choices": lambda s, _: mc.filter_choices(s),
    "lineage": lambda s, _: [mc.lineage(s, i) for i in ("m-1", OWN_ID)],
    "supersession_chain": lambda s, _: _with_memories(
        s, mc.supersession_chain(s, "m-6"), mc.supersession_chain(s, solo_id(s.tenant))),
    "contradictions": lambda s, _: (mc.contradictions(s), s.get("m-3")),
    "neighbourhood": lambda s, _: mc.neighbourhood(s, list(IDS), hops=2),
    "graph_health": lambda s, _: mc.graph_health(s),
    "write_graph": lambda s, out: [(out / f"g.{f}", mc.write_graph(s, out / f"g.{f}", format=f))
                                   for f in ("graphml", "json")],
    "audit_batches": lambda s, _: mc.audit_batches(s, limit=1000),
    "decay_frame": lambda s, _: mc.decay_frame(s, ALL, as_of=NOW),
    "at_risk": lambda s, _: mc.at_risk(s, threshold=1.0, within_days=3650, as_of=NOW),
    "what_if": lambda s, _: mc.what_if(s, DecayParams(), DecayParams(stability_scale=0.1),
                                       as_of=NOW),
    "decay_impact": lambda s, _: mc.decay_impact(s, "launch code vault", as_of=NOW),
    "memory_timeline": lambda s, _: mc.memory_timeline(s, OWN_ID, as_of=NOW),
    "near_duplicates": lambda s, _: (mc.near_duplicates(s, ALL, threshold=0.1), s.get("m-3")),
    "project": lambda s, _: _map(s),
    "place_query": lambda s, _: _map(s),
    "export_store": lambda s, out: _export(s, out),
    "diff_sides": lambda s, out: mc.diff_sides(_first_version(s), mc.load_side("live", s)),
    "load_side": lambda s, out: (_first_version(s), mc.load_side(str(_export(s, out)))),
    "run_queries": lambda s, _: mc.run_queries(s, _queries(s.tenant), mc.preset("hybrid")),
    "evaluate_config": lambda s, _: mc.evaluate_config(s, _queries(s.tenant),
                                                       mc.preset("hybrid"), now=NOW),
    "compare_configs": lambda s, _: mc.compare_configs(s, _queries(s.tenant),
                                                       mc.preset("vector"), mc.preset("bm25")),
    "evaluate_embedders": lambda s, _: _embedders(s),
    "tune": lambda s, _: mc.tune(s, _queries(s.tenant), folds=2, now=NOW,
                                 space=mc.SearchSpace({"weight_bm25": (1.0, 2.0)})),
    "verify_deleted": lambda s, _: mc.verify_deleted(s, [OWN_ID]),
    "preview": lambda s, _: mc.preview(s, "edit", OWN_ID, content="new launch code text"),
    "activity": lambda s, _: mc.activity(s),
    "memory_use": lambda s, _: mc.memory_use(s, days=3650, limit=50, now=NOW),
    "past_recalls": lambda s, _: mc.past_recalls(s),
    "find_recall": lambda s, _: _with_memories(s, mc.find_recall(s, _recall_id(s))),
    "replay": lambda s, _: mc.replay(s, _recall_id(s), now=NOW),
    "consolidation_candidates": lambda s, _: _with_memories(s, mc.consolidation_candidates(s)),
    "get_candidate": lambda s, _: _with_memories(
        s, [mc.get_candidate(s, c.id) for c in mc.consolidation_candidates(s)]),
    "consolidation_overlay": lambda s, _: mc.consolidation_overlay(s, list(IDS)),
    "evidence_changes": lambda s, _: mc.evidence_changes(s),
    "derived_closure": lambda s, _: _with_memories(s, mc.derived_closure(s, list(IDS))),
    "impact_queries": lambda s, _: mc.impact_queries(s),
    "impact": lambda s, _: mc.impact(s, "archive", ["m-1"], queries=_queries(s.tenant)),
}

#: Public functions that take a store and change it: test_tenants_writes.py covers them.
WRITES = frozenset({
    "archive", "restore", "delete", "edit", "merge", "merge_many", "supersede", "link",
    "unlink", "correct", "cite", "undo", "recall", "fill_pending", "switch_model",
    "import_file", "run_drill", "consolidate", "reject",
})
#: Public functions that take a store but read no tenant's records, and why.
TENANT_FREE = {
    "ensure_indexes": "indexes are built over the whole table, every tenant's rows alike",
    "vector_index_recall": "a recall figure of the index, no records returned",
    "index_health": "figures of the table's indexes and files (every tenant's rows alike), "
                    "no records returned",
    "seed_from_export": "seeds the demo corpus into a store (a write of fixed content)",
    "build_bench_store": "writes a new synthetic store in a folder of its own for the "
                         "benchmarks; no existing store or tenant is read",
    "check_reachable": "returns nothing; its refusal is tested below",
    "demo_store": "opens the demo store from settings",
    "load_embedder": "loads the embedding model the settings name",
    "make_receipt": "the receipt of a purge report of this store: the ids and hashes the "
                    "report and its batch's tombstones name (tests/memory_core/curation/"
                    "test_receipt.py)",
    "verify_receipt": "re-checks a receipt's ids in this tenant; a receipt written for "
                      "another tenant is refused (tests/memory_core/curation/test_receipt.py "
                      "test_another_tenants_receipt_is_refused)",
}


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> TwoTenants:
    return two_tenants(tmp_path_factory)


@pytest.fixture(autouse=True)
def fast_stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    use_fast_stand_ins(monkeypatch)


def test_every_public_store_api_is_enumerated() -> None:
    takes_store = {name for name in mc.__all__
                   if inspect.isfunction(getattr(mc, name))
                   and {"store", "settings"} & set(inspect.signature(getattr(mc, name)).parameters)}
    covered = {name.split("[")[0] for name in READS} | WRITES | set(TENANT_FREE)
    assert takes_store - covered == set(), "add these APIs to READS, WRITES or TENANT_FREE"
    assert {n for n in covered if "." not in n} - takes_store == {"diff_sides"}


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("api", sorted(READS))
def test_reads_return_only_the_tenants_records(two: TwoTenants, tenant: str, api: str,
                                                tmp_path: Path) -> None:
    result = READS[api](two.open(tenant), tmp_path)
    assert_only_own(result, tenant, own_required=api not in _ANONYMOUS)


#: Results that name no record's text or attribution (ids, counts, scores only), so only
#: the other tenant's solo id could show there.
_ANONYMOUS = frozenset({"verify_deleted", "evaluate_config", "compare_configs",
                        "evaluate_embedders", "tune", "graph_health", "what_if",
                        "consolidation_overlay", "evidence_changes", "impact_queries",
                        # the fixture's tenants hold no group of alike memories, so these
                        # list nothing of either: their leak check still runs, and the
                        # reject write of tests/hardening/test_tenants_writes.py makes a
                        # candidate beside the other tenant's rows
                        "consolidation_candidates", "get_candidate"})


@pytest.mark.parametrize("tenant", TENANTS)
def test_the_other_tenants_own_id_is_not_found(two: TwoTenants, tenant: str) -> None:
    store, theirs = two.open(tenant), solo_id(other(tenant))
    with pytest.raises(mc.MemoryNotFoundError):
        store.get(theirs)
    with pytest.raises(mc.MemlensError):
        mc.lineage(store, theirs)
    with pytest.raises(mc.MemlensError):
        mc.memory_timeline(store, theirs, as_of=NOW)
    with pytest.raises(mc.QuerySetError):
        mc.check_reachable(store, [Query("q", "launch code", {theirs: 1})])
    assert store.audit.entries(memory_id=theirs) == []
    assert store.events.query(memory_ids=[theirs]) == []
    assert store.edges.list(memory_id=theirs) == []
    with pytest.raises(mc.CurationError, match="never in tenant"):
        mc.verify_deleted(store, [theirs])
    their_recall = _recall_id(two.open(other(tenant)))
    assert their_recall != _recall_id(store)
    with pytest.raises(mc.RecallNotFoundError):
        mc.find_recall(store, their_recall)
    with pytest.raises(mc.RecallNotFoundError):
        mc.replay(store, their_recall, now=NOW)


def test_same_ids_hold_each_tenants_own_version(two: TwoTenants) -> None:
    a, b = two.open(A_), two.open(B_)
    assert a.ids(ALL) - {solo_id(A_)} == b.ids(ALL) - {solo_id(B_)}
    assert MARK[A_] in a.get(OWN_ID).content and MARK[B_] in b.get(OWN_ID).content
    assert a.count() == b.count() and a.edges.count() == b.edges.count()
    assert {e.relation for e in a.edges.list()} == {e.relation for e in b.edges.list()}
    assert text_of(a.events.query()).count(MARK[A_]) >= 2
