"""Records to Arrow rows and back; the only place that knows both shapes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa

from memory_core.records import AuditEntry, Edge, Memory, canonical_json


def memory_to_row(memory: Memory) -> dict[str, Any]:
    """A `memories` row (metadata as canonical JSON text)."""
    return {
        "id": memory.id,
        "content": memory.content,
        "memory_type": memory.memory_type,
        "status": memory.status,
        "tenant": memory.tenant,
        "project": memory.project,
        "repo": memory.repo,
        "agent": memory.agent,
        "session_id": memory.session_id,
        "tags": list(memory.tags),
        "why": memory.why,
        "source": memory.source,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
        "content_hash": memory.content_hash,
        "importance": memory.importance,
        "stability": memory.stability,
        "confidence": memory.confidence,
        "access_count": memory.access_count,
        "last_accessed_at": memory.last_accessed_at,
        "embedding_status": memory.embedding_status,
        "vector": list(memory.vector) if memory.vector is not None else None,
        "metadata": canonical_json(dict(memory.metadata)),
    }


def _meta(text: str | None) -> dict[str, Any]:
    return json.loads(text) if text else {}


def memory_from_row(row: dict[str, Any]) -> Memory:
    """A `Memory` from a `memories` row (a missing vector column reads as no vector)."""
    vector = row.get("vector")
    return Memory(
        id=row["id"],
        content=row["content"],
        memory_type=row["memory_type"],
        status=row["status"],
        tenant=row["tenant"],
        project=row.get("project"),
        repo=row.get("repo"),
        agent=row.get("agent"),
        session_id=row.get("session_id"),
        tags=tuple(row.get("tags") or ()),
        why=row.get("why"),
        source=row.get("source"),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        content_hash=row["content_hash"],
        importance=row["importance"],
        stability=row.get("stability"),
        confidence=row.get("confidence"),
        access_count=row.get("access_count") or 0,
        last_accessed_at=row.get("last_accessed_at"),
        embedding_status=row["embedding_status"],
        vector=tuple(float(x) for x in vector) if vector is not None else None,
        metadata=_meta(row.get("metadata")),
    )


def edge_to_row(edge: Edge) -> dict[str, Any]:
    """An `edges` row."""
    return {
        "id": edge.id,
        "tenant": edge.tenant,
        "source_id": edge.source_id,
        "target_id": edge.target_id,
        "relation": edge.relation,
        "strength": edge.strength,
        "evidence": list(edge.evidence),
        "created_at": edge.created_at,
        "last_reinforced": edge.last_reinforced,
        "decay_rate": edge.decay_rate,
        "status": edge.status,
        "metadata": canonical_json(dict(edge.metadata)),
    }


def edge_from_row(row: dict[str, Any]) -> Edge:
    """An `Edge` from an `edges` row."""
    return Edge(
        id=row["id"],
        tenant=row["tenant"],
        source_id=row["source_id"],
        target_id=row["target_id"],
        relation=row["relation"],
        strength=float(row["strength"]) if row.get("strength") is not None else 1.0,
        evidence=tuple(row.get("evidence") or ()),
        created_at=row["created_at"],
        last_reinforced=row.get("last_reinforced"),
        decay_rate=float(row["decay_rate"]) if row.get("decay_rate") is not None else 0.0,
        status=row["status"],
        metadata=_meta(row.get("metadata")),
    )


def audit_from_row(row: dict[str, Any]) -> AuditEntry:
    """An `AuditEntry` from an `audit` row (before/after parsed from JSON)."""
    return AuditEntry(
        id=row["id"],
        at=row["at"],
        tenant=row["tenant"],
        actor=row["actor"],
        action=row["action"],
        target_ids=tuple(row.get("target_ids") or ()),
        before=json.loads(row["before"]) if row.get("before") else None,
        after=json.loads(row["after"]) if row.get("after") else None,
        reason=row.get("reason"),
        table_version=row.get("table_version"),
    )


def rows_to_table(rows: Sequence[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """An Arrow table of `rows` in `schema` (float vectors cast to float32)."""
    return pa.Table.from_pylist(list(rows), schema=schema)


def table_rows(table: pa.Table) -> Iterable[dict[str, Any]]:
    """The rows of an Arrow table as dicts."""
    return table.to_pylist()
