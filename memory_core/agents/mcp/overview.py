"""L1 `memory_overview`: what a memory holds, in a dozen lines an agent reads first."""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.model.filters import Filter
from memory_core.store import MemoryStore

#: Values listed per count (the rest summed as "+N more"), and sessions listed.
TOP = 8
SESSIONS = 5


def counts_line(label: str, counts: Mapping[str, int]) -> str:
    """`label: a 12, b 3, +2 more (4)`, largest first."""
    if not counts:
        return f"{label}: none"
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    parts = [f"{name or '(none)'} {n}" for name, n in ranked[:TOP]]
    rest = ranked[TOP:]
    if rest:
        parts.append(f"+{len(rest)} more ({sum(n for _, n in rest)})")
    return f"{label}: {', '.join(parts)}"


def newest_sessions(store: MemoryStore) -> list[str]:
    """The `SESSIONS` sessions with the newest active memories: id, agent, last date, count."""
    table = store.scan(["session_id", "agent", "created_at"], Filter())
    table = table.filter(pc.invert(pc.is_null(table["session_id"])))
    if table.num_rows == 0:
        return []
    grouped = table.group_by("session_id").aggregate(
        [("created_at", "max"), ("created_at", "count"), ("agent", "max")])
    order = pc.sort_indices(grouped, sort_keys=[("created_at_max", "descending"),
                                                ("session_id", "ascending")])
    top: pa.Table = grouped.take(order.slice(0, SESSIONS))
    return [f"  {row['session_id']} ({row['agent_max'] or 'no agent'}, "
            f"{row['created_at_max']:%Y-%m-%d}, {row['created_at_count']} memories)"
            for row in top.to_pylist()]


def overview_text(store: MemoryStore) -> str:
    """Counts by type, project and agent (active memories), the newest sessions, and the
    open contradictions and pending embeddings."""
    from memory_core.causal import contradictions
    from memory_core.stats import store_stats

    stats = store_stats(store)
    active = store.scan(["memory_type", "project", "agent"], Filter())

    def by(column: str) -> dict[str, int]:
        counts = pc.value_counts(active[column]).to_pylist()
        return {c["values"] or "": int(c["counts"]) for c in counts}

    open_pairs = sum(1 for c in contradictions(store) if c.both_active)
    lines = [f"memory of tenant {store.tenant}: {stats.active} active memories "
             f"({stats.memories} with archived and superseded), {stats.edges} links",
             counts_line("by type", by("memory_type")),
             counts_line("by project", by("project")),
             counts_line("by agent", by("agent"))]
    sessions = newest_sessions(store)
    lines.append("newest sessions:" if sessions else "newest sessions: none")
    lines += sessions
    lines.append(f"open: {open_pairs} contradictions between active memories; "
                 f"{stats.pending_embeddings} memories waiting for an embedding")
    lines.append("next: recall to search; get_memory, why and related on an id; remember "
                 "to write")
    return "\n".join(lines)
