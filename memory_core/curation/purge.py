"""What a purge does after the rows are deleted: scrub the audit's copies of the purged
memories to tombstones, make recall sessions forget them, delete their events, and have the
store rewrite the data files, rebuild the full-text index and remove every older table
version from disk (docs/design/curation.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memory_core.curation.batch import tombstone
from memory_core.model.records import Memory
from memory_core.retrieval.recall import session_db_path
from memory_core.retrieval.session_dedup import SessionDedup
from memory_core.store import MemoryStore

if TYPE_CHECKING:
    from memory_core.curation.plan import Plan
    from memory_core.curation.verify import Verification

PURGE_NOTE = ("a purge cannot be undone, and it also removes every older version of the "
              "store's tables from disk: no earlier change can be undone afterwards; copies "
              "outside the store (export files, backups) are not touched")


def scrub(value: Any, stones: dict[str, dict[str, Any]]) -> tuple[Any, bool]:
    """`value` (an audit before/after JSON value) with every record of a purged memory
    replaced by its tombstone; and whether anything was replaced."""
    if isinstance(value, dict):
        if value.get("id") in stones and ("content" in value or "content_hash" in value) \
                and not value.get("purged"):
            return stones[value["id"]], True
        changed = False
        out = {}
        for key, item in value.items():
            out[key], hit = scrub(item, stones)
            changed = changed or hit
        return out, changed
    if isinstance(value, list):
        items = [scrub(item, stones) for item in value]
        return [i for i, _ in items], any(hit for _, hit in items)
    return value, False


def scrub_audit(store: MemoryStore, memories: Sequence[Memory], reason: str | None) -> int:
    """Rewrite the audit rows holding copies of `memories`; returns how many rows changed."""
    stones = {m.id: tombstone(m, actor=store.actor, reason=reason) for m in memories}
    rows = store.audit.query(target_ids=sorted(stones), limit=None)
    changed = []
    for entry in rows:
        before, hit_before = scrub(entry.before, stones)
        after, hit_after = scrub(entry.after, stones)
        if hit_before or hit_after:
            changed.append(replace(entry, before=before, after=after))
    store.audit.rewrite(changed)
    return len(changed)


def forget_sessions(store: MemoryStore, memories: Sequence[Memory]) -> int:
    """Drop recall sessions' entries for `memories` (only if a session file exists)."""
    path = session_db_path(store)
    if not path.exists():
        return 0
    return SessionDedup(path).forget([m.id for m in memories], [m.content_hash for m in memories])


def finish_purge(store: MemoryStore, plan: Plan, batch_id: str) -> None:
    """Inside the purge's write step, after its rows and audit rows are written."""
    memories = list(plan.before.values())
    reason = next((e.reason for e in store.audit.query(batch_id=batch_id, limit=1)), None)
    scrubbed = scrub_audit(store, memories, reason)
    dropped = forget_sessions(store, memories)
    events = store.events.scan(memory_ids=[m.id for m in memories], columns=["id"]).num_rows
    store.events.delete_for([m.id for m in memories])
    versions = store.changes.drop_old_versions()
    plan.notes.append(f"audit rows scrubbed to tombstones: {scrubbed}; recall-session "
                      f"entries dropped: {dropped}; events deleted: {events}; older versions "
                      f"removed: "
                      + ", ".join(f"{name} {n - 1}" for name, n in versions.items()))


def verify_purged(store: MemoryStore, memories: Sequence[Memory]) -> Verification:
    """`verify_deleted` for memories just purged (their contents are known)."""
    from memory_core.curation.verify import verify_deleted

    return verify_deleted(store, [m.id for m in memories], known=memories)
