"""The flow every curation command shares: preview, print, confirm, apply, print again.

`act` runs an engine action as a preview first (its `dry_run`): `--dry-run` prints it and
stops; otherwise it is printed and confirmed (a purge by typing the number of memories)
unless `--yes`, then applied with `expect=` the preview, so a memory changed in between is
refused. Everything printed goes through `echo` (terminal-safe); values are shortened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.impact import impact_options
from memory_core.cli.options import json_option, refuse_empty
from memory_core.cli.output import echo, emit_json, memory_line
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    from memory_core.curation import CurationReport, Verification
    from memory_core.model.records import Memory
    from memory_core.store import MemoryStore


#: How many memories (and edges) a printed report details; `--json` has them all.
SHOWN = 20
#: Characters of a field value a diff line shows.
VALUE_CHARS = 60
#: Fields a diff line leaves to `--json`: the hash follows the content shown above it.
UNSHOWN = frozenset({"content_hash"})


# -- output --------------------------------------------------------------------------------


def write_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--reason`, `--dry-run`, `--yes`, `--json` and `--impact` of every curation write."""
    fn = impact_options(fn)
    fn = json_option("Print the report (or with --dry-run the preview) as JSON.")(fn)
    fn = click.option("--yes", "-y", is_flag=True, help="Do not ask before writing.")(fn)
    fn = click.option("--dry-run", is_flag=True,
                      help="Print what would change and write nothing.")(fn)
    return click.option("--reason", callback=refuse_empty("to give no reason"),
                        help="Why: kept in the audit log.")(fn)

def _print_report(report: CurationReport, rows: dict[str, Memory], *, err: bool = False,
                  skip_notes: tuple[str, ...] = ()) -> None:
    """The summary, then per memory its field diffs, created and deleted ids, edges, notes."""
    echo(report.summary(), err=err)
    gone = "purged" if report.action == "purge" else "deleted"
    new = "back" if report.action == "undo" else "created"
    for memory_id in report.memory_ids[:SHOWN]:
        for c in report.changed_fields(memory_id):
            if c.field in UNSHOWN:
                continue
            echo(f"  {memory_id}  {c.field}: {shown(c.before, VALUE_CHARS)} -> "
                 f"{shown(c.after, VALUE_CHARS)}", err=err)
        if memory_id in report.created:
            echo(f"  {memory_id}  {new}", err=err)
        if memory_id in report.deleted:
            row = rows.get(memory_id)
            echo(f"  {gone}: {memory_line(row, 50) if row else memory_id}", err=err)
    _more(len(report.memory_ids), "memories", err)
    for e in report.edges[:SHOWN]:
        what = {"added": e.after, "removed": e.before}.get(e.change, f"{e.before} => {e.after}")
        echo(f"  edge {e.edge_id}  {e.change}: {what}", err=err)
    _more(len(report.edges), "edges", err)
    for note in report.notes:
        if note not in skip_notes:
            echo(f"  note: {note}", err=err)


def _more(total: int, what: str, err: bool) -> None:
    if total > SHOWN:
        echo(f"  … and {total - SHOWN} more {what} (--dry-run --json lists them all)", err=err)


def print_checks(verification: Verification) -> None:
    for c in verification.checks:
        echo(f"  {c.status:<4}  {c.name:<22}  {c.detail}")
    failed = len(verification.failures)
    echo(f"verification {'passed' if verification.passed else f'FAILED ({failed} checks)'} "
         f"for {len(verification.memory_ids)} memor"
         f"{'y' if len(verification.memory_ids) == 1 else 'ies'}")


def fail_if_leaked(ctx: click.Context, verification: Verification | None) -> None:
    """Exit 1 when a check failed, so scripts notice a memory that could come back."""
    if verification is not None and not verification.passed:
        first = verification.failures[0]
        echo(f"Error: {first.name}: {first.detail}", err=True)
        ctx.exit(1)


# -- the preview, confirm, apply flow ------------------------------------------------------

def _confirm(preview: CurationReport, *, err: bool) -> None:
    """Ask before writing: yes/no, or for a purge the number of memories typed out."""
    from memory_core.curation import PURGE_NOTE

    n = preview.count
    if preview.action != "purge":
        click.confirm(f"{preview.action} {n} memor{'y' if n == 1 else 'ies'}?", abort=True,
                      err=err)
        return
    echo(f"warning: {PURGE_NOTE}", err=True)
    typed = click.prompt(f"type {n} (the number of memories) to purge them", default="",
                         show_default=False, err=err)
    if typed.strip() != str(n):
        raise click.ClickException(f"you typed {shown(typed)}, not {n}: nothing was purged")


def act(ctx: click.Context, store: MemoryStore, action: Callable[..., CurationReport],
         *args: Any, yes: bool, dry_run: bool, as_json: bool, expect: bool = True,
         done: Callable[[CurationReport], None] | None = None, **kwargs: Any) -> None:
    """Preview `action`; print it and stop (`dry_run`), or confirm, apply and print
    (`done(report)` runs once it is applied, before its verification decides the exit
    code: a purge's receipt records a failed check too). With `--impact` (the command's
    `impact_options`) print its impact preview instead and stop."""
    from memory_core.cli.impact import impact_wanted, show_impact
    from memory_core.curation import PURGE_NOTE

    if impact_wanted(ctx):  # a preview of the batch's effect on retrieval: nothing written
        show_impact(ctx, store, action.__name__, *args, as_json=as_json, **kwargs)
        return
    if not dry_run:  # refuse before showing a preview and asking
        name = "purge" if kwargs.get("purge") else action.__name__
        store.check_writable(name, hint="--dry-run previews it")
    preview = action(store, *args, dry_run=True, **kwargs)
    rows = store.get_many(list(preview.deleted[:SHOWN])) if preview.deleted else {}
    if dry_run:
        emit_json(preview.to_dict()) if as_json else _print_report(preview, rows)
        return
    asked = not yes and bool(preview.memory_ids or preview.edges)  # else the engine refuses
    if asked:
        _print_report(preview, rows, err=as_json, skip_notes=(PURGE_NOTE,))
        _confirm(preview, err=as_json)
    if expect:
        kwargs["expect"] = preview
    report = action(store, *args, **kwargs)
    if as_json:
        emit_json(report.to_dict())
    elif asked:  # the diffs were just shown
        echo(report.summary())
        for note in report.notes[len(preview.notes):]:
            echo(f"  note: {note}")
    else:
        _print_report(report, rows)
    if not as_json and report.batch_id and not report.purged:
        echo(f"undo it with: memlens undo {report.batch_id}")
    if done is not None:
        done(report)
    if report.verification is not None:
        if not as_json:
            print_checks(report.verification)
        fail_if_leaked(ctx, report.verification)
