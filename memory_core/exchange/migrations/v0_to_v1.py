"""Export schema v0 -> v1: the pre-release layout of memlens exports, renamed to v1's fields.

v0 wrote `{"record": "memory" | "edge", ...}` lines (Make_Skills' names):

| v0 memory field | v1 field |        | v0 edge field | v1 field |
| --- | --- | --- | --- | --- |
| text | content | | from | source_id |
| type | memory_type | | to | target_id |
| ts (epoch seconds) | created_at, updated_at | | kind | relation |
| project_tags | tags | | weight | strength |
| session | session_id | | ts | created_at, last_reinforced |
| meta | metadata | | | |

id, project, repo, agent, why, source, importance, status and confidence keep their names.
v1 adds content_hash (computed), stability (the default of the type and importance) and
kind. The v0 manifest had no record_types. Both functions are pure: same input, same output,
no I/O; bad values pass through for validation to name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_core.exchange.migrations.registry import Migration
from memory_core.model.canonical import iso
from memory_core.model.errors import InvalidRecordError
from memory_core.model.schema import normalise_importance, normalise_memory_type, normalise_relation
from memory_core.model.stability import default_stability
from memory_core.model.values import as_utc, content_hash


def _time(value: Any) -> Any:
    """Epoch seconds as ISO-8601 UTC; anything else unchanged (validation reports it)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return iso(as_utc(value))
    return value


def _stability(memory_type: Any, importance: Any) -> float | None:
    try:
        return default_stability(normalise_memory_type(memory_type),
                                 normalise_importance(importance))
    except (InvalidRecordError, TypeError):
        return None


def _memory(r: Mapping[str, Any]) -> dict[str, Any]:
    text = r.get("text")
    memory_type = r.get("type") or "observation"
    importance = r.get("importance") or "normal"
    created = _time(r.get("ts"))
    return {
        "kind": "memory",
        "id": r.get("id"),
        "content": text,
        "memory_type": memory_type,
        "status": r.get("status") or "active",
        "tenant": r.get("tenant"),
        "project": r.get("project"),
        "repo": r.get("repo"),
        "agent": r.get("agent"),
        "session_id": r.get("session"),
        "tags": r.get("project_tags") or [],
        "why": r.get("why"),
        "source": r.get("source"),
        "created_at": created,
        "updated_at": created,
        "content_hash": content_hash(text) if isinstance(text, str) else None,
        "importance": importance,
        "stability": _stability(memory_type, importance),
        "confidence": r.get("confidence"),
        "access_count": 0,
        "last_accessed_at": None,
        "embedding_status": "pending",
        "metadata": r.get("meta") or {},
    }


def _edge(r: Mapping[str, Any]) -> dict[str, Any]:
    source, target, relation = r.get("from"), r.get("to"), r.get("kind")
    try:
        relation, swap = normalise_relation(relation)  # type: ignore[arg-type]
    except InvalidRecordError:
        swap = False
    if swap:
        source, target = target, source
    created = _time(r.get("ts"))
    return {
        "kind": "edge",
        "id": r.get("id"),
        "tenant": r.get("tenant"),
        "source_id": source,
        "target_id": target,
        "relation": relation,
        "strength": r.get("weight", 1.0),
        "evidence": [],
        "created_at": created,
        "last_reinforced": created,
        "decay_rate": 0.0,
        "status": "active",
        "metadata": {},
    }


def migrate_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A v0 body record as v1 (lines of an unknown `record` type pass through)."""
    converters = {"memory": _memory, "edge": _edge}
    convert = converters.get(record.get("record"))  # type: ignore[arg-type]
    return convert(record) if convert else dict(record)


def migrate_manifest(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A v0 manifest as v1: schema_version 1 and the record types v0 could hold."""
    return {**manifest, "schema_version": 1, "record_types": ["memory", "edge"]}


MIGRATION = Migration(source=0, target=1, record=migrate_record, manifest=migrate_manifest)
