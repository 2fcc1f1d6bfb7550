"""Rejected consolidation candidates, remembered in the store's audit log.

`reject` appends one audit row (action `consolidate-reject`, the members as its targets)
holding the candidate's id and each member's id, content hash and `updated_at`. A candidate
stays rejected while it is the same group of the same memories unchanged: the same id (the
same members with the same content hashes) and every member's `updated_at` as recorded. So
a member edited, archived and restored, superseded, retagged, or a member joining or leaving
the group, makes it a candidate again; reading or recalling a member does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_core.consolidation.pool import Pool

if TYPE_CHECKING:
    from memory_core.store import MemoryStore

ACTION = "consolidate-reject"


def _stamp(value: Any) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def reject(store: MemoryStore, candidate_id: str, *, reason: str | None = None) -> None:
    """Remember that the current candidate `candidate_id` was rejected (`reason` kept with
    it): `consolidation_candidates` leaves it out until one of its members changes.
    `CandidateNotFoundError` when no current candidate has the id; refused on a read-only
    store."""
    from memory_core.consolidation.candidates import get_candidate

    store.check_writable("rejecting a consolidation candidate")
    with store.writing(ACTION):
        found = get_candidate(store, candidate_id)
        members = store.get_many(list(found.members))
        after = {"candidate_id": found.id, "members": [
            {"id": m, "content_hash": members[m].content_hash,
             "updated_at": _stamp(members[m].updated_at)} for m in found.members]}
        store.append_audit(ACTION, list(found.members), after=after, reason=reason)


def rejected_ids(store: MemoryStore, pool: Pool) -> set[str]:
    """The ids of rejected candidates whose members are all in `pool` unchanged since."""
    now = {i: (h, _stamp(u)) for i, h, u in zip(pool.ids, pool.column("content_hash"),
                                                pool.column("updated_at"), strict=True)}
    out = set()
    for entry in store.audit_query(action=ACTION, limit=None):
        after = entry.after if isinstance(entry.after, dict) else {}
        members = after.get("members") or []
        if members and all(isinstance(m, dict) and now.get(str(m.get("id"))) == (
                m.get("content_hash"), m.get("updated_at")) for m in members):
            out.add(str(after.get("candidate_id")))
    return out
