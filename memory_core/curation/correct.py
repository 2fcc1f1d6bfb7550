"""`correct`: an explicit correction of a memory (docs/design/records.md, "Corrections").

A correction is a verdict on what the memory said (accepted, modified, rejected: its
confidence), a kind (superseded, deprecated, refined, merged: its stability, and for three of
them a replacement that is boosted and linked), or both. The rules are in
`memory_core.curation.learning`. A correction never changes a memory's status: that is what
`supersede`, `merge` and `archive` do; use them as well when the memory should leave search.

Each correction is one curation batch (`memory_core.curation.batch`): the memory (and the
replacement) rewritten, the edge added, the audit's record rows, one more audit row with the
correction itself (`before`/`after` kind "correction": verdict, kind, note, replacement,
confidence and stability before and after) and a `correct` event, all under one store write
lock, so a failure leaves none of them. `memlens undo BATCH` puts the records back; the event
stays (the events table is append-only): its metadata names the batch, and the audit shows
the undo (`undone_batches`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from memory_core.curation.batch import run
from memory_core.curation.learning import (
    KINDS,
    PENALTIES,
    REPLACEMENT_BOOST,
    VERDICTS,
    adjusted_confidence,
    boosted_stability,
    penalised_stability,
    stability_of,
)
from memory_core.curation.plan import Plan, select
from memory_core.curation.report import CurationReport
from memory_core.model.canonical import f32
from memory_core.model.errors import CurationError
from memory_core.model.records import Edge, Event, Memory
from memory_core.model.untrusted import shown
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore

#: `before["kind"]` / `after["kind"]` of the audit row holding the correction itself.
CORRECTION_ROWS = "correction"


def _choice(value: str | None, known: dict[str, Any], what: str) -> str | None:
    if value is None:
        return None
    key = value.strip().lower() if isinstance(value, str) else value
    if key not in known:
        raise CurationError(f"unknown correction {what} {shown(value)}; use one of: "
                            f"{', '.join(known)}")
    return str(key)


def _check(memory_id: str, verdict: str | None, kind: str | None,
           replacement: str | None) -> None:
    """The arguments that make no correction, each one clear error; nothing is read yet."""
    if verdict is None and kind is None:
        raise CurationError(f"a correction needs a verdict ({', '.join(VERDICTS)}) or a kind "
                            f"({', '.join(KINDS)}), or both")
    if kind is not None and KINDS[kind] and replacement is None:
        raise CurationError(f"a {kind} correction needs the id of the memory that replaces "
                            f"{shown(memory_id)} (replacement=, or --by NEW_ID)")
    if replacement is not None and (kind is None or not KINDS[kind]):
        raise CurationError(f"a replacement goes with a kind of superseded, refined or "
                            f"merged, not {shown(kind or verdict)}; leave the replacement out")
    if replacement is not None and replacement == memory_id:
        raise CurationError(f"memory {shown(memory_id)} cannot replace itself; give another "
                            f"memory's id as its replacement")


@dataclass
class _Correction:
    """What one build decided: the values the audit row and the event record."""

    verdict: str | None
    kind: str | None
    note: str | None
    replacement: str | None
    by: str | None
    values: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    waived: list[str] = field(default_factory=list)

    def record(self, side: str, memory: Memory) -> None:
        self.values.setdefault(side, {})[memory.id] = {
            "confidence": f32(memory.confidence), "stability": f32(memory.stability),
            "importance": memory.importance}

    def audit(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """`before` and `after` of the correction's audit row."""
        before = {"kind": CORRECTION_ROWS, "memories": self.values.get("before", {})}
        after = {"kind": CORRECTION_ROWS, "verdict": self.verdict,
                 "correction_kind": self.kind, "note": self.note,
                 "replacement": self.replacement, "judged_by": self.by,
                 "waived": list(self.waived), "memories": self.values.get("after", {})}
        return before, after

    def metadata(self, memory_id: str, batch_id: str) -> dict[str, Any]:
        """The `correct` event's metadata (docs/design/events.md)."""
        old, new = self.values["before"][memory_id], self.values["after"][memory_id]
        out: dict[str, Any] = {
            "verdict": self.verdict, "kind": self.kind, "note": self.note,
            "replacement": self.replacement, "batch_id": batch_id,
            "confidence_before": old["confidence"], "confidence_after": new["confidence"],
            "stability_before": old["stability"], "stability_after": new["stability"],
            "importance_before": old["importance"], "importance_after": new["importance"],
        }
        if self.waived:
            out["waived"] = list(self.waived)
        return out


def _number(value: float | None) -> str:
    return "null" if value is None else f"{value:.4g}"


def _corrected(old: Memory, c: _Correction, plan: Plan) -> Memory:
    """The corrected memory with its verdict and kind applied (penalties waived for a
    constitutional memory), noting each change on the plan."""
    constitutional = old.importance == "constitutional"
    changes: dict[str, Any] = {}
    if c.verdict is not None:
        if constitutional and c.verdict in PENALTIES:
            c.waived.append(f"verdict {c.verdict}")
        else:
            changes["confidence"] = adjusted_confidence(old.confidence, VERDICTS[c.verdict])
            plan.notes.append(f"{c.verdict}: confidence {_number(old.confidence)} -> "
                              f"{_number(changes['confidence'])} (x{VERDICTS[c.verdict]:.2f}"
                              f"{', from 0.5: it had none' if old.confidence is None else ''})")
    if c.kind is not None:
        if constitutional:
            c.waived.append("stability penalty")
        else:
            changes["stability"] = penalised_stability(old)
            plan.notes.append(f"{c.kind}: stability {stability_of(old):.4g} -> "
                              f"{changes['stability']:.4g} days (x0.5)")
        if c.kind == "deprecated":
            changes["importance"] = "deprecated"
    if c.waived:
        plan.notes.append(f"memory {old.id} is constitutional: learning penalties are waived "
                          f"({', '.join(c.waived)}); the correction is still recorded")
    return replace(old, **changes)


def _boosted(new: Memory, old: Memory, c: _Correction, plan: Plan) -> Memory:
    """The replacement boosted (confidence as accepted, stability at least the corrected
    memory's before its penalty, unless that one is constitutional: its S means never)."""
    changes: dict[str, Any] = {
        "confidence": adjusted_confidence(new.confidence, REPLACEMENT_BOOST)}
    raised = None if old.importance == "constitutional" else boosted_stability(new, old)
    if raised is not None:
        changes["stability"] = raised
    plan.notes.append(
        f"replacement {new.id}: confidence {_number(new.confidence)} -> "
        f"{_number(changes['confidence'])}"
        + (f", stability {stability_of(new):.4g} -> {raised:.4g} days" if raised else ""))
    return replace(new, **changes)


def _link(store: MemoryStore, plan: Plan, c: _Correction, old: Memory, new: Memory) -> None:
    """The edge from the replacement to the corrected memory, unless an active one is there."""
    relation = KINDS[c.kind or ""]
    if relation is None:
        return
    for edge in store.changes.edges_touching([old.id]):
        plan.keep_edge(edge)
    if any(e.relation == relation and e.source_id == new.id and e.target_id == old.id
           and e.status == "active" for e in plan.edges_before.values()):
        plan.notes.append(f"the {relation} edge {new.id} -> {old.id} is there already")
        return
    edge = Edge.new(new.id, old.id, relation, tenant=store.tenant,
                    evidence=[c.note] if c.note else None,
                    metadata={"made_by": "correct", "correction": c.kind})
    plan.edges_after[edge.id] = edge


def correct(store: MemoryStore, memory_id: str, verdict: str | None = None, *,
            kind: str | None = None, note: str | None = None, replacement: str | None = None,
            actor: str | None = None, dry_run: bool = False, session_id: str | None = None,
            expect: CurationReport | None = None) -> CurationReport:
    """Correct memory `memory_id`: a `verdict` (accepted x1.05, modified x0.95, rejected
    x0.80 on its confidence, capped at 1; null counts as 0.5), a `kind` (superseded,
    deprecated, refined, merged: its stability x0.5; deprecated also sets its importance to
    "deprecated"), or both. superseded / merged / refined need the `replacement`'s id: it is
    boosted (confidence x1.05, stability at least the corrected memory's before the
    penalty) and linked (`supersedes`, or `derived_from` for refined, from it to the
    corrected memory). Status never changes: use `supersede` / `merge` / `archive` too.

    A constitutional memory is exempt from the penalties (modified, rejected, the stability
    penalty; the correction is recorded and the report says what was waived) and cannot be
    deprecated until its importance is lowered (`edit`). `note` is kept as the batch's
    reason; `actor` (who judged; the store's actor by default) and `session_id` go on the
    `correct` event. Returns the batch's report; `dry_run` previews it.

    >>> correct(store, "m1", "rejected", note="the flag was renamed")  # doctest: +SKIP
    """
    verdict = _choice(verdict, VERDICTS, "verdict")
    kind = _choice(kind, KINDS, "kind")
    _check(memory_id, verdict, kind, replacement)
    if not dry_run:
        store.check_writable("correct")
    decided: list[_Correction] = []

    def build() -> Plan:
        c = _Correction(verdict, kind, note, replacement, actor)
        ids = [memory_id] if replacement is None else [memory_id, replacement]
        chosen = select(store, ids, what="correct")
        old = chosen[memory_id]
        if kind == "deprecated" and old.importance == "constitutional":
            raise CurationError(f"memory {shown(memory_id)} is constitutional and cannot be "
                                f"deprecated; lower its importance first (`memlens edit "
                                f"{memory_id} --importance critical`), then correct it")
        plan = Plan("correct", ids)
        plan.keep(old)
        c.record("before", old)
        now = utcnow()
        new = replace(_corrected(old, c, plan), updated_at=now)  # touched: the batch's own
        plan.after[old.id] = new
        c.record("after", new)
        if replacement is not None:
            rep = chosen[replacement]
            if rep.status != "active":
                raise CurationError(f"the replacement {shown(replacement)} is {rep.status}; "
                                    f"restore it first or give an active memory")
            plan.keep(rep)
            c.record("before", rep)
            boosted = replace(_boosted(rep, old, c, plan), updated_at=now)
            plan.after[rep.id] = boosted
            c.record("after", boosted)
            _link(store, plan, c, old, rep)
        decided[:] = [c]
        return plan

    def record(plan: Plan, batch_id: str) -> None:
        c = decided[0]
        before, after = c.audit()
        store.audit.append("correct", plan.selected, before=before, after=after,
                           reason=note, batch_id=batch_id)
        store.events.record([Event.new(
            "correct", memory_id, tenant=store.tenant, actor=actor or store.actor,
            session_id=session_id, metadata=c.metadata(memory_id, batch_id))])

    return run(store, "correct", build, dry_run=dry_run, reason=note, expect=expect,
               after_write=record)
