"""Schema v2 of a memlens store: table names, vocabularies with aliases, `SCHEMA_VERSION`.

The tables and columns are those of docs/design/records.md: `memories` (one table, read
through metadata filters), `edges` (causal and associative links), an append-only `audit`
and, since v2, an append-only `events` table (recall, cite and correct events;
docs/design/events.md). The schema version lives in each table's schema metadata; the
embedding model id and dimension live in the metadata of the `memories.vector` field, so a
model change rewrites that field and nothing else. The columns themselves are the fields of
the record dataclasses (`memory_core.model.records`, read by `memory_core.model.columns`);
`memory_core.model.codec` builds the Arrow schemas from them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory_core.model.errors import InvalidRecordError
from memory_core.model.untrusted import shown

#: v1: memories, edges, audit. v2 adds the `events` table (a v1 store gains it in place when
#: opened with write access; a v1 export imports unchanged: it has no events).
SCHEMA_VERSION = 2

MEMORIES = "memories"
EDGES = "edges"
AUDIT = "audit"
EVENTS = "events"

META_SCHEMA_VERSION = b"memlens.schema_version"
META_MODEL_ID = b"memlens.embedding_model"
META_DIMENSION = b"memlens.embedding_dimension"

#: The table holding each record kind (the kinds of export lines and staged batches).
TABLE_OF_KIND: dict[str, str] = {
    "memory": MEMORIES, "edge": EDGES, "audit": AUDIT, "event": EVENTS,
}

#: The columns an update matches rows on, in every table. memlens keeps ids unique across the
#: store, but rows that agents wrote into LanceDB themselves may repeat an id in two tenants:
#: matching on the id alone would overwrite the other tenant's row.
ROW_KEY: list[str] = ["tenant", "id"]

DEFAULT_TENANT = "default"

#: Known memory types, by the source system that introduced them (docs/design/records.md).
#: The vocabulary is open: an unknown type is stored as given (normalised), a known alias is
#: mapped onto its canonical name.
MEMORY_TYPES: tuple[str, ...] = (
    # herd
    "session_summary", "decision_context", "pattern", "preference", "thread",
    # Make_Skills
    "decision", "lesson", "skill_idea", "topic", "fact",
    # HADES
    "observation", "reflection", "learning", "event", "principle", "insight",
    # superagents
    "identity",
)
MEMORY_TYPE_ALIASES: dict[str, str] = {
    "summary": "session_summary",
    "session": "session_summary",
    "hdr": "decision_context",
    "adr": "decision_context",
    "decision_record": "decision_context",
    "obs": "observation",
    "pref": "preference",
    "skill": "skill_idea",
}

STATUSES: tuple[str, ...] = ("active", "archived", "superseded")
STATUS_ALIASES: dict[str, str] = {"live": "active", "archive": "archived"}

#: Importance tiers, strongest first; each has a decay tier anchor (docs/design/decay.md).
IMPORTANCE_TIERS: tuple[str, ...] = (
    "constitutional", "critical", "important", "normal", "temporary", "deprecated",
)
IMPORTANCE_ALIASES: dict[str, str] = {
    "core": "constitutional",
    "high": "important",
    "medium": "normal",
    "low": "temporary",
}

EMBEDDING_STATUSES: tuple[str, ...] = ("ok", "pending", "failed")

#: Edge relations: the six causal ones (ADR-004 in docs/design/seeds.md), then HADES's
#: associative ones (docs/design/records.md).
RELATIONS: tuple[str, ...] = (
    "caused", "enabled", "supersedes", "contradicts", "derived_from", "supports",
    "uses", "relates_to", "improves",
)
RELATION_ALIASES: dict[str, str] = {
    "causes": "caused",
    "cause": "caused",
    "enables": "enabled",
    "conflicts_with": "contradicts",
    "contradicts_with": "contradicts",
    "consolidates": "derived_from",
    "derives_from": "derived_from",
    "superseded_by": "supersedes",  # caller must swap direction; see normalise_relation
    "related_to": "relates_to",
    "relates": "relates_to",
    "supported_by": "supports",
}

#: Event kinds (docs/design/events.md): a memory was returned by `recall`, an agent's answer
#: cited it (`cite`: the citation factor of the decay composite), or someone corrected it.
EVENT_KINDS: tuple[str, ...] = ("recall", "cite", "correct")

SOURCES: tuple[str, ...] = ("user_statement", "agent_inference", "code_analysis", "transcript")


@lru_cache(maxsize=4096)  # a handful of values, normalised for every record of an import
def _key(value: str) -> str:
    return re.sub(r"[\s\-]+", "_", value.strip().lower())


def normalise_memory_type(value: str) -> str:
    """Canonical memory type: lower-case, underscores, aliases mapped; unknown types allowed.

    >>> normalise_memory_type("Decision Record")
    'decision_context'
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecordError(
            f"memory_type must be a non-empty string, got {shown(value)}; "
            f"known types: {', '.join(MEMORY_TYPES)}"
        )
    key = _key(value)
    return MEMORY_TYPE_ALIASES.get(key, key)


def _closed(value: str, kind: str, known: tuple[str, ...], aliases: dict[str, str]) -> str:
    key = _key(value) if isinstance(value, str) else ""
    key = aliases.get(key, key)
    if key not in known:
        raise InvalidRecordError(f"unknown {kind} {shown(value)}; use one of: {', '.join(known)}")
    return key


def normalise_status(value: str) -> str:
    """Canonical status (active, archived, superseded); anything else is an error."""
    return _closed(value, "status", STATUSES, STATUS_ALIASES)


def normalise_importance(value: str) -> str:
    """Canonical importance tier; anything else is an error naming the tiers."""
    return _closed(value, "importance", IMPORTANCE_TIERS, IMPORTANCE_ALIASES)


def normalise_embedding_status(value: str) -> str:
    """Canonical embedding status (ok, pending, failed)."""
    return _closed(value, "embedding_status", EMBEDDING_STATUSES, {})


def normalise_relation(value: str) -> tuple[str, bool]:
    """Canonical relation and whether source and target must be swapped.

    `superseded_by` points the other way from `supersedes`, so it maps onto it reversed.

    >>> normalise_relation("conflicts_with")
    ('contradicts', False)
    >>> normalise_relation("superseded_by")
    ('supersedes', True)
    """
    key = _key(value) if isinstance(value, str) else ""
    swap = key == "superseded_by"
    return _closed(value, "relation", RELATIONS, RELATION_ALIASES), swap


def normalise_event_kind(value: str) -> str:
    """Canonical event kind (recall, cite, correct); anything else is an error."""
    return _closed(value, "event kind", EVENT_KINDS, {})
