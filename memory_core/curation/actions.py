"""The curation actions: edit, archive, restore, supersede, merge and delete.

docs/design/curation.md describes them.

Each validates everything before writing, writes in few commits under one `batch_id`
(`memory_core.curation.batch`), and returns a `CurationReport`; `dry_run=True` returns the same
report without writing (the page's preview and the CLI's `--dry-run`). Given the preview it
confirms (`expect=`), an action refuses when the memories changed since. Undo:
`memory_core.curation.undo`; a purge: `delete(..., purge=True)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from memory_core.curation.batch import run
from memory_core.curation.lineage import with_derived_ids
from memory_core.curation.plan import Plan, Selection, select
from memory_core.curation.purge import PURGE_NOTE, finish_purge, verify_purged
from memory_core.curation.report import CurationReport
from memory_core.model.errors import CurationError, EmbedderUnavailableError
from memory_core.model.records import Edge, Memory
from memory_core.model.untrusted import shown
from memory_core.model.values import content_hash, utcnow
from memory_core.store import MemoryStore

#: Fields `edit` may change (status has its own actions; ids, times and counts are kept).
EDITABLE = ("content", "memory_type", "importance", "tags", "why", "project", "repo", "agent",
            "session_id", "source", "metadata", "confidence", "stability")


def _embedded(store: MemoryStore, memory: Memory, *, dry_run: bool) -> Memory:
    """`memory` with a vector for its content (pending when the embedder is unavailable);
    a preview does not embed."""
    if dry_run:
        return replace(memory, vector=None, embedding_status="pending")
    try:
        vector = store.embedder.embed([memory.content])[0]
    except EmbedderUnavailableError:
        return replace(memory, vector=None, embedding_status="pending")
    return replace(memory, vector=tuple(float(x) for x in vector), embedding_status="ok")


def _refuse_duplicate(store: MemoryStore, content: str, *, own: str | None, hint: str) -> None:
    holder = store.keys.holder_of(content_hash(content))
    if holder is not None and holder != own:
        raise CurationError(f"memory {shown(holder)} already holds this content; {hint}")


def _as_tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(value)
    raise CurationError(f"tags must be a list of text, not {shown(value)}")


def edit(store: MemoryStore, memory_id: str, *, allow_duplicate: bool = False,
         reason: str | None = None, dry_run: bool = False,
         expect: CurationReport | None = None, **fields: Any) -> CurationReport:
    """Change fields of one memory (`EDITABLE`). A content change re-embeds the memory and
    updates its content hash; content another memory already holds is refused unless
    `allow_duplicate`."""
    unknown = sorted(set(fields) - set(EDITABLE))
    if unknown:
        raise CurationError(f"cannot edit {shown(unknown[0])}; editable fields: "
                            f"{', '.join(EDITABLE)}")
    if not fields:
        raise CurationError("nothing to edit: give at least one field to change")
    if "tags" in fields:
        fields["tags"] = _as_tags(fields["tags"])
    if "metadata" in fields and not isinstance(fields["metadata"], Mapping):
        raise CurationError("metadata must be a JSON object")

    def build() -> Plan:
        plan = Plan("edit", [memory_id])
        old = select(store, [memory_id], what="edit")[memory_id]
        plan.keep(old)
        new = old.with_changes(**fields)
        if new.content != old.content:
            if not allow_duplicate:
                _refuse_duplicate(store, new.content, own=old.id,
                                  hint="merge the two instead, or allow a duplicate")
            new = _embedded(store, new, dry_run=dry_run)
            if dry_run:
                plan.notes.append("the new content will be embedded again")
            elif new.embedding_status == "ok":
                plan.notes.append("the new content is embedded again")
            else:
                plan.notes.append("the embedder is unavailable: the memory is pending "
                                  "until `memlens reembed`")
        if replace(new, updated_at=old.updated_at) != old:
            plan.after[old.id] = replace(new, updated_at=utcnow())
        else:
            plan.notes.append("every field already has that value")
        return plan

    return run(store, "edit", build, dry_run=dry_run, reason=reason, expect=expect)


def _set_status(store: MemoryStore, action: str, selection: Selection, to: str,
                from_: Sequence[str], *, reason: str | None, dry_run: bool,
                expect: CurationReport | None) -> CurationReport:
    def build() -> Plan:
        chosen = select(store, selection, what=action)
        plan = Plan(action, list(chosen))
        now, skipped = utcnow(), 0
        for memory in chosen.values():
            plan.keep(memory)
            if memory.status in from_:
                plan.after[memory.id] = replace(memory, status=to, updated_at=now)
            else:
                skipped += 1
        if skipped:
            plan.notes.append(f"{skipped} already {to if to != 'active' else 'active'}: "
                              f"left as they are")
        return plan

    return run(store, action, build, dry_run=dry_run, reason=reason, expect=expect)


def archive(store: MemoryStore, selection: Selection, *, reason: str | None = None,
            dry_run: bool = False, expect: CurationReport | None = None) -> CurationReport:
    """Archive memories: they leave search and recall (which read active memories) and stay
    listed in curation and exports; `restore` brings them back."""
    return _set_status(store, "archive", selection, "archived", ("active", "superseded"),
                       reason=reason, dry_run=dry_run, expect=expect)


def restore(store: MemoryStore, selection: Selection, *, reason: str | None = None,
            dry_run: bool = False, expect: CurationReport | None = None) -> CurationReport:
    """Make archived (or superseded) memories active again; their edges are kept."""
    return _set_status(store, "restore", selection, "active", ("archived", "superseded"),
                       reason=reason, dry_run=dry_run, expect=expect)


def _successors(store: MemoryStore, memory_id: str) -> list[str]:
    return sorted(e.source_id for e in store.changes.edges_touching([memory_id])
                  if e.relation == "supersedes" and e.target_id == memory_id
                  and e.status == "active")


def supersede(store: MemoryStore, old_id: str, *, content: str | None = None,
              by: str | None = None, reason: str | None = None, dry_run: bool = False,
              expect: CurationReport | None = None, **fields: Any) -> CurationReport:
    """Replace a memory: a new one (`content`, with the old one's type, project, agent and
    tags unless `fields` say otherwise) or an existing one (`by`) supersedes it; the old one
    becomes `superseded`, linked by a `supersedes` edge from its successor."""
    if (content is None) == (by is None):
        raise CurationError("supersede needs either new content or the id of the memory "
                            "that replaces it (--content or --by), not both")
    if by is not None and by == old_id:
        raise CurationError(f"memory {shown(old_id)} cannot supersede itself")

    def build() -> Plan:
        ids = [old_id] if by is None else [old_id, by]
        chosen = select(store, ids, what="supersede")
        old = chosen[old_id]
        plan = Plan("supersede", ids)
        plan.keep(old)
        if old.status == "superseded":
            later = _successors(store, old.id)
            raise CurationError(f"memory {shown(old.id)} is already superseded"
                                + (f" by {shown(later[0])}" if later else "")
                                + "; supersede its successor instead")
        if by is not None:
            new = chosen[by]
            if new.status != "active":
                raise CurationError(f"memory {shown(by)} is {new.status}; restore it before "
                                    f"it can supersede another")
            plan.keep(new)
        else:
            assert content is not None
            _refuse_duplicate(store, content, own=None,
                              hint="supersede with --by that memory's id instead")
            base: dict[str, Any] = {
                    "memory_type": old.memory_type, "project": old.project, "repo": old.repo,
                    "agent": old.agent, "session_id": old.session_id, "tags": old.tags,
                    "importance": old.importance, "why": reason, "source": "curation"}
            base.update(fields)
            # confirming a preview creates the memory the preview showed, same id
            same = expect.created[0] if expect is not None and expect.created else None
            new = _embedded(store, Memory.new(content, tenant=store.tenant, id=same, **base),
                            dry_run=dry_run)
            plan.after[new.id] = new
        for edge in store.changes.edges_touching([old.id]):
            plan.keep_edge(edge)
        exists = any(e.relation == "supersedes" and e.source_id == new.id
                     and e.target_id == old.id for e in plan.edges_before.values())
        if not exists:
            edge = Edge.new(new.id, old.id, "supersedes", tenant=store.tenant,
                            evidence=[reason] if reason else None,
                            metadata={"made_by": "supersede"})
            plan.edges_after[edge.id] = edge
        plan.after[old.id] = replace(old, status="superseded", updated_at=utcnow())
        return plan

    return run(store, "supersede", build, dry_run=dry_run, reason=reason, expect=expect)


def merge(store: MemoryStore, ids: Sequence[str], survivor: str, *,
          reason: str | None = None, dry_run: bool = False,
          expect: CurationReport | None = None) -> CurationReport:
    """Fold near-duplicates into `survivor`: tags and metadata unioned (the survivor's values
    win), access counts summed, the others' edges moved to the survivor (no duplicate edges,
    no self loops), and the others `superseded` by the survivor."""
    return merge_many(store, [(ids, survivor)], reason=reason, dry_run=dry_run, expect=expect)


def merge_many(store: MemoryStore, groups: Sequence[tuple[Sequence[str], str]], *,
               reason: str | None = None, dry_run: bool = False,
               expect: CurationReport | None = None) -> CurationReport:
    """Several merges (`(ids, survivor)` each, as `merge` takes them) as one batch: the
    near-duplicates queue merges its pairs in one step and one undo."""
    mapping: dict[str, str] = {}
    survivors: list[str] = []
    for ids, survivor in groups:
        others = [i for i in dict.fromkeys(ids) if i != survivor]
        if not others:
            raise CurationError("a merge needs at least one memory besides the survivor")
        for memory_id in [survivor, *others]:
            if memory_id in mapping or memory_id in survivors:
                raise CurationError(f"memory {shown(memory_id)} is in two merges at once; "
                                    f"merge each memory once")
        survivors.append(survivor)
        mapping.update({other: survivor for other in others})
    if not survivors:
        raise CurationError("no merge was given; nothing to merge")

    def build() -> Plan:
        chosen = select(store, [*survivors, *mapping], what="merge")
        plan = Plan("merge", list(chosen))
        for memory in chosen.values():
            plan.keep(memory)
        now = utcnow()
        for survivor in survivors:
            keep = chosen[survivor]
            if keep.status != "active":
                raise CurationError(f"the survivor {shown(survivor)} is {keep.status}; "
                                    f"restore it first or merge into an active memory")
            gone = [chosen[i] for i, s in mapping.items() if s == survivor]
            plan.after[survivor] = _merged(keep, gone, now)
            for memory in gone:
                plan.after[memory.id] = replace(memory, status="superseded", updated_at=now)
        _move_edges(store, plan, mapping, reason)
        return plan

    return run(store, "merge", build, dry_run=dry_run, reason=reason, expect=expect)


def _merged(keep: Memory, gone: list[Memory], now: datetime) -> Memory:
    """The survivor with the others' tags, metadata and access counts folded in."""
    tags = list(dict.fromkeys([*keep.tags, *(t for m in gone for t in m.tags)]))
    metadata: dict[str, Any] = {}
    for memory in reversed(gone):
        metadata.update(memory.metadata)
    metadata.update(keep.metadata)
    metadata["merged_from"] = list(dict.fromkeys([*keep.metadata.get("merged_from", []),
                                                  *(m.id for m in gone)]))
    accessed = [m.last_accessed_at for m in (keep, *gone) if m.last_accessed_at]
    return replace(keep, tags=tuple(tags), metadata=metadata, updated_at=now,
                   access_count=keep.access_count + sum(m.access_count for m in gone),
                   last_accessed_at=max(accessed) if accessed else None)


def _move_edges(store: MemoryStore, plan: Plan, mapping: dict[str, str],
                reason: str | None) -> None:
    """Re-point the merged memories' edges at their survivors, dropping self loops and
    duplicates, and link each survivor to its others by `supersedes`."""
    edges = store.changes.edges_touching([*dict.fromkeys(mapping.values()), *mapping])
    for edge in edges:
        plan.keep_edge(edge)
    keys = {(e.source_id, e.target_id, e.relation) for e in edges
            if e.source_id not in mapping and e.target_id not in mapping}
    for edge in edges:
        if edge.source_id not in mapping and edge.target_id not in mapping:
            continue
        source = mapping.get(edge.source_id, edge.source_id)
        target = mapping.get(edge.target_id, edge.target_id)
        key = (source, target, edge.relation)
        if source == target or key in keys:
            del plan.edges_after[edge.id]  # a self loop or a duplicate once moved
            continue
        keys.add(key)
        plan.edges_after[edge.id] = replace(edge, source_id=source, target_id=target)
    for other, survivor in sorted(mapping.items()):
        if (survivor, other, "supersedes") in keys:
            continue
        link = Edge.new(survivor, other, "supersedes", tenant=store.tenant,
                        evidence=[reason] if reason else None, metadata={"made_by": "merge"})
        plan.edges_after[link.id] = link


def delete(store: MemoryStore, selection: Selection, *, purge: bool = False,
           with_derived: Sequence[str] | bool = False,
           reason: str | None = None, dry_run: bool = False,
           expect: CurationReport | None = None, verify: bool = True) -> CurationReport:
    """Delete memories and their edges.

    Without `purge` the rows leave the current version only: `undo` puts them back from the
    version history. With `purge=True` the content is really gone, and this cannot be undone:
    the rows are deleted, the audit's copies of them become tombstones (id, content hash,
    who, when, why), recall sessions and cached maps forget them, the full-text index is
    rebuilt and **every older version of the store's tables is removed from disk** (so no
    earlier change can be undone either). The report carries a `verify_deleted` result.
    Copies outside the store (export files, backups) are not touched.

    `with_derived` follows lineage (`memory_core.curation.lineage.derived_closure`): True
    takes every memory derived from the selection, a list of ids the ones of them to take (the
    others stay as they are); they go in the same batch, so one purge (or one undo) covers all.
    `verify=False` leaves out the `verify_deleted` run after a purge (an impact preview purges
    a scratch copy it removes afterwards, and reads retrieval only).
    """
    action = "purge" if purge else "delete"

    def build() -> Plan:
        chosen = select(store, selection, what=action)
        derived = with_derived_ids(store, list(chosen), with_derived)
        if derived:
            chosen.update(select(store, derived, what=action))
        plan = Plan(action, list(chosen), purge=purge)
        plan.before.update(chosen)
        for edge in store.changes.edges_touching(list(chosen)):
            plan.edges_before[edge.id] = edge
        if with_derived is not False:
            plan.notes.append(f"derived memories taken along: {len(derived)}")
        if purge:
            plan.notes.append(PURGE_NOTE)
        else:
            plan.notes.append("undo brings them back (from the store's version history)")
        return plan

    purged: list[Memory] = []

    def finish(plan: Plan, batch_id: str) -> None:
        purged.extend(plan.before.values())
        finish_purge(store, plan, batch_id)
        # the cached maps hold the purged memories' text and vectors (`ProjectionCache`)
        from memory_core.projection.cache import ProjectionCache

        maps = ProjectionCache.default().forget(store.uri, list(plan.before))
        plan.notes.append(f"cached maps removed: {len(maps)}")

    report = run(store, action, build, dry_run=dry_run, reason=reason, expect=expect,
                 after_write=finish if purge else None)
    if purged and verify:
        report = replace(report, verification=verify_purged(store, purged))
    return report
