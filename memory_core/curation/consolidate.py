"""`consolidate`: a reflection written from several memories, as one curation batch.

The batch creates a `reflection` memory whose metadata says how it was made (`method`:
manual, rule_based or llm_synthesis, and the `model` for the last), how many sources it has
(`source_count`), how well they support it (`strength`, `memory_core.consolidation.strength`
over the sources' cohesion) and which sources at which content (`sources`: id and content
hash, so a later change to one is seen: `memory_core.consolidation.evidence`), plus one
`derived_from` edge from the reflection to each source (HADES's `consolidates`). The
sources may be archived in the same batch. Previewed with `dry_run`, confirmed with
`expect=`, audited and undone like every other curation action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from memory_core.consolidation.cohesion import cohesion
from memory_core.consolidation.strength import strength
from memory_core.curation.actions import _as_tags, _embedded
from memory_core.curation.batch import run
from memory_core.curation.plan import Plan, select
from memory_core.curation.report import CurationReport
from memory_core.model.errors import CurationError
from memory_core.model.filters import sql_string
from memory_core.model.records import Edge, Memory
from memory_core.model.untrusted import shown
from memory_core.model.values import content_hash, utcnow
from memory_core.store import MemoryStore

#: How a reflection was written (HADES's `method`).
METHODS = ("manual", "rule_based", "llm_synthesis")
#: Fields of the new reflection a caller may set (the rest are the batch's own).
FIELDS = ("tags", "why", "project", "repo", "agent", "session_id", "importance")
#: The fewest sources a reflection consolidates.
MIN_SOURCES = 2


def _check(members: Sequence[str], content: str, method: str, model: str | None,
           fields: dict[str, Any]) -> list[str]:
    """The member ids, once each, in order; every argument that makes no reflection is
    one clear error, before anything is read."""
    if isinstance(members, str):
        members = [members]
    ids = list(dict.fromkeys(members))
    if len(ids) < MIN_SOURCES:
        raise CurationError(f"a reflection consolidates at least {MIN_SOURCES} memories; "
                            f"{len(ids)} {'was' if len(ids) == 1 else 'were'} given: "
                            f"select more sources")
    if not isinstance(content, str) or not content.strip():
        raise CurationError("the reflection's content is empty; write what the sources "
                            "show together")
    if method not in METHODS:
        raise CurationError(f"unknown consolidation method {shown(method)}; use one of: "
                            f"{', '.join(METHODS)}")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise CurationError("the model name is empty; give it or leave it out")
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise CurationError(f"a reflection cannot be given {shown(unknown[0])}; settable "
                            f"fields: {', '.join(FIELDS)}")
    if "tags" in fields:
        fields["tags"] = _as_tags(fields["tags"])
    return ids


def _refuse_held(store: MemoryStore, content: str) -> None:
    """Refuse content a memory of the tenant (any status) holds already. One filtered scan
    of the hash column, not `store.keys.holder_of`: that key index is read again in full
    after every curation write, which would be most of a consolidate's cost."""
    where = (f"tenant = {sql_string(store.tenant)} AND "
             f"content_hash = {sql_string(content_hash(content))}")
    holders = sorted(store.bulk.scan(["id"], where)["id"].to_pylist())
    if holders:
        raise CurationError(f"memory {shown(holders[0])} already holds this content; that "
                            f"memory is the reflection already: link it instead")


def _common(sources: Sequence[Memory], name: str) -> Any:
    """The value every source has for field `name`, else None."""
    values = {getattr(m, name) for m in sources}
    return values.pop() if len(values) == 1 else None


def support(sources: Sequence[Memory]) -> tuple[float | None, float | None]:
    """(cohesion, strength) of `sources`: the cohesion of the vectors they have (pending
    embeddings left out), the strength over all of them; (None, None) when none has a
    vector."""
    found = cohesion([m.vector for m in sources if m.vector is not None])
    if found is None:
        return None, None
    return found, strength(len(sources), found)


def reflection_metadata(sources: Sequence[Memory], method: str, model: str | None,
                        candidate_id: str | None, *, archived: bool = False
                        ) -> dict[str, Any]:
    """What the reflection's metadata records of how it was made and from what."""
    found, strong = support(sources)
    metadata: dict[str, Any] = {
        "method": method, "source_count": len(sources),
        "strength": None if strong is None else round(strong, 6),
        "cohesion": None if found is None else round(found, 6),
        "sources": [{"id": m.id, "content_hash": m.content_hash} for m in sources]}
    if model is not None:
        metadata["model"] = model.strip()
    if candidate_id is not None:
        metadata["candidate"] = candidate_id
    if archived:  # the sources' archived status is this batch's own, not a later change
        metadata["sources_archived"] = True
    return metadata


def consolidate(store: MemoryStore, members: Sequence[str], content: str, *,
                archive_sources: bool = False, method: str = "manual",
                model: str | None = None, candidate_id: str | None = None,
                reason: str | None = None, dry_run: bool = False,
                expect: CurationReport | None = None, **fields: Any) -> CurationReport:
    """Write `content` as a reflection consolidating `members` (at least two active
    memories of this tenant): a `reflection` memory (embedded; pending when the embedder is
    unavailable) with metadata {method, source_count, strength, cohesion, sources: [{id,
    content_hash}], model when given, candidate when given} and a `derived_from` edge from it
    to each member; `archive_sources` archives the members in the same batch (and the
    metadata says `sources_archived`). `fields` set the reflection's tags, why, project,
    repo, agent, session_id or importance (project and repo default to the members' own
    when they all share one; why to `reason`).

    >>> consolidate(store, ["m1", "m2"], "Deploys fail when the flag is off")  # doctest: +SKIP
    """
    ids = _check(members, content, method, model, fields)

    def build() -> Plan:
        chosen = select(store, ids, what="consolidate")
        inactive = [m for m in chosen.values() if m.status != "active"]
        if inactive:
            raise CurationError(f"memory {shown(inactive[0].id)} is {inactive[0].status}; a "
                                f"reflection consolidates active memories: restore it or "
                                f"leave it out")
        _refuse_held(store, content)
        sources = list(chosen.values())
        plan = Plan("consolidate", ids)
        for memory in sources:
            plan.keep(memory)
        base: dict[str, Any] = {name: _common(sources, name)
                                for name in ("project", "repo")}
        base.update(fields)
        base.setdefault("why", reason)
        # confirming a preview creates the reflection the preview showed, same id
        same = expect.created[0] if expect is not None and expect.created else None
        reflection = _embedded(store, Memory.new(
            content, "reflection", tenant=store.tenant, id=same, source="curation",
            metadata=reflection_metadata(sources, method, model, candidate_id,
                                         archived=archive_sources), **base),
            dry_run=dry_run)
        plan.after[reflection.id] = reflection
        if reflection.embedding_status != "ok" and not dry_run:
            plan.notes.append("the embedder is unavailable: the reflection is pending until "
                              "`memlens reembed`")
        strong = reflection.metadata["strength"]
        plan.notes.append(f"reflection of {len(sources)} memories ({method}); strength "
                          + ("unknown: the sources' embeddings are pending" if strong is None
                             else f"{strong:.3f}"))
        for memory in sources:
            edge = Edge.new(reflection.id, memory.id, "derived_from", tenant=store.tenant,
                            metadata={"made_by": "consolidate"})
            plan.edges_after[edge.id] = edge
        if archive_sources:
            now = utcnow()
            for memory in sources:
                plan.after[memory.id] = replace(memory, status="archived", updated_at=now)
            plan.notes.append(f"the {len(sources)} sources are archived: they leave search "
                              f"and recall; the reflection stands for them")
        return plan

    return run(store, "consolidate", build, dry_run=dry_run, reason=reason, expect=expect)
