"""`memlens decay at-risk | show | impact | what-if`: the decay analytics from the command
line (docs/design/decay.md, docs/design/events.md), thin over `memory_core.decay.analysis`.

Every command reads at one decay clock (`--as-of`, now by default) and writes nothing.
Memory content is untrusted: everything printed goes through `echo`, content is shortened;
`--json` prints the rows whole (a day count of "never" is null there).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.options import (
    PRESET_CHOICE,
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    ranking_of,
    store_options,
)
from memory_core.cli.output import echo, emit_json, shorten
from memory_core.decay.analysis.model import DEFAULT_THRESHOLD

if TYPE_CHECKING:
    import polars as pl

    from memory_core.decay.analysis import Timeline, WhatIf

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

#: Characters of content a line shows.
CONTENT_CHARS = 50


def _as_of(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime | None:
    """`--as-of`: an ISO date (midnight UTC) or time, within the dates memlens accepts
    (`memory_core.model.date_range`); None for now."""
    from memory_core.model.date_range import user_time

    return None if value is None else user_time(value, "--as-of")


def _clock_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--as-of", callback=_as_of, metavar="DATE",
                        help="The decay clock: an ISO date or time, UTC, 1900-01-01 to "
                             "9000-12-31 (default: now).")(fn)


def _threshold_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--threshold", type=click.FloatRange(min=0, min_open=True),
                        default=DEFAULT_THRESHOLD, show_default=True,
                        help="A memory is at risk when its decay composite falls below "
                             "this.")(fn)


def _filter(filters: dict[str, Any]) -> Any:
    return filter_from_options(filters) if any(filters.values()) else None


def _plain(value: Any) -> Any:
    """A frame cell for JSON: infinite day counts ("never") as null."""
    if isinstance(value, float) and math.isinf(value):
        return None
    return value


def _records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dicts()]


def _content(text: str) -> str:
    lines = text.strip().splitlines()
    return shorten(lines[0], CONTENT_CHARS) if lines else ""


def _days(value: float) -> str:
    return "never" if math.isinf(value) else f"{value:.1f} d"


@click.group()
def decay() -> None:
    """Decay analytics: what is about to fade, why one memory decays as it does, what decay
    does to a query's ranking, and what other decay parameters would change."""


@decay.command(name="at-risk")
@store_options
@click.option("--within", "within_days", type=click.FloatRange(min=0), default=30,
              show_default=True, help="Days ahead: memories that fall below within them.")
@_threshold_option
@_clock_options
@click.option("--limit", type=click.IntRange(min=1), help="At most this many (default: all).")
@filter_options(status_default="active")
@json_option("Print the rows (every decay factor) as JSON.")
@click.pass_context
def at_risk(ctx: click.Context, within_days: float, threshold: float, as_of: datetime | None,
            limit: int | None, as_json: bool, **filters: Any) -> None:
    """The memories whose decay composite falls below --threshold within --within days if
    nobody recalls them, most important first (tier, then confidence, then sooner).
    Constitutional memories never decay, so never appear."""
    from memory_core.decay.analysis import at_risk as find_at_risk

    store = open_store(ctx, require_tenant=True)
    frame = find_at_risk(store, threshold=threshold, within_days=within_days,
                         filter=_filter(filters), as_of=as_of, limit=limit)
    if as_json:
        emit_json(_records(frame))
        return
    for row in frame.iter_rows(named=True):
        when = row["falls_below_on"]
        echo(f"{row['id']}  {row['importance']:<10} {shorten(row['memory_type'], 16):<16} "
             f"{row['composite']:.3f}  below in {_days(row['days_to_threshold']):>8}"
             f"{f' ({when:%Y-%m-%d})' if when else ''}  {_content(row['content'])}")
    n = frame.height
    echo(f"{n} memor{'y' if n == 1 else 'ies'} at risk within {within_days:g} days "
         f"(threshold {threshold:g})", err=True)


def _print_factors(row: dict[str, Any], as_of: datetime, threshold: float) -> None:
    echo(f"{row['id']}  {row['memory_type']}  {row['importance']}  [{row['status']}]  "
         f"{_content(row['content'])}")
    if row["never_decays"]:
        echo(f"decay at {as_of:%Y-%m-%d %H:%M} UTC: constitutional, never decays "
             f"(composite 1)")
        return
    echo(f"decay at {as_of:%Y-%m-%d %H:%M} UTC: composite {row['composite']:.4f} = "
         f"R {row['retrievability']:.4f} x usage {row['usage']:.4f} x anchor "
         f"{row['anchor']:.2f} x citation {row['citation']:.2f}")
    cited = row["cited_at"]
    echo(f"  S {row['stability']:.4g} days; t {row['days_since']:.1f} days since its last "
         f"access (or creation); {row['access_count']} recalls; last cited "
         f"{f'{cited:%Y-%m-%d}' if cited else 'never'}")
    when = row["falls_below_on"]
    echo(f"  below {threshold:g} in {_days(row['days_to_threshold'])}"
         f"{f' (on {when:%Y-%m-%d})' if when else ''} if nobody recalls it")


def _print_timeline(timeline: Timeline) -> None:
    echo(f"timeline ({len(timeline.events)} events, oldest first):")
    for e in timeline.events:
        reset = "  (resets the clock)" if e.resets else ""
        echo(f"  {e.at:%Y-%m-%d %H:%M:%S}  {e.kind:<8} {shorten(e.actor or '-', 16):<16} "
             f"{shorten(e.detail.replace(chr(10), ' '), 80)}{reset}")


@decay.command()
@store_options
@click.argument("memory_id")
@_threshold_option
@_clock_options
@json_option("Print the factors and the timeline's events as JSON.")
@click.pass_context
def show(ctx: click.Context, memory_id: str, threshold: float, as_of: datetime | None,
         as_json: bool) -> None:
    """One memory's decay: each factor of its composite at the clock, when it falls below
    --threshold, and its timeline (created, recalls, cites, corrections, edges, status
    changes, edits), oldest first."""
    from dataclasses import asdict

    from memory_core.decay.analysis import decay_frame, memory_timeline
    from memory_core.model.filters import Filter
    from memory_core.model.schema import STATUSES
    from memory_core.model.values import utcnow

    store = open_store(ctx, require_tenant=True)
    store.get(memory_id)  # an unknown id: one clear error
    clock = as_of or utcnow()
    frame = decay_frame(store, Filter(ids=[memory_id], status=STATUSES), as_of=clock,
                        threshold=threshold)
    timeline = memory_timeline(store, memory_id, as_of=clock)
    [row] = _records(frame) if as_json else frame.to_dicts()
    if as_json:
        emit_json({"as_of": clock, "threshold": threshold, "factors": row,
                   "events": [asdict(e) for e in timeline.events]})
        return
    _print_factors(row, clock, threshold)
    _print_timeline(timeline)


@decay.command()
@store_options
@click.argument("query")
@click.option("--preset", "preset_name", type=PRESET_CHOICE,
              help="The ranking to compare with decay on and off (default: the analytics' "
                   "own).")
@click.option("--limit", type=click.IntRange(1, 100), default=10, show_default=True)
@_clock_options
@filter_options(status_default="active")
@json_option("Print both rankings, row by row, as JSON.")
@click.pass_context
def impact(ctx: click.Context, query: str, preset_name: str | None, limit: int,
           as_of: datetime | None, as_json: bool, **filters: Any) -> None:
    """QUERY ranked with and without decay (the same ranking otherwise): each memory's rank
    both ways, the shift (positive: decay moved it up), its composite and the factor that
    moved it most."""
    from memory_core.decay.analysis import decay_impact

    config = ranking_of(preset_name, None) if preset_name else None
    store = open_store(ctx, require_tenant=True)
    result = decay_impact(store, query, config, filter=_filter(filters), as_of=as_of,
                          limit=limit)
    if as_json:
        emit_json({"query": query, "as_of": result.as_of,
                   "rows": _records(result.to_frame())})
        return
    echo(f"{'with':>4} {'w/o':>4} {'shift':>5}  {'composite':>9}  {'moved by':<14} memory")
    for r in result.rows:
        shift = "" if r.shift is None else f"{r.shift:+d}"
        echo(f"{r.rank_with or '-':>4} {r.rank_without or '-':>4} {shift:>5}  "
             f"{r.composite:>9.4f}  {r.main_factor:<14} {r.id}  {_content(r.content)}")


def _knob(flag: str, name: str, help: str) -> Decorator:
    return click.option(flag, name, type=float, help=help)


#: The what-if knobs: (flag, DecayParams field, help).
KNOBS: tuple[tuple[str, str, str], ...] = (
    ("--stability-scale", "stability_scale", "Every memory's stability times this (> 0)."),
    ("--usage-cap", "usage_cap", "The usage factor's cap (default 1.5)."),
    ("--usage-coefficient", "usage_coefficient", "The usage factor's coefficient (0.1)."),
    ("--fsrs-factor", "fsrs_factor", "The FSRS constant in R(t, S) (0.235)."),
    ("--citation-boost", "citation_boost", "The citation factor (1.1)."),
    ("--citation-days", "citation_days", "How long a cite counts, in days (7)."),
)


def _knobs(fn: Callable[..., Any]) -> Callable[..., Any]:
    for flag, name, help in reversed(KNOBS):
        fn = _knob(flag, name, help)(fn)
    return fn


def _print_what_if(result: WhatIf) -> None:
    echo(f"{result.memories} memories; below {result.threshold:g} at "
         f"{result.as_of:%Y-%m-%d} + days, current -> what-if (change):")
    rows: dict[str, list[str]] = {}
    for r in result.frame.iter_rows(named=True):
        rows.setdefault(r["group"], []).append(
            f"{r['horizon']:>3} d: {r['below_a']:>5} -> {r['below_b']:<5} ({r['delta']:+d})")
    width = max((len(g) for g in rows), default=0)
    for group, cells in rows.items():
        echo(f"  {shorten(group, 40):<{min(width, 40)}}  {'   '.join(cells)}")


@decay.command(name="what-if")
@store_options
@_knobs
@_threshold_option
@click.option("--horizon", "horizons", type=click.IntRange(min=0), multiple=True,
              help="Days after the clock to count at; repeat (default 0, 30 and 90).")
@_clock_options
@filter_options(status_default="active")
@json_option("Print the counts per group and horizon as JSON.")
@click.pass_context
def what_if(ctx: click.Context, threshold: float, horizons: tuple[int, ...],
            as_of: datetime | None, as_json: bool, **options: Any) -> None:
    """How many memories are below --threshold now and after each horizon, with the current
    decay parameters and with the ones given (e.g. --stability-scale 0.5 --usage-cap 1.2),
    overall, per memory type and per importance tier; nobody recalls them meanwhile."""
    from memory_core.decay import DecayParams
    from memory_core.decay.analysis import DEFAULT_HORIZONS
    from memory_core.decay.analysis import what_if as compare

    knobs = {name: options.pop(name) for _, name, _ in KNOBS
             if options.get(name) is not None}
    for _, name, _ in KNOBS:
        options.pop(name, None)
    if not knobs:
        raise click.UsageError("give at least one parameter to change, e.g. "
                               "--stability-scale 0.5", ctx=ctx)
    store = open_store(ctx, require_tenant=True)
    result = compare(store, DecayParams(), DecayParams(**knobs), threshold=threshold,
                     horizons=horizons or DEFAULT_HORIZONS, filter=_filter(options),
                     as_of=as_of)
    if as_json:
        emit_json({"as_of": result.as_of, "threshold": result.threshold,
                   "memories": result.memories, "what_if": knobs,
                   "rows": _records(result.frame)})
        return
    _print_what_if(result)


#: What `memory_core.cli` registers from this family (the `decay` group holds the rest).
COMMANDS: tuple[click.Command, ...] = (decay,)
