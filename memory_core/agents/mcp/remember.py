"""L3 `remember`: Make_Skills' recorder, with the agent's own model deciding what to keep.

Every argument is checked before anything is written: text sizes, control characters (only
newline and tab are allowed in content and why), the type (one of `MEMORY_TYPES` or an alias),
the importance tier, and each link's relation and target (an id this tenant does not hold is
refused). The memory is embedded by the store (pending when the model is unavailable,
docs/design/embeddings.md) and de-duplicated by content hash; the memory and its links are one write
under the store's lock and journal, audited with the agent as the actor.

A reflection that `consolidates` memories (`remember_reflection`) is one curation batch instead
(`memory_core.curation.consolidate`, method `llm_synthesis`, the client's name/version as the
model): undoable, with a `derived_from` edge to each source.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from memory_core.agents.mcp.session import Caller
from memory_core.model.errors import CurationError, InvalidRecordError
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import (
    IMPORTANCE_TIERS,
    MEMORY_TYPES,
    RELATIONS,
    normalise_importance,
    normalise_memory_type,
    normalise_relation,
)
from memory_core.model.untrusted import shown
from memory_core.model.values import content_hash
from memory_core.store import MemoryStore

MAX_CONTENT_CHARS = 16_000
MAX_WHY_CHARS = 2_000
MAX_NAME_CHARS = 200
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_LINKS = 20
MAX_SOURCES = 50


@dataclass(frozen=True)
class Link:
    """A link the new memory makes: `kind` (a relation) to memory `to`."""

    to: str
    kind: str


def _refused(message: str) -> ToolError:
    return ToolError(f"{message}; nothing was written")


def check_text(name: str, value: str, limit: int, *, multiline: bool) -> str:
    """`value` if it is non-empty, at most `limit` characters and free of control
    characters (newline and tab allowed when `multiline`); else a tool error."""
    if not value.strip():
        raise _refused(f"{name} is empty; give some text")
    if len(value) > limit:
        raise _refused(f"{name} is {len(value):,} characters; the limit is {limit:,}: "
                       f"keep the gist, or split it into several memories")
    allowed = "\n\t" if multiline else ""
    bad = next((c for c in value if c not in allowed
                and unicodedata.category(c) in ("Cc", "Cs")), None)
    if bad is not None:
        where = " other than newline and tab" if multiline else ""
        raise _refused(f"{name} holds the control character U+{ord(bad):04X}; remove "
                       f"control characters{where}")
    return value


def check_type(value: str) -> str:
    """The canonical memory type, if known."""
    try:
        canonical = normalise_memory_type(value)
    except InvalidRecordError:
        canonical = ""
    if canonical not in MEMORY_TYPES:
        raise _refused(f"type {shown(value)} is unknown; use one of: {', '.join(MEMORY_TYPES)}")
    return canonical


def check_importance(value: str) -> str:
    """The canonical importance tier."""
    try:
        return normalise_importance(value)
    except InvalidRecordError:
        raise _refused(f"importance {shown(value)} is unknown; use one of: "
                       f"{', '.join(IMPORTANCE_TIERS)}") from None


def check_tags(tags: Sequence[str] | None) -> tuple[str, ...]:
    """The tags, each a short single line; at most `MAX_TAGS`."""
    if not tags:
        return ()
    if len(tags) > MAX_TAGS:
        raise _refused(f"{len(tags)} tags given; at most {MAX_TAGS}")
    return tuple(dict.fromkeys(check_text("a tag", t, MAX_TAG_CHARS, multiline=False).strip()
                               for t in tags))


def check_links(store: MemoryStore, links: Sequence[Link] | None) -> list[tuple[str, str]]:
    """(target id, relation) of each link, each target a memory of this tenant."""
    if not links:
        return []
    if len(links) > MAX_LINKS:
        raise _refused(f"{len(links)} links given; at most {MAX_LINKS}")
    out = []
    for link in links:
        try:
            relation, _ = normalise_relation(link.kind)
        except InvalidRecordError:
            raise _refused(f"link kind {shown(link.kind)} is unknown; use one of: "
                           f"{', '.join(RELATIONS)}") from None
        out.append((link.to, relation))
    found = store.get_many([to for to, _ in out])
    missing = [to for to, _ in out if to not in found]
    if missing:
        raise _refused(f"no memory with id {shown(missing[0])} to link to (ids come from "
                       f"recall)")
    return out


def remember(store: MemoryStore, caller: Caller, content: str, memory_type: str, *,
             tags: Sequence[str] | None = None, why: str | None = None,
             project: str | None = None, session: str | None = None,
             importance: str = "normal", links: Sequence[Link] | None = None) -> str:
    """Write one memory for `caller` (or find it already held); the answer's text."""
    check_text("content", content, MAX_CONTENT_CHARS, multiline=True)
    mtype = check_type(memory_type)
    tier = check_importance(importance)
    kept_tags = check_tags(tags)
    if why is not None:
        check_text("why", why, MAX_WHY_CHARS, multiline=True)
    for name, value in (("project", project), ("session", session)):
        if value is not None:
            check_text(name, value, MAX_NAME_CHARS, multiline=False)
    with store.writing("remember"):
        targets = check_links(store, links)
        holder = store.keys.holder_of(content_hash(content))
        if holder is not None:
            return (f"already remembered as {holder} (the same content); nothing was "
                    f"written")
        memory = Memory.new(content, mtype, tenant=store.tenant, tags=kept_tags, why=why,
                            project=project, session_id=session or caller.session_id,
                            agent=caller.actor, importance=tier, source="mcp")
        report = store.add([memory], reason=f"remember by {caller.actor}", action="remember")
        if report.duplicates:
            return (f"already remembered as {report.duplicates[0][1]} (the same content); "
                    f"nothing was written")
        if targets:
            store.edges.add([Edge.new(memory.id, to, relation, tenant=store.tenant,
                                      metadata={"made_by": "remember"})
                             for to, relation in targets],
                            reason=f"remember by {caller.actor}")
    linked = f"; linked to {len(targets)}" if targets else ""
    if report.pending:
        return (f"remembered {memory.id} ({mtype}, {tier}){linked}; the embedding model is "
                f"unavailable, so it is stored with its embedding pending: keyword search "
                f"finds it now, vector search once `memlens reembed` runs")
    return f"remembered {memory.id} ({mtype}, {tier}){linked}"


def remember_reflection(store: MemoryStore, caller: Caller, content: str,
                        consolidates: Sequence[str], *, tags: Sequence[str] | None = None,
                        why: str | None = None, project: str | None = None,
                        session: str | None = None, importance: str = "normal") -> str:
    """Write the agent's reflection of the memories `consolidates` (ids from recall or
    consolidation_candidates) as one `consolidate` batch; the answer's text."""
    from memory_core.curation import consolidate

    check_text("content", content, MAX_CONTENT_CHARS, multiline=True)
    if len(consolidates) > MAX_SOURCES:
        raise _refused(f"{len(consolidates)} memories to consolidate; at most {MAX_SOURCES}")
    ids = [check_text("a consolidated id", i, MAX_NAME_CHARS, multiline=False).strip()
           for i in consolidates]
    fields: dict[str, Any] = {"importance": check_importance(importance),
                              "tags": check_tags(tags), "agent": caller.actor,
                              "session_id": session or caller.session_id}
    if why is not None:
        fields["why"] = check_text("why", why, MAX_WHY_CHARS, multiline=True)
    for name, value in (("project", project), ("session", session)):
        if value is not None:
            check_text(name, value, MAX_NAME_CHARS, multiline=False)
    if project is not None:
        fields["project"] = project
    try:
        report = consolidate(store, ids, content, method="llm_synthesis", model=caller.client,
                             reason=f"remember by {caller.actor}", **fields)
    except CurationError as exc:
        raise _refused(str(exc).removesuffix("; nothing was changed")) from exc
    new = report.created[0]
    strength = store.get(new).metadata.get("strength")
    shown_strength = "unknown" if strength is None else f"{strength:.2f}"
    pending = ("; its embedding is pending (the model is unavailable)"
               if any("pending" in note for note in report.notes) else "")
    return (f"remembered {new} (reflection of {len(ids)} memories, strength "
            f"{shown_strength}, linked to each){pending}")
