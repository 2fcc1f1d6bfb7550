"""`cite`: record that an agent's answer used memories (`cite` events, docs/design/events.md).

A cite event earns the memory the decay composite's citation factor (x1.1 while its latest
cite is at most 7 days old: `memory_core.decay`). Citing changes no record, so it writes no
audit row (the audit logs record changes; an audit row naming the memory would also make
`undo` refuse earlier batches as if the memory had changed): the event itself, with its
actor, session, query and time, is the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory_core.model.errors import CurationError, MemoryNotFoundError
from memory_core.model.records import Event
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore


def cite(store: MemoryStore, memory_ids: Sequence[str], *, actor: str | None = None,
         session_id: str | None = None, query: str | None = None,
         at: datetime | None = None) -> int:
    """Record one `cite` event for each of `memory_ids` (duplicates once; any status), by
    `actor` (the store's actor by default), at `at` (now by default), with the answer's
    `session_id` and `query`. Every id must be a memory of the store's tenant, else nothing
    is written and the error names the first missing id. Returns how many were recorded.

    >>> cite(store, ["m1", "m2"], session_id="s-42", query="how do we cache?")  # doctest: +SKIP
    2
    """
    ids = [memory_ids] if isinstance(memory_ids, str) else list(dict.fromkeys(memory_ids))
    if not ids:
        raise CurationError("no memory id was given; nothing to cite")
    store.check_writable("cite")
    with store.writing("cite"):  # checked and written in one step: no delete in between
        found = store.get_many(ids)
        missing = [i for i in ids if i not in found]
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise MemoryNotFoundError(
                f"no memory with id {shown(missing[0])}{more} in tenant {shown(store.tenant)}; "
                f"nothing was cited (list ids with `memlens ls`)")
        return store.events.record([
            Event.new("cite", memory_id, tenant=store.tenant, actor=actor or store.actor,
                      at=at, session_id=session_id, query=query, metadata={"rank": rank})
            for rank, memory_id in enumerate(ids, start=1)])
