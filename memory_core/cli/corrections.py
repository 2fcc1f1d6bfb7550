"""`memlens correct | cite | events`: corrections, citations and the events table from the
command line (docs/design/records.md for corrections, docs/design/events.md for events).

`correct` writes one audited batch (`memlens undo BATCH` reverts its records; `--dry-run`
previews it) and a `correct` event; `cite` records `cite` events (the decay composite's
citation factor); `events` lists the tenant's recall, cite and correct events, newest first.
Memory ids, queries, notes and actors are untrusted: everything printed goes through `echo`,
values are shortened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.curation_flow import act
from memory_core.cli.impact import impact_options
from memory_core.cli.options import json_option, open_store, refuse_empty, store_options
from memory_core.cli.output import echo, emit_json, shorten
from memory_core.curation.learning import KINDS, VERDICTS
from memory_core.model.schema import EVENT_KINDS

if TYPE_CHECKING:
    from memory_core.model.records import Event

#: Characters of a query or note an event line shows (`--json` has them whole).
TEXT_CHARS = 60


@click.command()
@store_options
@click.argument("memory_id")
@click.option("--verdict", type=click.Choice(tuple(VERDICTS)),
              help="What the memory said was accepted (confidence x1.05, capped at 1), "
                   "modified (x0.95) or rejected (x0.80).")
@click.option("--kind", type=click.Choice(tuple(KINDS)),
              help="How it was corrected: its stability x0.5; superseded, refined and "
                   "merged need --by; deprecated sets its importance to deprecated.")
@click.option("--by", "replacement", callback=refuse_empty("for a correction with no "
                                                          "replacement"),
              help="The id of the memory that replaces it (boosted and linked to it).")
@click.option("--note", callback=refuse_empty("to give no note"),
              help="Why: kept in the audit log and on the event.")
@click.option("--session", "session_id", callback=refuse_empty("for no session"),
              help="The agent session the correction came from (on the event).")
@click.option("--dry-run", is_flag=True, help="Print what would change and write nothing.")
@json_option("Print the report (or with --dry-run the preview) as JSON.")
@impact_options
@click.pass_context
def correct(ctx: click.Context, memory_id: str, verdict: str | None, kind: str | None,
            replacement: str | None, note: str | None, session_id: str | None,
            dry_run: bool, as_json: bool) -> None:
    """Correct memory MEMORY_ID: a --verdict on its confidence, a --kind of correction on its
    stability, or both.

    The status is left as it is (that is `memlens supersede`, `merge` or `archive`).
    Constitutional memories are exempt from the penalties (modified, rejected, the stability
    penalty: the correction is still recorded) and cannot be deprecated until `memlens edit
    --importance` lowers them. The correction is one batch: `memlens undo BATCH` puts the
    records back (the `correct` event stays, and `memlens events` says it was undone).
    """
    from memory_core.curation import correct as correct_memory

    if verdict is None and kind is None:
        raise click.UsageError("give --verdict, --kind or both", ctx=ctx)
    store = open_store(ctx, require_tenant=True)
    act(ctx, store, correct_memory, memory_id, verdict, kind=kind, note=note,
        replacement=replacement, session_id=session_id, yes=True, dry_run=dry_run,
        as_json=as_json)


@click.command()
@store_options
@click.argument("ids", nargs=-1, required=True)
@click.option("--session", "session_id", callback=refuse_empty("for no session"),
              help="The agent session whose answer cited them.")
@click.option("--query", callback=refuse_empty("for no query"),
              help="The question the answer was to.")
@json_option("Print what was recorded as JSON.")
@click.pass_context
def cite(ctx: click.Context, ids: tuple[str, ...], session_id: str | None,
         query: str | None, as_json: bool) -> None:
    """Record that an agent's answer used the memories IDS: one `cite` event each.

    A memory cited in the last 7 days gets the decay composite's citation factor (x1.1).
    Every id must be a memory of the tenant, else nothing is recorded.
    """
    from memory_core.curation import cite as cite_memories

    store = open_store(ctx, require_tenant=True)
    recorded = cite_memories(store, list(ids), session_id=session_id, query=query)
    if as_json:
        emit_json({"cited": recorded, "memory_ids": list(dict.fromkeys(ids)),
                   "session_id": session_id, "query": query})
        return
    echo(f"recorded {recorded} cite event{'s' if recorded != 1 else ''}")


def _number(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, int | float) else "null"


def _detail(event: Event, undone: dict[str, str]) -> str:
    """What an event line says after its memory and actor, by kind."""
    meta = event.metadata
    parts = []
    if event.event_kind == "correct":
        what = [str(meta[k]) for k in ("verdict", "kind") if meta.get(k)]
        if meta.get("replacement"):
            what.append(f"by {meta['replacement']}")
        parts.append(" ".join(what))
        for name in ("confidence", "stability"):
            old, new = meta.get(f"{name}_before"), meta.get(f"{name}_after")
            if old != new:
                parts.append(f"{name} {_number(old)} -> {_number(new)}")
        if meta.get("waived"):
            parts.append(f"waived: {', '.join(map(str, meta['waived']))}")
        if meta.get("note"):
            parts.append(f"note {shorten(str(meta['note']), TEXT_CHARS)!r}")
        batch = str(meta.get("batch_id") or "")
        if batch in undone:
            parts.append(f"undone by batch {undone[batch]}")
    elif event.event_kind == "recall" and "rank" in meta:
        parts.append(f"rank {meta['rank']}")
    if event.session_id:
        parts.append(f"session {shorten(event.session_id, 36)}")
    if event.query:
        parts.append(f"query {shorten(event.query, TEXT_CHARS)!r}")
    return "; ".join(p for p in parts if p)


@click.command()
@store_options
@click.option("--memory", "memory_ids", multiple=True,
              callback=refuse_empty("for every memory"),
              help="Only this memory's events; repeat for several.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(EVENT_KINDS),
              help="Only events of this kind; repeat for several.")
@click.option("--session", "session_id", callback=refuse_empty("for every session"),
              help="Only events of this agent session.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True,
              help="How many events, newest first.")
@json_option("Print the events as JSON (with `undone_by` on undone corrections).")
@click.pass_context
def events(ctx: click.Context, memory_ids: tuple[str, ...], kinds: tuple[str, ...],
           session_id: str | None, limit: int, as_json: bool) -> None:
    """List the tenant's events, newest first: time (UTC), kind (recall, cite, correct),
    memory, actor and what happened (a correction's verdict, kind and values, and whether
    its batch was undone; a recall's rank; the session and query)."""
    from memory_core.curation import undone_batches
    from memory_core.model.canonical import event_doc

    store = open_store(ctx)
    found = store.events.query(memory_ids=list(memory_ids) or None, kinds=kinds,
                         session_id=session_id, limit=limit)
    undone = undone_batches(store) if any(e.event_kind == "correct" for e in found) else {}
    if as_json:
        docs = []
        for e in found:
            doc = event_doc(e)
            doc.pop("kind")
            if e.event_kind == "correct":
                doc["undone_by"] = undone.get(str(e.metadata.get("batch_id")))
            docs.append(doc)
        emit_json(docs)
        return
    for e in found:
        echo(f"{e.at:%Y-%m-%d %H:%M:%S}  {e.event_kind:<7}  {e.memory_id}  "
             f"{shorten(e.actor, 16)}  {_detail(e, undone)}".rstrip())
    echo(f"{len(found)} event{'s' if len(found) != 1 else ''}", err=True)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (correct, cite, events)
