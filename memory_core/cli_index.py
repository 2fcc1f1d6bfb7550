"""`memlens index` (build and refresh the store's indexes) and `memlens bench search`."""

from __future__ import annotations

import click

from memory_core.cli_bench import bench
from memory_core.cli_support import emit_json, open_store, progress_bar, store_options
from memory_core.store.indexes import VECTOR_THRESHOLD


@click.command()
@store_options
@click.option("--force-vector", is_flag=True,
              help="Build the vector index even below the threshold.")
@click.option("--threshold", type=click.IntRange(min=1), default=VECTOR_THRESHOLD,
              show_default=True, help="Rows with vectors from which a vector index is built.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def index(ctx: click.Context, force_vector: bool, threshold: int, as_json: bool) -> None:
    """Create missing indexes (filters, full text, vectors) and fold new rows into existing ones.

    Version history is kept, so undo still works afterwards. Vector search stays exact
    (brute force) below the threshold; above it an IVF_HNSW_SQ index is built and its
    recall@10 against exact search is reported.
    """
    from memory_core.store.indexes import ensure_indexes, index_steps

    # Indexing embeds nothing, so a store made with another model can be indexed as it is.
    store = open_store(ctx, require_tenant=True, check_vectors=False)
    with progress_bar("indexing", total=index_steps(), unit="step") as advance:
        report = ensure_indexes(store, vector_threshold=threshold, force_vector=force_vector,
                                progress=advance)
    if as_json:
        emit_json({"store": store.uri, "tenant": store.tenant, **report.to_dict()})
        return
    for action in report.actions:
        took = f"{action.seconds:7.2f} s" if action.action == "created" else " " * 9
        extra = f" (+{action.unindexed_rows} rows)" if action.unindexed_rows else ""
        click.echo(f"{action.action:<9} {action.kind:<11} {action.column:<16} {took}{extra}")
    click.echo(f"optimize (compaction, refresh) {report.optimize_seconds:.2f} s; versions "
               f"{report.versions_before} -> {report.versions_after} (history kept)")
    click.echo(f"vector search: {report.vector_search()}")
    click.echo(f"{report.rows} rows indexed in {report.total_seconds:.1f} s")


@click.command("search")
@click.option("--n", default=100_000, show_default=True, type=click.IntRange(min=100),
              help="Synthetic memories in the benchmark store.")
@click.option("--queries", default=200, show_default=True, type=click.IntRange(min=1),
              help="Queries timed per preset.")
@click.option("--edges", type=click.IntRange(min=0),
              help="Edges between memories (default: one per 10 memories).")
@click.option("--json", "as_json", is_flag=True, help="Print every figure as JSON.")
def bench_search(n: int, queries: int, edges: int | None, as_json: bool) -> None:
    """Search latency per preset at N memories (query embedding included) vs raw LanceDB."""
    from memory_core.bench.search import run_search_bench

    result = run_search_bench(n, queries=queries, edges=edges)
    if as_json:
        emit_json(result.to_dict())
        return
    for line in result.lines():
        click.echo(line)


def register(cli: click.Group) -> None:
    """Add `index` to the memlens group and `search` to its `bench` group."""
    cli.add_command(index)
    bench.add_command(bench_search)
