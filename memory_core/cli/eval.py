"""`memlens eval`: retrieval quality of one ranking config, or two compared, on a query set."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.options import (
    PRESET_CHOICE,
    default_ranking,
    json_option,
    open_store,
    parse_as_of,
    pick_ranking,
    refuse_empty,
    store_options,
)
from memory_core.cli.output import echo, emit_json, print_table, progress_bar, shorten
from memory_core.cli.query_sets import QUERY_SET_HELP, QuerySetPath
from memory_core.evaluation.compare import STAT_TESTS
from memory_core.model.untrusted import for_terminal, shown
from memory_core.retrieval.config import DEFAULT_PRESET

#: How many warned-about queries `memlens eval` names on stderr (`--json` has them all).
NAMED_WARNINGS = 10

if TYPE_CHECKING:
    from memory_core.evaluation import Comparison, EvalResult, QueryWarning
    from memory_core.evaluation.queryset import Query
    from memory_core.retrieval.config import RankingConfig
    from memory_core.store import MemoryStore


@dataclass(frozen=True)
class _Report:
    """How to score and print a run: the options every kind of `memlens eval` shares."""

    ks: tuple[int, ...]
    stat_test: str
    alpha: float
    worst: int
    as_of: datetime | None
    as_json: bool


def _parse_ks(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(f"expected whole numbers separated by commas, got {shown(value)}",
                                 ctx=ctx, param=param) from None
    if not ks or min(ks) < 1:
        raise click.BadParameter(f"cut-offs must be >= 1, got {shown(value)}", ctx=ctx, param=param)
    return tuple(sorted(set(ks)))


def _print_result(result: EvalResult) -> None:
    rows = [["metric", result.name, "95% CI"]]
    for r in result.summary.iter_rows(named=True):
        ci = f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]" if r["ci_low"] is not None else ""
        rows.append([r["metric"], f"{r['mean']:.3f}", ci])
    print_table(rows, {1})
    tags = result.by_tag.filter(result.by_tag["metric"] == result.primary)
    if tags.height:
        echo(f"\nby tag ({result.primary}):")
        print_table([["tag", "n", result.name]] + [
            [for_terminal(t["tag"]), str(t["n"]), f"{t['mean']:.3f}"]
            for t in tags.iter_rows(named=True)], {1, 2}, indent="  ")


def _print_comparison(cmp: Comparison, worst: int) -> None:
    a, b = cmp.names
    rows = [["metric", a, b, "delta", "p-value", f"W/T/L ({b})"]]
    for r in cmp.summary.iter_rows(named=True):
        p = "n/a" if r["p_value"] is None else f"{r['p_value']:.4f}"
        rows.append([r["metric"], f"{r['baseline']:.3f}", f"{r['candidate']:.3f}",
                     f"{r['delta']:+.3f}", f"{p} {r['marker'] or ' '}",
                     f"{r['wins']}/{r['ties']}/{r['losses']}"])
    print_table(rows, {1, 2, 3, 4, 5})
    regressions = cmp.worst(worst)
    if worst:
        echo(f"\nworst regressions on {cmp.primary} ({regressions.height}):")
        for r in regressions.iter_rows(named=True):
            echo(f"  {for_terminal(shorten(r['qid'], 40))}  {r['delta']:+.3f}  "
                       f"{for_terminal(shorten(r['query'], 70))}")
    tags = cmp.by_tag.filter(cmp.by_tag["metric"] == cmp.primary)
    if tags.height:
        echo(f"\nby tag ({cmp.primary}, worst first):")
        print_table([["tag", "n", a, b, "delta"]] + [
            [for_terminal(t["tag"]), str(t["n"]), f"{t['baseline']:.3f}",
             f"{t['candidate']:.3f}",
             f"{t['delta']:+.3f}"] for t in tags.iter_rows(named=True)],
            {1, 2, 3, 4}, indent="  ")


def _warnings(results: list[EvalResult]) -> tuple[QueryWarning, ...]:
    """The query warnings of every result as one list (a shared one once)."""
    from memory_core.evaluation.query_warnings import merge_warnings

    return merge_warnings([(r.name, r.warnings) for r in results],
                          order=[q.qid for q in results[0].queries])


def _warn(results: list[EvalResult]) -> None:
    """Print on stderr why search ran degraded, and every query that retrieved nothing or
    has no relevant memory in the tenant (the first `NAMED_WARNINGS`, then how many more)."""
    for result in results:
        reasons = result.run.reasons
        for reason in reasons[:3]:  # reasons can differ per query (counts): a few suffice
            echo(f"degraded ({result.name}): {for_terminal(reason)}", err=True)
        if len(reasons) > 3:
            echo(f"degraded ({result.name}): ... and {len(reasons) - 3} more reasons "
                       f"(see --json)", err=True)
    warnings = _warnings(results)
    if not warnings:
        return
    queries = len(dict.fromkeys(w.qid for w in warnings))
    # a filter or relevant ids this tenant lacks usually mean a set made for another store
    elsewhere = any(w.reason or w.kind == "unreachable" for w in warnings)
    echo(f"warning: {queries} of {len(results[0].queries)} queries retrieved nothing "
               f"or have no relevant memory in the tenant, so they score 0"
               + ("; is the query set made for this store and tenant?" if elsewhere else ":"),
               err=True)
    for w in warnings[:NAMED_WARNINGS]:
        only = (f" (under {' and '.join(map(for_terminal, w.configs))} only)"
                if len(w.configs) < len(results) else "")
        echo(f"  {w.message}{only}", err=True)
    if len(warnings) > NAMED_WARNINGS:
        echo(f"  ... and {len(warnings) - NAMED_WARNINGS} more (--json lists them all)",
                   err=True)


def _compare_models(store: MemoryStore, queries: list[Query], base: tuple[str, RankingConfig],
                    model: str, report: _Report) -> None:
    """The store's model against `model` under one config (embedder drift)."""
    import time

    from memory_core.embedding import load_embedder
    from memory_core.evaluation import evaluate_embedders
    from memory_core.model.config import Settings
    from memory_core.model.filters import Filter
    from memory_core.model.schema import STATUSES

    other = load_embedder(Settings.from_env(embed_model=model))
    started = time.perf_counter()
    total = store.count(Filter(status=list(STATUSES))) + 2 * len(queries)
    with progress_bar(f"re-embedding for {model}, then evaluating", total=total) as bar:
        cmp = evaluate_embedders(store, queries, base[1], None, other, ks=report.ks,
                                 stat_test=report.stat_test, alpha=report.alpha,
                                 progress=bar, now=report.as_of)
    elapsed = time.perf_counter() - started
    _warn([cmp.baseline, cmp.candidate])
    if report.as_json:
        emit_json({"queries": len(queries), "ks": list(report.ks), "config": base[0],
                   "models": list(cmp.names), "results": [cmp.baseline.to_dict(),
                                                          cmp.candidate.to_dict()],
                   "comparison": cmp.to_dict(worst=report.worst),
                   "warnings": [w.to_dict() for w in cmp.warnings],
                   "elapsed_s": round(elapsed, 3)})
        return
    a, b = cmp.names
    echo(f"{a} -> {b} under {base[0]} on {len(queries)} queries (k = "
               f"{', '.join(map(str, report.ks))}; {report.stat_test} test, * p < "
               f"{report.alpha:g})\n")
    _print_comparison(cmp, report.worst)
    echo(f"evaluated in {elapsed:.1f} s", err=True)


def _compare_configs(store: MemoryStore, queries: list[Query], queries_path: Path,
                     tags: tuple[str, ...], base: tuple[str, RankingConfig],
                     other: tuple[str, RankingConfig] | None, report: _Report) -> None:
    """One config scored, or two compared, on `queries`."""
    import time

    from memory_core.evaluation import compare_results, evaluate_config
    from memory_core.evaluation.compare import distinct_names
    from memory_core.model.values import utcnow

    labels = distinct_names(base[0], other[0]) if other else (base[0], "")
    started, now = time.perf_counter(), report.as_of or utcnow()
    sides = [(labels[0], base[1])] + ([(labels[1], other[1])] if other else [])
    with progress_bar("evaluating", total=len(queries) * len(sides), unit="search") as bar:
        results = [evaluate_config(store, queries, config, name=name, ks=report.ks,
                                   progress=bar, now=now) for name, config in sides]
    cmp = (compare_results(*results, stat_test=report.stat_test, alpha=report.alpha)
           if other else None)
    elapsed = time.perf_counter() - started
    _warn(results)
    if report.as_json:
        emit_json({"queries": len(queries), "query_set": str(queries_path),
                   "ks": list(report.ks), "as_of": now, "metrics": list(results[0].metrics),
                   "tags": list(tags), "results": [r.to_dict() for r in results],
                   "comparison": cmp.to_dict(worst=report.worst) if cmp else None,
                   "warnings": [w.to_dict() for w in _warnings(results)],
                   "elapsed_s": round(elapsed, 3)})
        return
    title = f"{labels[0]} -> {labels[1]}" if cmp else labels[0]
    test = f"; {report.stat_test} test, * p < {report.alpha:g}" if cmp else ""
    decays = any(config.use_decay for _, config in sides)
    clock = f"; decay as of {now:%Y-%m-%d %H:%M} UTC" if decays else ""
    echo(f"{title} on {len(queries)} queries (k = {', '.join(map(str, report.ks))}"
               f"{test}{clock})\n")
    if cmp:
        _print_comparison(cmp, report.worst)
    else:
        _print_result(results[0])
    echo(f"evaluated in {elapsed:.1f} s", err=True)


@click.command(name="eval")
@store_options
@click.option("--queries", "queries_path", required=True, metavar="FILE|demo",
              type=QuerySetPath(), help=QUERY_SET_HELP)
@click.option("--preset", "preset_name", type=PRESET_CHOICE,
              help=f"Ranking preset to evaluate (default {DEFAULT_PRESET}).")
@click.option("--config", "config_file", type=click.File("r"),
              help="A RankingConfig as JSON, instead of --preset.")
@click.option("--compare", "compare_name", type=PRESET_CHOICE,
              help="Compare with this preset (the candidate; the first is the baseline).")
@click.option("--compare-config", "compare_file", type=click.File("r"),
              help="Compare with a RankingConfig JSON file, instead of --compare.")
@click.option("--compare-model", "compare_model", metavar="MODEL",
              callback=refuse_empty("to compare ranking configs, not models"),
              help="Compare the store's embedding model with MODEL (same config): the tenant "
                   "is copied into a temporary store and re-embedded; the store is only read.")
@click.option("--k", "ks", default="5,10", show_default=True, callback=_parse_ks,
              help="Cut-offs, comma-separated; MRR and MAP use the largest.")
@click.option("--tag", "tags", multiple=True, callback=refuse_empty("to score every query"),
              help="Only queries with this tag; repeat for any of several.")
@click.option("--stat-test", default="student", show_default=True,
              type=click.Choice(STAT_TESTS),
              help="Significance test: paired t-test, Fisher randomisation, Tukey HSD.")
@click.option("--alpha", default=0.05, show_default=True,
              type=click.FloatRange(0, 1, min_open=True, max_open=True),
              help="Significance level of the * marker.")
@click.option("--as-of", "as_of", metavar="DATE", callback=parse_as_of,
              help="The decay rerank's clock (ISO-8601, UTC; default now). Decay depends "
                   "on the day, so pin it to reproduce a decay config's numbers later.")
@click.option("--worst", default=5, show_default=True, type=click.IntRange(0, 1000),
              help="How many of the worst regressions to list.")
@json_option("Print everything as one JSON document.")
@click.pass_context
def eval_command(ctx: click.Context, queries_path: Path, preset_name: str | None,
                 config_file: Any, compare_name: str | None, compare_file: Any,
                 compare_model: str | None, ks: tuple[int, ...], tags: tuple[str, ...],
                 stat_test: str, alpha: float, as_of: datetime | None,
                 worst: int, as_json: bool) -> None:
    """Score ranking configs on a query set: recall, precision, hit rate, nDCG, MRR, MAP.

    With --compare (or --compare-config) the second config is compared with the first: the
    delta of every metric, a paired significance test (* when p < alpha), per-query
    wins/ties/losses, the worst regressions and a breakdown by query tag.
    """
    from memory_core.evaluation import check_reachable, load_queries, select_tags

    base = (pick_ranking(preset_name, config_file, both="--preset or --config")
            or default_ranking())
    other = pick_ranking(compare_name, compare_file, both="--compare or --compare-config")
    if other and compare_model:
        raise click.UsageError("--compare-model compares models under one config; give it "
                               "without --compare/--compare-config")
    queries = select_tags(load_queries(queries_path), tags)
    store = open_store(ctx, require_tenant=True)
    check_reachable(store, queries)
    report = _Report(ks=ks, stat_test=stat_test, alpha=alpha, worst=worst, as_of=as_of,
                     as_json=as_json)
    if compare_model:
        _compare_models(store, queries, base, compare_model, report)
    else:
        _compare_configs(store, queries, queries_path, tags, base, other, report)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (eval_command,)
