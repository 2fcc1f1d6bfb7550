"""The checks a record passes before the store writes it: `validate_memory`, `validate_edge`,
`validate_event`.

`Memory.new` / `Edge.new` / `Event.new` (`memory_core.model.records`) end with them; a record
built any other way (an import, a `dataclasses.replace`) goes through them before it is written.
Each returns the record with its vocabularies normalised, or raises `InvalidRecordError` naming
the field and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from memory_core.model.errors import InvalidRecordError
from memory_core.model.schema import (
    normalise_embedding_status,
    normalise_event_kind,
    normalise_importance,
    normalise_memory_type,
    normalise_relation,
    normalise_status,
)
from memory_core.model.stability import is_valid_stability
from memory_core.model.untrusted import shown
from memory_core.model.values import as_utc, canonical_json, content_hash, utcnow

if TYPE_CHECKING:
    from memory_core.model.records import Edge, Event, Memory


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
