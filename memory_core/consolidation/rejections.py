"""Rejected consolidation candidates, remembered in the store's audit log.

`reject` (`candidates.py`) appends one audit row (action `consolidate-reject`, the members
as its targets) holding the candidate's id and each member's id, content hash and
`updated_at`. A candidate
stays rejected while it is the same group of the same memories unchanged: the same id (the
same members with the same content hashes) and every member's `updated_at` as recorded. So
a member edited, archived and restored, superseded, retagged, or a member joining or leaving
the group, makes it a candidate again; reading or recalling a member does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memory_core.consolidation.pool import Pool

if TYPE_CHECKING:
    from memory_core.store import MemoryStore

ACTION = "consolidate-reject"


def _stamp(value: Any) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def record_rejection(store: MemoryStore, members: Sequence[str], candidate_id: str, *,
                     reason: str | None = None) -> None:
    """Append the audit row that rejects the candidate `candidate_id` of `members` (their
    content hashes and `updated_at` read now, under the write lock). `reject` in
    `candidates.py` checks the candidate is current first."""
    with store.writing(ACTION):
        found = store.get_many(list(members))
        after = {"candidate_id": candidate_id, "members": [
            {"id": m, "content_hash": found[m].content_hash,
             "updated_at": _stamp(found[m].updated_at)} for m in members]}
        store.audit.append(ACTION, list(members), after=after, reason=reason)


def rejected_ids(store: MemoryStore, pool: Pool) -> set[str]:
    """The ids of rejected candidates whose members are all in `pool` unchanged since."""
    now = {i: (h, _stamp(u)) for i, h, u in zip(pool.ids, pool.column("content_hash"),
                                                pool.column("updated_at"), strict=True)}
    out = set()
    for entry in store.audit.query(action=ACTION, limit=None):
        after = entry.after if isinstance(entry.after, dict) else {}
        members = after.get("members") or []
        if members and all(isinstance(m, dict) and now.get(str(m.get("id"))) == (
                m.get("content_hash"), m.get("updated_at")) for m in members):
            out.add(str(after.get("candidate_id")))
    return out
