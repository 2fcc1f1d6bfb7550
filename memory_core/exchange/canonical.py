"""The canonical JSON form of records (DESIGN.md section 5), shared by exports and the audit.

Canonical means: keys sorted, no spaces, unicode kept, timestamps ISO-8601 UTC with a `Z`
(microseconds only when non-zero), float32 columns written as the shortest decimal that reads
back to the same float32, metadata as a JSON object. Equal records give equal bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import numpy as np

from memory_core.records import AuditEntry, Edge, Memory, as_utc

MEMORY_FLOAT32 = ("stability", "confidence")
EDGE_FLOAT32 = ("strength", "decay_rate")


def iso(value: datetime | None) -> str | None:
    """ISO-8601 UTC with `Z`; microseconds only when non-zero.

    >>> from datetime import UTC, datetime
    >>> iso(datetime(2026, 5, 1, 9, 30, tzinfo=UTC))
    '2026-05-01T09:30:00Z'
    """
    utc = as_utc(value)
    if utc is None:
        return None
    text = utc.strftime("%Y-%m-%dT%H:%M:%S")
    if utc.microsecond:
        text += f".{utc.microsecond:06d}"
    return text + "Z"


def f32(value: float | None) -> float | None:
    """The shortest decimal that reads back as the same float32.

    >>> f32(0.8500000238418579)
    0.85
    """
    if value is None:
        return None
    return float(str(np.float32(value)))


def memory_doc(memory: Memory, *, with_vector: bool = False) -> dict[str, Any]:
    """A memory as its canonical JSON object (`kind` = "memory")."""
    doc: dict[str, Any] = {
        "kind": "memory",
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
        "created_at": iso(memory.created_at),
        "updated_at": iso(memory.updated_at),
        "content_hash": memory.content_hash,
        "importance": memory.importance,
        "stability": f32(memory.stability),
        "confidence": f32(memory.confidence),
        "access_count": memory.access_count,
        "last_accessed_at": iso(memory.last_accessed_at),
        "embedding_status": memory.embedding_status,
        "metadata": dict(memory.metadata),
    }
    if with_vector:
        doc["vector"] = None if memory.vector is None else [f32(x) for x in memory.vector]
    return doc


def edge_doc(edge: Edge) -> dict[str, Any]:
    """An edge as its canonical JSON object (`kind` = "edge")."""
    return {
        "kind": "edge",
        "id": edge.id,
        "tenant": edge.tenant,
        "source_id": edge.source_id,
        "target_id": edge.target_id,
        "relation": edge.relation,
        "strength": f32(edge.strength),
        "evidence": list(edge.evidence),
        "created_at": iso(edge.created_at),
        "last_reinforced": iso(edge.last_reinforced),
        "decay_rate": f32(edge.decay_rate),
        "status": edge.status,
        "metadata": dict(edge.metadata),
    }


def memory_from_doc(doc: Mapping[str, Any], **overrides: Any) -> Memory:
    """A `Memory` from its canonical JSON object (unvalidated; the store validates), with
    `overrides` (e.g. tenant) in place of the document's fields."""
    vector = doc.get("vector")
    fields: dict[str, Any] = dict(
        id=doc["id"],
        content=doc["content"],
        memory_type=doc["memory_type"],
        status=doc.get("status", "active"),
        tenant=doc.get("tenant") or "default",
        project=doc.get("project"),
        repo=doc.get("repo"),
        agent=doc.get("agent"),
        session_id=doc.get("session_id"),
        tags=tuple(doc.get("tags") or ()),
        why=doc.get("why"),
        source=doc.get("source"),
        created_at=as_utc(doc["created_at"]),  # type: ignore[arg-type]
        updated_at=as_utc(doc.get("updated_at") or doc["created_at"]),  # type: ignore[arg-type]
        content_hash=doc.get("content_hash") or "",
        importance=doc.get("importance", "normal"),
        stability=doc.get("stability"),
        confidence=doc.get("confidence"),
        access_count=int(doc.get("access_count") or 0),
        last_accessed_at=as_utc(doc.get("last_accessed_at")),
        embedding_status=("ok" if vector is not None else "pending"),
        vector=tuple(vector) if vector is not None else None,
        metadata=dict(doc.get("metadata") or {}),
    )
    fields.update(overrides)
    return Memory(**fields)


def edge_from_doc(doc: Mapping[str, Any], **overrides: Any) -> Edge:
    """An `Edge` from its canonical JSON object (unvalidated), with `overrides`."""
    fields: dict[str, Any] = dict(
        id=doc["id"],
        tenant=doc.get("tenant") or "default",
        source_id=doc["source_id"],
        target_id=doc["target_id"],
        relation=doc["relation"],
        strength=float(doc.get("strength", 1.0)),
        evidence=tuple(doc.get("evidence") or ()),
        created_at=as_utc(doc["created_at"]),  # type: ignore[arg-type]
        last_reinforced=as_utc(doc.get("last_reinforced")),
        decay_rate=float(doc.get("decay_rate") or 0.0),
        status=doc.get("status", "active"),
        metadata=dict(doc.get("metadata") or {}),
    )
    fields.update(overrides)
    return Edge(**fields)


def audit_doc(entry: AuditEntry) -> dict[str, Any]:
    """An audit row as its canonical JSON object (`kind` = "audit"); before/after as JSON."""
    return {
        "kind": "audit",
        "id": entry.id,
        "at": iso(entry.at),
        "tenant": entry.tenant,
        "actor": entry.actor,
        "action": entry.action,
        "target_ids": list(entry.target_ids),
        "before": entry.before,
        "after": entry.after,
        "reason": entry.reason,
        "table_version": entry.table_version,
    }


def audit_from_doc(doc: Mapping[str, Any]) -> AuditEntry:
    """An `AuditEntry` from its canonical JSON object (unvalidated)."""
    version = doc.get("table_version")
    return AuditEntry(
        id=doc["id"],
        at=as_utc(doc["at"]),  # type: ignore[arg-type]
        tenant=doc.get("tenant") or "default",
        actor=doc["actor"],
        action=doc["action"],
        target_ids=tuple(doc.get("target_ids") or ()),
        before=doc.get("before"),
        after=doc.get("after"),
        reason=doc.get("reason"),
        table_version=int(version) if version is not None else None,
    )
