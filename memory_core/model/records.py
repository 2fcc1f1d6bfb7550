"""The record types of a store: `Memory`, `Edge`, `AuditEntry`, `Event`, and the checks a
record passes before the store writes it: `validate_memory`, `validate_edge`,
`validate_event`.

Their columns and vocabularies are described in docs/design/records.md and
docs/design/events.md.

Records are frozen dataclasses. `Memory.new` / `Edge.new` / `Event.new` build valid new records
(uuid4 id, content hash, timestamps, vocabulary normalisation, default stability); a record built
any other way (an import, a `dataclasses.replace`) goes through the checks before it is
written. Each returns the record with its vocabularies normalised, or raises
`InvalidRecordError` naming the field and the fix. (The checks and the types stay in one
module: the constructors end with the checks, and the checks are typed by the records.)
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from memory_core.model.columns import Kind, col
from memory_core.model.errors import InvalidRecordError
from memory_core.model.schema import (
    DEFAULT_TENANT,
    normalise_embedding_status,
    normalise_event_kind,
    normalise_importance,
    normalise_memory_type,
    normalise_relation,
    normalise_status,
)
from memory_core.model.stability import default_stability, is_valid_stability
from memory_core.model.untrusted import shown
from memory_core.model.values import as_utc, canonical_json, content_hash, utcnow

_TEXT, _TIME, _F32 = col(Kind.TEXT), col(Kind.TIME), col(Kind.FLOAT32)
_TEXT_REQ, _TIME_REQ = col(Kind.TEXT, required=True), col(Kind.TIME, required=True)


@dataclass(frozen=True, kw_only=True)
class Memory:
    """One memory of an agent: a row of the `memories` table.

    The fields, in table order, are the columns (`memory_core.model.columns.columns(Memory)`); each
    field's metadata names its column kind, from which the Arrow schema, the row codec, the
    canonical JSON form and the diff are derived.
    """

    id: str = field(metadata=_TEXT_REQ)
    content: str = field(metadata=_TEXT_REQ)
    memory_type: str = field(metadata=_TEXT_REQ)
    status: str = field(default="active", metadata=_TEXT_REQ)
    tenant: str = field(default=DEFAULT_TENANT, metadata=_TEXT_REQ)
    project: str | None = field(default=None, metadata=_TEXT)
    repo: str | None = field(default=None, metadata=_TEXT)
    agent: str | None = field(default=None, metadata=_TEXT)
    session_id: str | None = field(default=None, metadata=_TEXT)
    tags: tuple[str, ...] = field(default=(), metadata=col(Kind.TEXTS))
    why: str | None = field(default=None, metadata=_TEXT)
    source: str | None = field(default=None, metadata=_TEXT)
    created_at: datetime = field(metadata=_TIME_REQ)
    updated_at: datetime = field(metadata=_TIME_REQ)
    content_hash: str = field(metadata=_TEXT_REQ)
    importance: str = field(default="normal", metadata=_TEXT_REQ)
    stability: float | None = field(default=None, metadata=_F32)
    confidence: float | None = field(default=None, metadata=_F32)
    access_count: int = field(default=0, metadata=col(Kind.INT32))
    last_accessed_at: datetime | None = field(default=None, metadata=_TIME)
    embedding_status: str = field(default="pending", metadata=_TEXT_REQ)
    vector: tuple[float, ...] | None = field(default=None, metadata=col(Kind.VECTOR))
    metadata: Mapping[str, Any] = field(default_factory=dict, metadata=col(Kind.OBJECT))

    @classmethod
    def new(
        cls,
        content: str,
        memory_type: str = "observation",
        *,
        id: str | None = None,
        created_at: datetime | str | float | None = None,
        updated_at: datetime | str | float | None = None,
        importance: str = "normal",
        stability: float | None = None,
        tags: Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        vector: Sequence[float] | None = None,
        **fields: Any,
    ) -> Memory:
        """A new, valid memory: uuid4 id, content hash, UTC timestamps, default stability.

        >>> m = Memory.new("Use uv for Python installs", "Preference", project="herd")
        >>> (m.memory_type, m.status, m.importance, m.embedding_status)
        ('preference', 'active', 'normal', 'pending')
        """
        created = as_utc(created_at) or utcnow()
        mtype = normalise_memory_type(memory_type)
        tier = normalise_importance(importance)
        memory = cls(
            id=id or str(uuid.uuid4()),
            content=content,
            memory_type=mtype,
            created_at=created,
            updated_at=as_utc(updated_at) or created,
            content_hash=content_hash(content) if isinstance(content, str) else "",
            importance=tier,
            stability=default_stability(mtype, tier) if stability is None else stability,
            tags=as_tags(tags),
            metadata=dict(metadata or {}),
            vector=tuple(float(x) for x in vector) if vector is not None else None,
            embedding_status="ok" if vector is not None else "pending",
            **fields,
        )
        return validate_memory(memory)

    def with_changes(self, **changes: Any) -> Memory:
        """A copy with `changes` applied and validated (content hash kept in step)."""
        if "content" in changes:
            changes.setdefault("content_hash", content_hash(changes["content"]))
        return validate_memory(replace(self, **changes))




@dataclass(frozen=True, kw_only=True)
class Edge:
    """A directed, typed link between two memories: a row of the `edges` table."""

    id: str = field(metadata=_TEXT_REQ)
    tenant: str = field(default=DEFAULT_TENANT, metadata=_TEXT_REQ)
    source_id: str = field(metadata=_TEXT_REQ)
    target_id: str = field(metadata=_TEXT_REQ)
    relation: str = field(metadata=_TEXT_REQ)
    strength: float = field(default=1.0, metadata=_F32)
    evidence: tuple[str, ...] = field(default=(), metadata=col(Kind.TEXTS))
    created_at: datetime = field(metadata=_TIME_REQ)
    last_reinforced: datetime | None = field(default=None, metadata=_TIME)
    decay_rate: float = field(default=0.0, metadata=_F32)
    status: str = field(default="active", metadata=_TEXT_REQ)
    metadata: Mapping[str, Any] = field(default_factory=dict, metadata=col(Kind.OBJECT))

    @classmethod
    def new(
        cls,
        source_id: str,
        target_id: str,
        relation: str,
        *,
        id: str | None = None,
        created_at: datetime | str | float | None = None,
        evidence: Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> Edge:
        """A new, valid edge; relation aliases are mapped (`superseded_by` flips direction)."""
        canonical, swap = normalise_relation(relation)
        if swap:
            source_id, target_id = target_id, source_id
        created = as_utc(created_at) or utcnow()
        fields.setdefault("last_reinforced", created)
        edge = cls(
            id=id or str(uuid.uuid4()),
            source_id=source_id,
            target_id=target_id,
            relation=canonical,
            created_at=created,
            evidence=as_tags(evidence),
            metadata=dict(metadata or {}),
            **fields,
        )
        return validate_edge(edge)




@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    """One row of the append-only `audit` table: who did what to which records, and why.

    Audit rows carry a tenant because they hold record contents (before/after) and every
    read is scoped to one tenant.
    """

    id: str = field(metadata=_TEXT_REQ)
    at: datetime = field(metadata=_TIME_REQ)
    tenant: str = field(metadata=_TEXT_REQ)
    actor: str = field(metadata=_TEXT_REQ)
    action: str = field(metadata=_TEXT_REQ)
    target_ids: tuple[str, ...] = field(default=(), metadata=col(Kind.TEXTS))
    before: Any = field(default=None, metadata=col(Kind.JSON))
    after: Any = field(default=None, metadata=col(Kind.JSON))
    reason: str | None = field(default=None, metadata=_TEXT)
    table_version: int | None = field(default=None, metadata=col(Kind.INT64))
    #: Rows written by one curation action (and its undo) share a batch id; `memlens undo`
    #: takes it. Added after schema v1 shipped: older stores gain the column when opened.
    batch_id: str | None = field(default=None, metadata=_TEXT)


#: The longest `query` an event keeps (a recall's query text, cut at a word-safe length).
EVENT_QUERY_LIMIT = 500


@dataclass(frozen=True, kw_only=True)
class Event:
    """One row of the append-only `events` table (docs/design/events.md): a memory was
    recalled, cited in an agent's answer, or corrected. Events feed the citation factor of
    the decay composite and the Decay page's timeline of one memory.

    `metadata` holds what the kind needs: a recall's rank, a correction's verdict, kind,
    note and replacement.
    """

    id: str = field(metadata=_TEXT_REQ)
    tenant: str = field(default=DEFAULT_TENANT, metadata=_TEXT_REQ)
    at: datetime = field(metadata=_TIME_REQ)
    #: recall, cite or correct (not `kind`: that key names the line of an export)
    event_kind: str = field(metadata=_TEXT_REQ)
    memory_id: str = field(metadata=_TEXT_REQ)
    actor: str = field(default="memlens", metadata=_TEXT_REQ)
    session_id: str | None = field(default=None, metadata=_TEXT)
    query: str | None = field(default=None, metadata=_TEXT)
    metadata: Mapping[str, Any] = field(default_factory=dict, metadata=col(Kind.OBJECT))

    @classmethod
    def new(cls, kind: str, memory_id: str, *, tenant: str = DEFAULT_TENANT,
            actor: str = "memlens", at: datetime | None = None, session_id: str | None = None,
            query: str | None = None, metadata: Mapping[str, Any] | None = None) -> Event:
        """A new, valid event (uuid4 id, `at` now unless given).

        >>> Event.new("cite", "m1").event_kind
        'cite'
        """
        return validate_event(cls(
            id=str(uuid.uuid4()), tenant=tenant, at=as_utc(at) or utcnow(), event_kind=kind,
            memory_id=memory_id, actor=actor, session_id=session_id,
            query=None if query is None else query[:EVENT_QUERY_LIMIT],
            metadata=dict(metadata or {}),
        ))


def _optional_text(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRecordError(f"{name} must be text, got {type(value).__name__} {shown(value)}")
    return value


def as_tags(value: Iterable[str] | None) -> tuple[str, ...]:
    """`value` as a tuple of strings: tags, or an edge's evidence ids; None is none."""
    if value is None:
        return ()
    if isinstance(value, str):
        raise InvalidRecordError(f"tags must be a list of strings, got the string {shown(value)}")
    tags = tuple(value)
    for tag in tags:
        if not isinstance(tag, str):
            raise InvalidRecordError(f"every tag must be text, got {shown(tag)}")
    return tags


def validate_memory(memory: Memory, *, dimension: int | None = None) -> Memory:
    """Check every field of `memory` and return it with vocabularies normalised.

    Raises `InvalidRecordError` naming the field and the fix. Unknown memory types are
    allowed (the vocabulary is open); empty content is not.
    """
    if not isinstance(memory.id, str) or not memory.id.strip():
        raise InvalidRecordError(f"a memory needs a non-empty id, got {shown(memory.id)}")
    if not isinstance(memory.content, str) or not memory.content.strip():
        raise InvalidRecordError(
            f"memory {memory.id} has empty content; a memory must say something"
        )
    if not isinstance(memory.tenant, str) or not memory.tenant.strip():
        raise InvalidRecordError(f"memory {memory.id} has an empty tenant; use 'default'")
    for name in ("project", "repo", "agent", "session_id", "why", "source"):
        _optional_text(name, getattr(memory, name))
    if not isinstance(memory.metadata, Mapping):
        raise InvalidRecordError(f"metadata of memory {memory.id} must be a JSON object")
    try:
        canonical_json(memory.metadata)
    except (TypeError, ValueError) as exc:
        raise InvalidRecordError(
            f"metadata of memory {memory.id} is not JSON-serialisable: {exc}"
        ) from exc
    for name in ("stability", "confidence"):
        value = getattr(memory, name)
        if value is not None and (not isinstance(value, int | float) or math.isnan(value)):
            raise InvalidRecordError(f"{name} of memory {memory.id} must be a number")
    if memory.stability is not None and not is_valid_stability(memory.stability):
        raise InvalidRecordError(
            f"stability of memory {memory.id} is {memory.stability}; it must be a positive "
            f"number of days (leave it out for its type's default)")
    if memory.confidence is not None and not 0.0 <= memory.confidence <= 1.0:
        raise InvalidRecordError(
            f"confidence of memory {memory.id} is {memory.confidence}; it must lie in 0..1"
        )
    if not isinstance(memory.access_count, int) or memory.access_count < 0:
        raise InvalidRecordError(f"access_count of memory {memory.id} must be an integer >= 0")
    vector = memory.vector
    if vector is not None:
        if dimension is not None and len(vector) != dimension:
            raise InvalidRecordError(
                f"memory {memory.id} has a vector of dimension {len(vector)}, but this store "
                f"holds {dimension}-d vectors; leave the vector out to have memlens embed it"
            )
        if not all(math.isfinite(x) for x in vector):
            raise InvalidRecordError(f"memory {memory.id} has a vector with NaN or inf")
    return replace(
        memory,
        memory_type=normalise_memory_type(memory.memory_type),
        status=normalise_status(memory.status),
        importance=normalise_importance(memory.importance),
        embedding_status=normalise_embedding_status(memory.embedding_status),
        content_hash=memory.content_hash or content_hash(memory.content),
        created_at=as_utc(memory.created_at) or utcnow(),
        updated_at=as_utc(memory.updated_at) or utcnow(),
        last_accessed_at=as_utc(memory.last_accessed_at),
        tags=as_tags(memory.tags),
    )


def validate_edge(edge: Edge) -> Edge:
    """Check an edge and return it normalised; raises `InvalidRecordError`."""
    for name in ("id", "source_id", "target_id"):
        value = getattr(edge, name)
        if not isinstance(value, str) or not value.strip():
            raise InvalidRecordError(f"an edge needs a non-empty {name}, got {shown(value)}")
    if edge.source_id == edge.target_id:
        raise InvalidRecordError(f"edge {edge.id} links memory {edge.source_id} to itself")
    relation, _ = normalise_relation(edge.relation)
    if not isinstance(edge.strength, int | float) or not 0.0 <= edge.strength <= 1.0:
        raise InvalidRecordError(
            f"edge {edge.id} has strength {shown(edge.strength)}; use 0..1")
    if not isinstance(edge.decay_rate, int | float) or edge.decay_rate < 0:
        raise InvalidRecordError(
            f"edge {edge.id} has decay_rate {shown(edge.decay_rate)}; use >= 0")
    return replace(
        edge,
        relation=relation,
        status=normalise_status(edge.status),
        created_at=as_utc(edge.created_at) or utcnow(),
        last_reinforced=as_utc(edge.last_reinforced),
        evidence=as_tags(edge.evidence),
    )


def validate_event(event: Event) -> Event:
    """`event` with its kind normalised; an error naming the problem otherwise."""
    for name in ("id", "tenant", "memory_id", "actor"):
        value = getattr(event, name)
        if not isinstance(value, str) or not value.strip():
            raise InvalidRecordError(f"event {shown(event.id)} needs a non-empty {name}, "
                                     f"got {shown(value)}")
    if not isinstance(event.metadata, Mapping):
        raise InvalidRecordError(f"event {shown(event.id)} metadata must be a JSON object")
    at = as_utc(event.at)
    if at is None:
        raise InvalidRecordError(f"event {shown(event.id)} needs a time (`at`)")
    return replace(event, event_kind=normalise_event_kind(event.event_kind), at=at,
                   session_id=_optional_text("session_id", event.session_id),
                   query=_optional_text("query", event.query))
