"""Writing edges by hand: `link` and `unlink`, as audited, undoable curation batches."""

from __future__ import annotations

from collections.abc import Sequence

from memory_core.curation.batch import run
from memory_core.curation.plan import Plan, select
from memory_core.curation.report import CurationReport
from memory_core.model.errors import GraphError, InvalidRecordError
from memory_core.model.records import Edge
from memory_core.model.schema import normalise_relation
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore


def link(store: MemoryStore, source: str, relation: str, target: str, *,
         strength: float = 1.0, evidence: Sequence[str] = (), reason: str | None = None,
         dry_run: bool = False) -> CurationReport:
    """Add the edge `source -relation-> target` (both memories of this tenant). Refused:
    unknown or other tenants' ids, an unknown relation, a self loop, and an edge that is
    already there. `memlens undo` removes it again."""
    try:
        canonical, swap = normalise_relation(relation)
    except InvalidRecordError as exc:
        raise GraphError(str(exc)) from exc
    if swap:
        source, target = target, source
    if source == target:
        raise GraphError(f"memory {shown(source)} cannot be linked to itself")

    def build() -> Plan:
        chosen = select(store, [source, target], what="link")
        plan = Plan("link", [source, target])
        for memory in chosen.values():
            plan.keep(memory)
        for edge in store.changes.edges_touching([source]):
            if (edge.source_id, edge.target_id, edge.relation, edge.status) == (
                    source, target, canonical, "active"):
                raise GraphError(f"{shown(source)} -{canonical}-> {shown(target)} exists "
                                 f"already (edge {shown(edge.id)})")
        try:
            edge = Edge.new(source, target, canonical, tenant=store.tenant,
                            strength=float(strength), evidence=list(evidence) or None,
                            metadata={"made_by": "link"})
        except (InvalidRecordError, TypeError, ValueError) as exc:
            raise GraphError(str(exc)) from exc
        plan.edges_after[edge.id] = edge
        return plan

    return run(store, "link", build, dry_run=dry_run, reason=reason)


def unlink(store: MemoryStore, edge_id: str, *, reason: str | None = None,
           dry_run: bool = False) -> CurationReport:
    """Remove one edge of this tenant; `memlens undo` puts it back."""

    def build() -> Plan:
        found = store.changes.edges_by_id([edge_id])
        if edge_id not in found:
            raise GraphError(f"no edge with id {shown(edge_id)} in tenant "
                             f"{shown(store.tenant)}; `memlens why ID` lists a memory's edges")
        edge = found[edge_id]
        plan = Plan("unlink", [edge.source_id, edge.target_id])
        plan.edges_before[edge.id] = edge
        return plan

    return run(store, "unlink", build, dry_run=dry_run, reason=reason)
