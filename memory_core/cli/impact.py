"""`--impact` on the curation commands: what the batch would do to retrieval, measured on a
scratch copy (`memory_core.impact_preview.measure`), printed before anything is written.

`--impact` is a preview, like `--dry-run`: it prints the batch's summary, the metrics table
(recall@k, nDCG@10, MRR before and after, the paired test's p-value, wins/ties/losses) and
the queries whose top k changed, each lost, gained or reordered memory with why; it writes
nothing, and goes with no `--yes`. Apply the batch by running the command again without it.
The queries are `--impact-queries FILE`, else the store's saved query set, else its recent
recalls. Everything printed goes through `echo` (terminal-safe); values are shortened.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.output import echo, emit_json, print_table, progress_bar, shorten
from memory_core.cli.query_sets import QuerySetPath

if TYPE_CHECKING:
    from memory_core.impact_preview.changes import Moved
    from memory_core.impact_preview.measure import ImpactReport
    from memory_core.store import MemoryStore

#: The options `impact_options` adds, as they reach `ctx.params`.
PARAMS = ("impact", "impact_queries", "impact_k")
#: How many changed queries, and moves per query, the printout details (`--json`: all).
SHOWN_QUERIES = 20
SHOWN_MOVES = 10


def impact_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--impact`, `--impact-queries FILE` and `--impact-k K` on a curation command; the
    command's function does not see them (`impact_wanted(ctx)` reads them)."""

    @functools.wraps(fn)
    def command(*args: Any, **kwargs: Any) -> Any:
        for name in PARAMS:
            kwargs.pop(name, None)
        return fn(*args, **kwargs)

    command = click.option("--impact-k", "impact_k", type=click.IntRange(min=1), default=10,
                           show_default=True, help="With --impact: the cut-off of recall "
                           "and of the results compared.")(command)
    command = click.option("--impact-queries", "impact_queries", metavar="FILE|demo",
                           type=QuerySetPath(),
                           help="With --impact: measure with this query set (`demo`: the "
                                "demo corpus'; default the store's saved one, else its recent "
                                "recalls).")(command)
    return click.option("--impact", "impact", is_flag=True,
                        help="Preview what the batch does to retrieval (metrics before and "
                             "after, changed queries and why) and write nothing.")(command)


def impact_wanted(ctx: click.Context) -> bool:
    """Whether the command was asked for an impact preview (refusing `--yes` with it)."""
    params = ctx.params
    if not params.get("impact"):
        if params.get("impact_queries") is not None:
            raise click.UsageError("--impact-queries goes with --impact", ctx=ctx)
        return False
    if params.get("yes"):
        raise click.UsageError("--impact is a preview and writes nothing: leave out --yes "
                               "(run the command again without --impact to apply it)",
                               ctx=ctx)
    return True


def run_impact(ctx: click.Context, store: MemoryStore, action: str, *args: Any,
               **kwargs: Any) -> ImpactReport:
    """`impact(store, action, *args, **kwargs)` with the command's --impact-queries and
    --impact-k, under a progress bar."""
    from memory_core.impact_preview.measure import impact, impact_steps
    from memory_core.impact_preview.queries import impact_queries

    chosen = impact_queries(store, ctx.params.get("impact_queries"))
    with progress_bar("impact preview", total=impact_steps(len(chosen.queries)),
                      unit="step") as bar:
        return impact(store, action, *args, queries=chosen, k=ctx.params.get("impact_k", 10),
                      progress=bar, **kwargs)


def show_impact(ctx: click.Context, store: MemoryStore, action: str, *args: Any,
                as_json: bool, **kwargs: Any) -> ImpactReport:
    """Run the impact preview and print it (or its JSON: {"preview", "impact"})."""
    report = run_impact(ctx, store, action, *args, **kwargs)
    if as_json:
        doc = report.to_dict()
        emit_json({"preview": doc.pop("batch"), "impact": doc})
    else:
        print_impact(report)
    return report


def _move(sign: str, m: Moved) -> str:
    where = (f"#{m.before}" if m.after is None else f"#{m.after}" if m.before is None
             else f"#{m.before} -> #{m.after}")
    return f"    {sign} {shorten(m.memory_id, 40)}  {where}  {shorten(m.why, 90)}"


def print_impact(report: ImpactReport) -> None:
    """The batch's summary, the metrics table and the changed queries (escaped)."""
    echo(report.batch.summary())
    for note in report.batch.notes:
        echo(f"  note: {note}")
    echo(f"\nimpact on retrieval: {report.queries.describe()}; {report.stat_test} test, "
         f"* p < {report.comparison.alpha:g}")
    rows = [["metric", "before", "after", "delta", "p-value", "W/T/L (after)"]]
    for r in report.rows():
        p = "n/a" if r["p_value"] is None else f"{r['p_value']:.4f}"
        rows.append([r["metric"], f"{r['before']:.3f}", f"{r['after']:.3f}",
                     f"{r['delta']:+.3f}", f"{p} {r['marker'] or ' '}",
                     f"{r['wins']}/{r['ties']}/{r['losses']}"])
    print_table(rows, {1, 2, 3, 4, 5})
    for note in report.notes:
        echo(f"note: {note}")
    changes = report.changes
    echo(f"\n{len(changes)} of {len(report.queries.queries)} queries change their top "
         f"{report.k}" + (":" if changes else "; this batch changes no query's results"))
    ndcg = report.metrics[1]
    for change in changes[:SHOWN_QUERIES]:
        echo(f"  {shorten(change.qid, 40)}  {ndcg} {change.deltas[ndcg]:+.3f}  "
             f"{shorten(change.query, 70)}")
        moves = ([_move("-", m) for m in change.lost] + [_move("+", m) for m in change.gained]
                 + [_move("~", m) for m in change.moved])
        for line in moves[:SHOWN_MOVES]:
            echo(line)
        if len(moves) > SHOWN_MOVES:
            echo(f"    … and {len(moves) - SHOWN_MOVES} more (--json lists them all)")
    if len(changes) > SHOWN_QUERIES:
        echo(f"  … and {len(changes) - SHOWN_QUERIES} more queries (--json lists them all)")
    echo("nothing was written (an impact preview); run the command without --impact to "
         "apply it")
