"""`memlens map`: the embedding map from the command line (docs/design/map.md),
thin over `memory_core.projection`: the layout written to parquet or CSV for notebooks and
other tools, or printed.

Memory content is untrusted: printed lines go through `echo` and are shortened; `--json`
and the files hold it whole (escaping is their readers' job).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.options import (
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    store_options,
)
from memory_core.cli.output import echo, emit_json, print_table, shorten
from memory_core.model.untrusted import for_terminal, shown

if TYPE_CHECKING:
    import polars as pl

    from memory_core.projection import Projection

#: What `--out` can write, by file suffix.
FORMATS = (".parquet", ".csv")
#: Characters of content a printed row shows.
CONTENT_CHARS = 60


@contextmanager
def stage_bar() -> Iterator[Callable[[str, float], None]]:
    """A progress bar on stderr (hidden when stderr is not a terminal) driven by
    `project`'s `progress(stage, fraction)`."""
    from tqdm import tqdm

    with tqdm(total=100, desc="map", unit="%", disable=None, leave=False,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}") as bar:
        def progress(stage: str, fraction: float) -> None:
            bar.set_description_str(for_terminal(stage))
            bar.update(max(0, round(fraction * 100) - bar.n))

        yield progress


def _check_out(out: Path | None) -> None:
    if out is not None and out.suffix.lower() not in FORMATS:
        raise click.BadParameter(
            f"{shown(str(out))} is neither a .parquet nor a .csv file; name the output "
            f"map.parquet or map.csv", param_hint="'--out'")


def _with_clusters(frame: pl.DataFrame) -> tuple[pl.DataFrame, Any]:
    """`frame` with `cluster` and `cluster_label` (HDBSCAN on the layout), and the clusters."""
    import memory_core.projection as projection

    cluster_layout = getattr(projection, "cluster_layout", None)
    if cluster_layout is None:  # an install whose projection package has no clusters
        raise click.ClickException("--clusters needs memory_core.projection.cluster_layout, "
                                   "which this install of memlens lacks")
    clusters = cluster_layout(frame)
    labelled = frame.join(clusters.assignments.select("id", "cluster", "cluster_label"),
                          on="id", how="left")
    return labelled, clusters


def _write(frame: pl.DataFrame, out: Path) -> None:
    if out.suffix.lower() == ".csv":
        frame.write_csv(out)
    else:
        frame.write_parquet(out)


def _summary(projection: Projection, rows: int) -> dict[str, Any]:
    return {"rows": rows, "key": projection.key, "from_cache": projection.from_cache,
            "skipped_unembedded": projection.skipped_unembedded,
            "fitted": projection.fitted, "notes": list(projection.notes),
            "params": projection.params.to_dict(), "model": projection.model_id,
            "version": projection.version}


def _print_rows(frame: pl.DataFrame) -> None:
    coords = [c for c in ("x", "y", "z") if c in frame.columns]
    for row in frame.iter_rows(named=True):
        at = " ".join(f"{row[c]:8.3f}" for c in coords)
        cluster = f"  [{row['cluster_label']}]" if "cluster_label" in row else ""
        first = row["content"].strip().splitlines()[0] if row["content"].strip() else ""
        echo(f"{row['id']}  {at}  {shorten(row['memory_type'], 16):<16}{cluster}  "
             f"{shorten(first, CONTENT_CHARS)}")


def _print_clusters(clusters: Any) -> None:
    rows = [["cluster", "size", "label", "top types"]]
    for r in clusters.table.iter_rows(named=True):
        rows.append([str(r["cluster"]), str(r["size"]), shorten(str(r["label"]), 40),
                     shorten(str(r["top_types"]), 40)])
    print_table(rows, right={0, 1})


@click.command(name="map")
@store_options
@filter_options()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the layout to this .parquet or .csv file.")
@click.option("--clusters", "with_clusters", is_flag=True,
              help="Add HDBSCAN clusters of the layout (cluster, cluster_label columns).")
@click.option("--n-neighbors", type=int, default=15, show_default=True,
              help="UMAP n_neighbors: small splits topics finely, large keeps the big shape.")
@click.option("--min-dist", type=float, default=0.1, show_default=True,
              help="UMAP min_dist (0..1): how tightly points pack.")
@click.option("--seed", type=int, default=42, show_default=True,
              help="Random seed: the same seed and memories give the same layout.")
@click.option("--dims", type=int, default=2, show_default=True, help="2 or 3 dimensions.")
@click.option("--sample", type=int,
              help="Fit UMAP on a seeded sample of N memories (in proportion to each type) "
                   "and place the rest with transform. Default: every memory up to 50,000, "
                   "a sample of 20,000 beyond.")
@click.option("--no-cache", is_flag=True, help="Compute the map afresh and do not store it.")
@json_option("Print the map as JSON (with --out: only what was written).")
@click.pass_context
def map_command(ctx: click.Context, out: Path | None, with_clusters: bool, n_neighbors: int,
                min_dist: float, seed: int, dims: int, sample: int | None, no_cache: bool,
                as_json: bool, **filters: Any) -> None:
    """The embedding map: UMAP (cosine) of the memories' vectors, one row per memory with
    its coordinates and fields, cached until the store changes. Memories not embedded yet
    are left out (and counted). More than 50,000 memories are fitted on a sample of
    20,000 unless --sample says otherwise; the rest are placed."""
    from memory_core.projection import MapParams, project

    _check_out(out)
    params = MapParams(n_neighbors=n_neighbors, min_dist=min_dist, seed=seed, dims=dims,
                       sample=sample)
    flt = filter_from_options(filters) if any(filters.values()) else None
    store = open_store(ctx, require_tenant=True)
    with stage_bar() as progress:
        projection = project(store, flt, params=params, cache=False if no_cache else None,
                             progress=progress)
    frame, clusters = projection.frame, None
    if with_clusters:
        frame, clusters = _with_clusters(frame)
    if out is not None:
        _write(frame, out)
    summary = _summary(projection, frame.height)
    if as_json:
        emit_json({**summary, **({"out": str(out)} if out is not None
                                 else {"points": frame.to_dicts()})})
        return
    if out is None:
        _print_rows(frame)
    elif clusters is not None:
        _print_clusters(clusters)
    source = "read from the cache" if projection.from_cache else "computed"
    written = f"; wrote {out}" if out is not None else ""
    echo(f"{frame.height} memories on the map ({source}), {projection.skipped_unembedded} "
         f"left out without a vector{written}", err=True)
    for note in projection.notes:
        echo(f"note: {note}", err=True)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (map_command,)
