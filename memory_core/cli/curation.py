"""`memlens edit | archive | restore | supersede | merge | delete | undo | audit |
verify-deleted`: curation, previewed, confirmed and undoable (docs/design/curation.md).

Every write is previewed first (the engine's `dry_run`): `--dry-run` prints the preview and
stops, otherwise it is printed and confirmed (a purge by typing the number of memories) unless
`--yes`, then applied with `expect=` the preview, so a memory changed in between is refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.curation_flow import act, fail_if_leaked, print_checks, write_options
from memory_core.cli.options import (
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    refuse_empty,
    store_options,
)
from memory_core.cli.output import echo, emit_json, shorten
from memory_core.model.untrusted import shown
from memory_core.store.disk_full import on_full_disk, table_bytes

if TYPE_CHECKING:
    from datetime import datetime

    from memory_core.curation import Selection

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

def _selection(ctx: click.Context, ids: tuple[str, ...], filters: dict[str, Any],
               status: str) -> Selection:
    """The ids given, or the filter options (with no --status: `status` only)."""
    chosen = any(filters.values())
    if ids and chosen:
        raise click.UsageError("give memory ids or filter options, not both", ctx=ctx)
    if ids:
        return list(ids)
    if not chosen:
        raise click.UsageError("give memory ids or filter options (e.g. --project P) to say "
                               "which memories", ctx=ctx)
    return filter_from_options({**filters, "status": filters.get("status") or (status,)})


# -- the writes ----------------------------------------------------------------------------

def _text(flag: str, help: str, name: str | None = None) -> Decorator:
    """An edit option; an empty value is refused (to clear a field is not offered)."""
    names = (flag, name) if name else (flag,)
    return click.option(*names, callback=refuse_empty("to leave the field as it is"),
                        help=help)


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"is not JSON ({exc.msg}): {shown(text)}",
                                 param_hint="--metadata") from exc
    if not isinstance(value, dict):
        raise click.BadParameter(f"must be a JSON object, got {shown(text)}",
                                 param_hint="--metadata")
    return value


@click.command()
@store_options
@click.argument("memory_id")
@_text("--content", "New content (embedded again).")
@click.option("--tag", "tags", multiple=True, callback=refuse_empty("to keep the tags"),
              help="A tag; repeat for more. Replaces the memory's tags.")
@_text("--type", "Memory type (open vocabulary; aliases are mapped).", "memory_type")
@_text("--importance", "constitutional, critical, important, normal, temporary, "
                       "deprecated.")
@_text("--why", "One-line rationale.")
@_text("--project", "Project.")
@_text("--repo", "Repository.")
@_text("--agent", "Agent.")
@_text("--session", "Session id.", "session_id")
@_text("--source", "user_statement, agent_inference, code_analysis, transcript, ...")
@_text("--metadata", "A JSON object; replaces the metadata.")
@click.option("--confidence", type=float, help="Confidence, 0 to 1.")
@click.option("--stability", type=float, help="Stability (decay), in days.")
@click.option("--allow-duplicate", is_flag=True,
              help="Accept content that another memory already holds.")
@write_options
@click.pass_context
def edit(ctx: click.Context, memory_id: str, tags: tuple[str, ...], metadata: str | None,
         allow_duplicate: bool, reason: str | None, dry_run: bool, yes: bool, as_json: bool,
         **fields: Any) -> None:
    """Change fields of memory MEMORY_ID; a new content is embedded again.

    Content another memory already holds is refused unless --allow-duplicate.
    """
    from memory_core.curation import edit as edit_memory

    changes = {name: value for name, value in fields.items() if value is not None}
    if tags:
        changes["tags"] = list(tags)
    if metadata is not None:
        changes["metadata"] = _json_object(metadata)
    store = open_store(ctx, require_tenant=True)
    act(ctx, store, edit_memory, memory_id, allow_duplicate=allow_duplicate, reason=reason,
         yes=yes, dry_run=dry_run, as_json=as_json, **changes)


def _status_command(name: str, status: str, doc: str) -> click.Command:
    @click.command(name=name, help=doc)
    @store_options
    @click.argument("ids", nargs=-1)
    @filter_options(status_default=status)
    @write_options
    @click.pass_context
    def command(ctx: click.Context, ids: tuple[str, ...], reason: str | None, dry_run: bool,
                yes: bool, as_json: bool, **filters: Any) -> None:
        from memory_core import curation

        selection = _selection(ctx, ids, filters, status)
        store = open_store(ctx, require_tenant=True)
        # An update rewrites the rows it changes: at most the memories table again.
        with on_full_disk(store.uri, f"`memlens {name}`", f"nothing was {name}d",
                          lambda: table_bytes(store.uri, "memories")):
            act(ctx, store, getattr(curation, name), selection, reason=reason, yes=yes,
                 dry_run=dry_run, as_json=as_json)

    return command


archive = _status_command("archive", "active", """Archive memories: the IDS, or those the
    filter options select (active ones unless --status says otherwise).

    Archived memories leave search and recall and stay listed; `memlens restore` brings
    them back.""")

restore = _status_command("restore", "archived", """Make archived (or superseded) memories
    active again: the IDS, or those the filter options select (archived ones unless
    --status says otherwise).""")


@click.command()
@store_options
@click.argument("old_id")
@click.option("--content", callback=refuse_empty("and give --by instead"),
              help="The content of a new memory that replaces OLD_ID.")
@click.option("--by", "by", callback=refuse_empty("and give --content instead"),
              help="The id of an existing memory that replaces OLD_ID.")
@write_options
@click.pass_context
def supersede(ctx: click.Context, old_id: str, content: str | None, by: str | None,
              reason: str | None, dry_run: bool, yes: bool, as_json: bool) -> None:
    """Replace memory OLD_ID by new content (--content) or another memory (--by).

    OLD_ID becomes superseded, linked by a `supersedes` edge from its successor; a new
    memory keeps OLD_ID's type, project, agent and tags.
    """
    from memory_core.curation import supersede as supersede_memory

    if (content is None) == (by is None):
        raise click.UsageError("give --content or --by, not both or neither", ctx=ctx)
    store = open_store(ctx, require_tenant=True)
    act(ctx, store, supersede_memory, old_id, content=content, by=by, reason=reason,
         yes=yes, dry_run=dry_run, as_json=as_json)


@click.command()
@store_options
@click.argument("ids", nargs=-1, required=True)
@click.option("--into", "survivor", required=True, help="The memory that stays.")
@write_options
@click.pass_context
def merge(ctx: click.Context, ids: tuple[str, ...], survivor: str, reason: str | None,
          dry_run: bool, yes: bool, as_json: bool) -> None:
    """Merge the memories IDS into the one given by --into.

    Tags and metadata are unioned (the survivor's values win), access counts summed, edges
    moved to the survivor (no duplicates, no self loops), and the others superseded by it.
    """
    from memory_core.curation import merge as merge_memories

    store = open_store(ctx, require_tenant=True)
    act(ctx, store, merge_memories, list(ids), survivor, reason=reason, yes=yes,
         dry_run=dry_run, as_json=as_json)


@click.command()
@store_options
@click.argument("ids", nargs=-1)
@filter_options(status_default="active")
@click.option("--purge", is_flag=True,
              help="Remove the content for good: from every table version on disk, the "
                   "indexes, the audit copies and recall sessions. Cannot be undone, and no "
                   "earlier change can be undone afterwards.")
@click.option("--with-derived", is_flag=True,
              help="Also delete every memory derived from them (the closure over "
                   "derived_from: reflections, summaries, insights), listed with the path "
                   "that makes each derived; in the same batch.")
@click.option("--keep", "keep", multiple=True, metavar="ID",
              help="With --with-derived: leave this derived memory as it is; repeat for more.")
@click.option("--receipt", "receipt", metavar="FILE",
              help="With --purge: write the deletion receipt (ids, content hashes, checks, "
                   "times; no content) to FILE, a new file. A --with-derived purge writes "
                   "one by default: memlens-receipt-<batch id>.json in the current folder.")
@click.option("--no-receipt", is_flag=True, help="Write no receipt.")
@write_options
@click.pass_context
def delete(ctx: click.Context, ids: tuple[str, ...], purge: bool, with_derived: bool,
           keep: tuple[str, ...], receipt: str | None, no_receipt: bool, reason: str | None,
           dry_run: bool, yes: bool, as_json: bool, **filters: Any) -> None:
    """Delete memories and their edges: the IDS, or those the filter options select
    (active ones unless --status says otherwise).

    Without --purge the rows leave the current version and `memlens undo` brings them
    back. With --purge they are gone from the store for good and verified to be (the checks
    are printed, exit code 1 if one failed); copies outside the store, such as export files
    or backups, are not touched. --with-derived takes along what was derived from them,
    listed first with each one's path (--keep ID leaves one out); a purge then writes a
    receipt that `memlens verify-deleted --receipt FILE` checks again later.
    """
    from memory_core.cli.curation_lineage import (
        lineage_of,
        print_lineage,
        receipt_target,
        receipt_writer,
    )
    from memory_core.curation import delete as delete_memories

    if keep and not with_derived:
        raise click.UsageError("--keep leaves out a derived memory: give --with-derived too",
                               ctx=ctx)
    if (receipt or no_receipt) and not purge:
        raise click.UsageError("a receipt records a purge: give --purge too", ctx=ctx)
    if receipt and no_receipt:
        raise click.UsageError("give --receipt FILE or --no-receipt, not both", ctx=ctx)
    selection = _selection(ctx, ids, filters, "active")
    store = open_store(ctx, require_tenant=True)
    lineage = lineage_of(ctx, store, selection, keep) if with_derived else None
    if lineage is not None:
        print_lineage(store, lineage, verb="purge" if purge else "delete", err=as_json)
    wanted = purge and not no_receipt and (receipt is not None or with_derived)
    target = receipt_target(receipt, wanted=wanted) if wanted and not dry_run else None
    derived: list[str] | bool = lineage.taken if lineage is not None else False
    act(ctx, store, delete_memories, selection, purge=purge, with_derived=derived,
         reason=reason, yes=yes, dry_run=dry_run, as_json=as_json,
         done=receipt_writer(store, lineage, target, err=as_json) if wanted else None)


@click.command()
@store_options
@click.argument("batch_id")
@write_options
@click.pass_context
def undo(ctx: click.Context, batch_id: str, reason: str | None, dry_run: bool, yes: bool,
         as_json: bool) -> None:
    """Reverse the curation batch BATCH_ID (ids: `memlens audit`).

    Refused for a purge, and when a later change touched the same memories (undo that one
    first). The undo is a batch of its own, so it can be undone in turn.
    """
    from memory_core.curation import undo as undo_batch

    store = open_store(ctx)  # the batch may have deleted the tenant's last memories
    act(ctx, store, undo_batch, batch_id, reason=reason, yes=yes, dry_run=dry_run,
         as_json=as_json, expect=False)


# -- reading the log and checking deletions ------------------------------------------------

def _when(end: bool) -> Callable[[click.Context, click.Parameter, str | None], Any]:
    """An ISO date or time option as UTC; a date alone as `--until` means through that day."""
    def parse(ctx: click.Context, param: click.Parameter, value: str | None
              ) -> datetime | None:
        from memory_core.model.date_range import user_time

        if value is None:
            return None
        when = user_time(value, param.opts[0])
        try:
            date.fromisoformat(value.strip())
        except ValueError:
            return when  # a time
        return when + timedelta(days=1) if end and when else when

    return parse


@click.command()
@store_options
@click.option("--since", callback=_when(end=False), help="At or after (ISO date or time).")
@click.option("--until", callback=_when(end=True),
              help="Before (ISO time); a date alone includes that day.")
@click.option("--actor", callback=refuse_empty("for every actor"), help="Who wrote it.")
@click.option("--action", callback=refuse_empty("for every action"),
              help="edit, archive, restore, supersede, merge, delete, purge, undo, add, ...")
@click.option("--memory", "memory_id", callback=refuse_empty("for every memory"),
              help="Only batches that touched this memory.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True,
              help="How many batches, newest first.")
@json_option("Print the batches with their audit rows as JSON.")
@click.pass_context
def audit(ctx: click.Context, since: datetime | None, until: datetime | None,
          actor: str | None, action: str | None, memory_id: str | None, limit: int,
          as_json: bool) -> None:
    """List the audit log as batches, newest first: time (UTC), action, actor, batch id
    (`-`: not undoable by id), memories touched and reason."""
    from memory_core.curation import audit_batches

    store = open_store(ctx)
    batches = audit_batches(store, since=since, until=until, actor=actor, action=action,
                            memory_id=memory_id, limit=limit)
    if as_json:
        emit_json([b.to_dict() for b in batches])
        return
    for b in batches:
        why = shorten((b.reason or "").replace("\n", " "), 60)
        echo(f"{b.at:%Y-%m-%d %H:%M:%S}  {shorten(b.action, 10):<10} "
             f"{shorten(b.actor, 16):<16} {b.batch_id or '-':<36} "
             f"{len(b.memory_ids):>6}  {why}")
    echo(f"{len(batches)} batch{'es' if len(batches) != 1 else ''}", err=True)


@click.command(name="verify-deleted")
@store_options
@click.argument("ids", nargs=-1)
@click.option("--receipt", "receipt", metavar="FILE",
              help="Check again the memories of a deletion receipt (`delete --purge "
                   "--receipt`): refused when the file was altered or is of another tenant "
                   "or store.")
@json_option("Print the checks as JSON.")
@click.pass_context
def verify_deleted(ctx: click.Context, ids: tuple[str, ...], receipt: str | None,
                   as_json: bool) -> None:
    """Check that the deleted memories IDS (or those of a --receipt) are gone from every
    place they could come back from: the live table, vector, BM25 and graph search, recall
    and its sessions, a fresh export and (after a purge) every table version and file on
    disk.

    Exit code 1 when a check failed.
    """
    from memory_core.curation import verify_deleted as verify

    if bool(ids) == bool(receipt):
        raise click.UsageError("give memory ids or --receipt FILE (one of them)", ctx=ctx)
    store = open_store(ctx)  # the tenant may have no memory left
    if receipt:
        from memory_core.cli.curation_lineage import print_receipt_check
        from memory_core.curation.receipt import verify_receipt

        check = verify_receipt(store, receipt)
        emit_json(check.to_dict()) if as_json else print_receipt_check(check)
        fail_if_leaked(ctx, check.verification)
        return
    verification = verify(store, list(ids))
    if as_json:
        emit_json(verification.to_dict())
    else:
        print_checks(verification)
    fail_if_leaked(ctx, verification)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (edit, archive, restore, supersede, merge, delete, undo,
                                       audit, verify_deleted)
