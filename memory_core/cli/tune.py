"""`memlens tune`: choose ranking knobs for this store by k-fold cross-validation."""

from __future__ import annotations

import json
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
    store_options,
)
from memory_core.cli.output import echo, emit_json, print_table, progress_bar, shorten
from memory_core.cli.query_sets import QUERY_SET_HELP, QuerySetPath
from memory_core.model.errors import InvalidConfigError
from memory_core.retrieval.config import DEFAULT_PRESET

if TYPE_CHECKING:
    from memory_core.evaluation import Query, SearchSpace, TuneResult

#: How many configs the table lists (best mean first); --json has them all.
LISTED_CONFIGS = 5
#: How many queries of a larger set are tuned on unless --sample says otherwise: with the
#: default grid's 12 configs, 12,000 searches (minutes, not hours), and enough queries that
#: the fold means differ by chance by about 0.01.
DEFAULT_SAMPLE = 1000


def _space(handle: Any) -> SearchSpace | None:
    """The --space file as a `SearchSpace`, or None for the default space."""
    from memory_core.evaluation import SearchSpace

    if handle is None:
        return None
    name = getattr(handle, "name", "-")
    try:
        data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise InvalidConfigError(f"{name} is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{name} must hold a JSON object of knob -> list of values, "
                                 f'such as {{"weight_bm25": [1, 2]}}')
    return SearchSpace(data)


def _print(result: TuneResult, label: str, out: Path | None) -> None:
    """The held-out comparison, the folds, the best configs and the chosen knobs."""
    m = result.metric
    (t_mean, t_sd), (b_mean, b_sd) = result.tuned, result.baseline
    echo(f"held-out {m} over {len(result.folds)} folds (mean ± sd of the fold scores):")
    print_table([["config", "mean", "sd", "delta"],
                 [label, f"{b_mean:.3f}", f"{b_sd:.3f}", ""],
                 ["tuned", f"{t_mean:.3f}", f"{t_sd:.3f}", f"{t_mean - b_mean:+.3f}"]],
                {1, 2, 3}, indent="  ")
    echo("\nper fold (config chosen on the other folds, scored on this one):")
    print_table([["fold", "queries", "chosen", "train", "held-out", label]] + [
        [str(f.index + 1), str(len(f.held_out)), f"#{f.chosen}", f"{f.train_score:.3f}",
         f"{f.score:.3f}", f"{f.base_score:.3f}"] for f in result.folds],
        {1, 3, 4, 5}, indent="  ")
    best = result.to_frame().head(LISTED_CONFIGS)
    echo(f"\nbest {best.height} of {len(result.candidates)} configs by mean {m} on all "
         f"queries (#0 is {label}):")
    print_table([["config", "mean", "folds", "knobs"]] + [
        [f"#{r['config']}", f"{r['mean']:.3f}", str(r["folds"]),
         shorten(result.candidates[r["config"]].label, 70)] for r in best.iter_rows(named=True)],
        {1, 2}, indent="  ")
    changed = result.base.diff(result.config)
    echo(f"\nchosen: #{result.chosen}, the best on all queries (chosen in "
         f"{result.chosen_in(result.chosen)} of {len(result.folds)} folds)"
         + ("" if changed else f"; {label} stays: no config beat it"))
    for knob, before, after in changed:
        echo(f"  {knob}: {before} -> {after}")
    if out is not None:
        echo(f"\nwrote {out}; use it with memlens search/eval --config "
             f"{out}, or load it in the Ranking Lab")
    else:
        echo("\nwrite the chosen config with --out FILE (memlens search/eval --config FILE)")


def _queries(ctx: click.Context, path: Path, size: int, seed: int) -> list[Query]:
    """The queries to tune on: all of the set, or a seeded sample of `size` (said on
    stderr, with how to have more)."""
    from click.core import ParameterSource

    from memory_core.evaluation.queryset import sample_queries

    with progress_bar("reading queries", unit="query") as bar:
        sample = sample_queries(path, size, seed=seed, progress=bar)
    if sample.sampled:
        capped = ctx.get_parameter_source("sample_size") == ParameterSource.DEFAULT
        why = (f"tune caps a set at {size:,} queries unless told: --sample N tunes on N, "
               f"--sample 0 on every query" if capped else "--sample 0 tunes on every query")
        echo(f"{path} holds {sample.total:,} queries; tuning on a sample of "
             f"{len(sample.queries):,} drawn with seed {seed} ({why})", err=True)
    return sample.queries


@click.command(name="tune")
@store_options
@click.option("--queries", "queries_path", required=True, metavar="FILE|demo",
              type=QuerySetPath(), help=QUERY_SET_HELP)
@click.option("--preset", "preset_name", type=PRESET_CHOICE,
              help=f"The config to tune from, and to compare with (default {DEFAULT_PRESET}).")
@click.option("--config", "config_file", type=click.File("r"),
              help="A RankingConfig as JSON to tune from, instead of --preset.")
@click.option("--space", "space_file", type=click.File("r"),
              help='The knobs to search as JSON, e.g. {"weight_bm25": [1, 2], "rrf_k": '
                   '[20, 60]} (default: a small grid around the starting config, see '
                   'memory_core.default_space).')
@click.option("--folds", default=5, show_default=True, type=click.IntRange(min=2),
              help="k of k-fold cross-validation.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Seed of the shuffle that deals the queries into folds, and of --sample.")
@click.option("--sample", "sample_size", default=DEFAULT_SAMPLE, show_default=True,
              type=click.IntRange(min=0), metavar="N",
              help="Tune on a sample of N queries of a larger set, drawn with --seed "
                   "(0: every query).")
@click.option("--metric", default="ndcg@10", show_default=True,
              help="What to maximise: recall, precision, hit_rate, ndcg, mrr or map @K.")
@click.option("--as-of", "as_of", metavar="DATE", callback=parse_as_of,
              help="The decay rerank's clock (ISO-8601, UTC; default now).")
@click.option("--out", "out", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              help="Write the chosen config here as RankingConfig JSON.")
@json_option("Print the result as one JSON document.")
@click.pass_context
def tune_command(ctx: click.Context, queries_path: Path, preset_name: str | None,
                 config_file: Any, space_file: Any, folds: int, seed: int, sample_size: int,
                 metric: str, as_of: datetime | None, out: Path | None, as_json: bool
                 ) -> None:
    """Choose ranking knobs for this store by k-fold cross-validation on a query set.

    Every config of the search space is run once on every query. The queries are shuffled
    into --folds folds; for each fold the config with the best mean on the other folds is
    chosen and scored on the held-out fold, next to the starting config on the same fold.
    The held-out mean ± sd is what tuning is worth on queries it has not seen; the config
    written to --out is the best on all queries. A set of more than --sample queries is
    tuned on a seeded sample of them; the time it will take is estimated first.
    """
    from memory_core.evaluation import default_space, tune
    from memory_core.evaluation.tune import check_tunable, metric_cut
    from memory_core.evaluation.tune_estimate import estimate

    label, base = (pick_ranking(preset_name, config_file, both="--preset or --config")
                   or default_ranking())
    space = _space(space_file) or default_space(base)
    cut = metric_cut(metric)  # a typo fails before any search
    queries = _queries(ctx, queries_path, sample_size, seed)
    store = open_store(ctx, require_tenant=True)
    check_tunable(store, queries, folds)
    configs = len(space.expand(base).candidates)
    echo(estimate(store, queries, base, configs=configs, depth=cut, now=as_of).line(),
         err=True)
    with progress_bar("tuning", total=configs * len(queries), unit="search") as bar:
        result = tune(store, queries, space=space, base=base, folds=folds, seed=seed,
                      metric=metric, now=as_of, progress=bar)
    for reason in result.reasons[:3]:
        echo(f"degraded: {reason}", err=True)
    if result.unreachable:
        echo(f"warning: {len(result.unreachable)} of {result.queries} queries have no "
             f"relevant memory in the tenant, so they score 0 under every config", err=True)
    if out is not None:
        out.write_text(result.to_json() + "\n", encoding="utf-8")
    if as_json:
        emit_json({"query_set": str(queries_path), "base_label": label,
                   "space": space.to_dict(), "out": str(out) if out else None,
                   **result.to_dict()})
        return
    skipped = f"; {result.skipped} invalid combinations skipped" if result.skipped else ""
    echo(f"tuned {label} on {result.queries} queries: {len(result.candidates)} configs, "
         f"{len(result.folds)} folds (seed {seed}), {metric}; decay as of "
         f"{result.now:%Y-%m-%d %H:%M} UTC{skipped}\n")
    _print(result, label, out)
    echo(f"tuned in {result.elapsed_s:.1f} s", err=True)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (tune_command,)
