"""`memlens index` and `memlens reembed`: keep the store's indexes and vectors current."""

from __future__ import annotations

from contextlib import ExitStack

import click

from memory_core.cli.options import (
    engine_option,
    json_option,
    open_store,
    refuse_empty,
    store_options,
)
from memory_core.cli.output import echo, emit_json, progress_bar
from memory_core.store.disk_full import on_full_disk, table_bytes
from memory_core.store.index_rule import VECTOR_THRESHOLD


@click.command()
@store_options
@click.option("--force-vector", is_flag=True,
              help="Build the vector index even below the threshold.")
@click.option("--rebuild-vector", is_flag=True,
              help="Rebuild an existing vector index by the rule (a store that outgrew it).")
@click.option("--threshold", type=click.IntRange(min=1), default=VECTOR_THRESHOLD,
              show_default=True, help="Rows with vectors from which a vector index is built.")
@json_option("Print the report as JSON.")
@click.pass_context
def index(ctx: click.Context, force_vector: bool, rebuild_vector: bool, threshold: int,
          as_json: bool) -> None:
    """Create missing indexes (filters, full text, vectors) and fold new rows into existing ones.

    Says what it built and why. Version history is kept, so undo still works afterwards.
    Vector search stays exact (brute force) below the threshold; above it a vector index is
    built (IVF_HNSW_SQ in one partition up to 250,000 vectors, IVF_SQ above) and its
    recall@10 against exact search is reported.
    """
    from memory_core.store.indexes import ensure_indexes, index_steps

    # Indexing embeds nothing, so a store made with another model can be indexed as it is.
    store = open_store(ctx, require_tenant=True, check_vectors=False)
    # An index holds about what its columns do: at most the memories table again.
    with (on_full_disk(store.uri, "`memlens index`", "the memories are unchanged and it "
                       "builds only what is still missing",
                       lambda: table_bytes(store.uri, "memories")),
          progress_bar("indexing", total=index_steps(), unit="step") as advance):
        report = ensure_indexes(store, vector_threshold=threshold, force_vector=force_vector,
                                rebuild_vector=rebuild_vector, progress=advance)
    if as_json:
        emit_json({"store": store.uri, "tenant": store.tenant, **report.to_dict()})
        return
    for line in report.explanation():
        echo(line)
    echo(f"optimize (compaction, refresh) {report.optimize_seconds:.2f} s; versions "
         f"{report.versions_before} -> {report.versions_after} (history kept)")
    echo(f"{report.rows} rows indexed in {report.total_seconds:.1f} s")


@click.command()
@store_options
@click.option("--model", callback=refuse_empty("to embed the pending memories only"),
              help="Switch the whole store to this embedding model and re-embed all.")
@engine_option("embed")
@json_option("Print the report as JSON.")
@click.pass_context
def reembed(ctx: click.Context, model: str | None, engine: str, as_json: bool) -> None:
    """Embed pending memories, or re-embed everything with another model (--model)."""
    from memory_core.reembed import ReembedReport, fill_pending, local_vectors, switch_model

    with ExitStack() as job:
        vectors = local_vectors
        if engine == "ray":
            from memory_core.distributed.embed_job import ray_vectors
            from memory_core.distributed.session import ray_session

            job.enter_context(ray_session())
            vectors = ray_vectors
        report: ReembedReport
        if model:
            from memory_core.embedding import load_embedder
            from memory_core.model.config import Settings

            store = open_store(ctx, check_vectors=False)
            new = load_embedder(Settings.from_env(embed_model=model))
            with progress_bar("re-embedding") as bar:
                report = switch_model(store, new, progress=bar, vectors=vectors)
        else:
            store = open_store(ctx)
            with progress_bar("embedding pending") as bar:
                report = fill_pending(store, progress=bar, vectors=vectors)
    if as_json:
        emit_json(report.__dict__)
    else:
        echo(f"embedded {report.embedded} memories with {report.model_id} "
                   f"({report.dimension}-d); table version {report.table_version}")


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (index, reembed)
