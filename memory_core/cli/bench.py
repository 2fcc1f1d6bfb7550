"""`memlens bench ingest | search | exchange | curate | consolidate | graph | decay | map |
pages | mcp`: benchmarks that print figures and ratios.

`bench pages` renders the web app's pages, so its bench is the app's
(`memlens_app/bench_pages.py`): memory_core never imports the app (tests/test_layering.py),
so the command runs it as `python -m memlens_app.bench_pages` with its options as one JSON
object and prints what that process answers on its last line."""

from __future__ import annotations

from typing import Any

import click

from memory_core.cli.options import json_option
from memory_core.cli.output import echo, emit_json
from memory_core.model.errors import MemlensError
from memory_core.model.untrusted import shown

PASS_FAIL = {True: "PASS", False: "FAIL"}
#: The web app's pages bench, by module (the engine names it and never imports it).
PAGES_BENCH = "memlens_app.bench_pages"



def _report(result: Any, as_json: bool) -> None:
    """A bench result with `to_dict()` and `lines()`: as JSON, or its lines."""
    if as_json:
        emit_json(result.to_dict())
        return
    for line in result.lines():
        echo(line)

@click.group()
def bench() -> None:
    """Benchmarks: figures and ratios against the targets."""


@bench.command()
@click.option("--n", default=1000, show_default=True, help="Number of texts / records.")
@click.option("--single-adds", default=200, show_default=True,
              help="Single-record adds timed for latency.")
@json_option("Print the figures as JSON.")
def ingest(n: int, single_adds: int, as_json: bool) -> None:
    """Embedding throughput (vs raw fastembed), batched add rate, single-add latency."""
    from memory_core.bench.ingest import (
        EMBED_TARGET_RATIO,
        SINGLE_ADD_P99_TARGET_MS,
        run_ingest_bench,
    )

    if n < 1 or single_adds < 1:
        raise click.BadParameter("--n and --single-adds must be at least 1")
    result = run_ingest_bench(n, single_adds=single_adds)
    if as_json:
        emit_json(result.__dict__)
        return
    ok = PASS_FAIL
    echo(f"texts: {result.n} (batch 32)")
    echo(f"raw fastembed        {result.raw_fastembed_texts_per_s:8.1f} texts/s")
    echo(f"memlens embed        {result.memlens_embed_texts_per_s:8.1f} texts/s")
    echo(f"time ratio memlens/raw {result.embed_time_ratio:.3f} "
               f"(target <= {EMBED_TARGET_RATIO:.2f}) {ok[result.embed_within_target]}")
    echo(f"batched add (vectors given) {result.batched_add_records_per_s:8.1f} records/s")
    echo(f"single add incl. embedding: p50 {result.single_add_p50_ms:.1f} ms, "
               f"p99 {result.single_add_p99_ms:.1f} ms over {result.single_adds} adds "
               f"(target p99 <= {SINGLE_ADD_P99_TARGET_MS:.0f} ms) "
               f"{ok[result.single_add_within_target]}")


@bench.command("search")
@click.option("--n", default=100_000, show_default=True, type=click.IntRange(min=100),
              help="Synthetic memories in the benchmark store.")
@click.option("--queries", default=200, show_default=True, type=click.IntRange(min=1),
              help="Queries timed per preset.")
@click.option("--edges", type=click.IntRange(min=0),
              help="Edges between memories (default: one per 10 memories).")
@click.option("--store", "store_uri", metavar="URI",
              help="Also run it at URI (e.g. s3://bucket/prefix, set up as for `--store` "
                   "anywhere), under a fresh prefix removed afterwards, and show both.")
@json_option("Print every figure as JSON.")
def bench_search(n: int, queries: int, edges: int | None, store_uri: str | None,
                 as_json: bool) -> None:
    """Search latency per preset at N memories (query embedding included) vs raw LanceDB;
    with --store, on object storage (or another folder) beside the local figures."""
    from memory_core.bench.search import run_search_bench
    from memory_core.bench.search_store import run_store_comparison

    if store_uri is not None:
        _report(run_store_comparison(store_uri, n, queries=queries, edges=edges), as_json)
        return
    result = run_search_bench(n, queries=queries, edges=edges)
    _report(result, as_json)


@bench.command(name="exchange")
@click.option("--n", default=100_000, show_default=True, help="Memories in the synthetic store.")
@json_option()
def exchange_bench(n: int, as_json: bool) -> None:
    """Export, import (with vectors) and diff times on a synthetic store, vs the targets."""
    from memory_core.bench.exchange import (
        DIFF_TARGET_S,
        EXPORT_TARGET_S,
        IMPORT_TARGET_S,
        run_exchange_bench,
    )

    if n < 100:
        raise click.BadParameter("--n must be at least 100")
    r = run_exchange_bench(n)
    if as_json:
        emit_json(r.__dict__)
        return
    ok = PASS_FAIL
    echo(f"{r.n} memories ({r.dimension}-d vectors), {r.edges} edges")
    echo(f"export            {r.export_s:6.2f} s  (target <= {EXPORT_TARGET_S:.0f} s) "
               f"{ok[r.export_within_target]}  {r.export_mb} MiB")
    echo(f"export + vectors  {r.export_vectors_s:6.2f} s  {r.export_vectors_mb} MiB")
    echo(f"import + vectors  {r.import_vectors_s:6.2f} s  (target <= "
               f"{IMPORT_TARGET_S:.0f} s) {ok[r.import_within_target]}")
    echo(f"diff (1% differ)  {r.diff_s:6.2f} s  (target <= {DIFF_TARGET_S:.0f} s) "
               f"{ok[r.diff_within_target]}  {r.diff_changed_records} records differ")
    echo("memory: resident set growth (MiB) during " + ", ".join(
        f"{k} {v}" for k, v in r.rss_growth_mib.items()) + f"; process peak {r.max_rss_mib} MiB")


@bench.command(name="curate")
@click.option("--memories", default=100_000, show_default=True, type=click.IntRange(min=100),
              help="Memories in the synthetic store.")
@click.option("--archive", default=10_000, show_default=True, type=click.IntRange(min=1),
              help="Memories the timed archive selects by a filter (then undone).")
@click.option("--pairs", default=100, show_default=True, type=click.IntRange(min=1),
              help="Merges of two memories each, timed in all and one by one.")
@click.option("--purges", default="1,100,4000", show_default=True, metavar="N,N,...",
              help="Memories in each timed purge (its files check vs its compaction).")
@json_option("Print every figure, its target and its ratio as JSON.")
def curate_bench(memories: int, archive: int, pairs: int, purges: str, as_json: bool) -> None:
    """Archive by filter, its undo, N merges and purges (compaction and verification
    included) vs targets."""
    from memory_core.bench.curate import check_sizes, run_curate_bench

    parts = [part.strip() for part in purges.split(",") if part.strip()]
    if not all(part.isdigit() for part in parts):
        raise click.BadParameter(f"--purges is counts separated by commas (1,100,4000), got "
                                 f"{shown(purges)}")
    sizes = tuple(int(part) for part in parts)
    try:
        check_sizes(memories, archive, pairs, sizes)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    result = run_curate_bench(memories, archive=archive, pairs=pairs, purges=sizes)
    _report(result, as_json)


@bench.command(name="consolidate")
@click.option("--memories", default=100_000, show_default=True, type=click.IntRange(min=100),
              help="Memories in the synthetic store the candidates are timed on.")
@click.option("--sources", default=10, show_default=True, type=click.IntRange(min=1),
              help="Demo memories purged with what derives from them (vs a plain purge).")
@json_option("Print every figure, its target and its ratio as JSON.")
def consolidate_bench(memories: int, sources: int, as_json: bool) -> None:
    """Consolidation candidates at N memories, one consolidate, its impact preview on the
    demo query set, and a purge with derived memories vs a plain one, vs the targets."""
    from memory_core.bench.consolidate import run_consolidate_bench
    from memory_core.seeding import seed_from_export

    _report(run_consolidate_bench(seed_from_export, memories, sources=sources), as_json)


@bench.command(name="graph")
@click.option("--memories", default=100_000, show_default=True, type=click.IntRange(min=2),
              help="Memories in the store graph_health and why are timed on.")
@click.option("--edges", default=10_000, show_default=True, type=click.IntRange(min=1),
              help="Edges in that store.")
@click.option("--nodes", default=1000, show_default=True, type=click.IntRange(min=2),
              help="Memories in the store whose neighbourhood (and its HTML) is built.")
@click.option("--node-edges", default=3000, show_default=True, type=click.IntRange(min=1),
              help="Edges in that store (at least --nodes - 1).")
@click.option("--calls", default=200, show_default=True, type=click.IntRange(min=1),
              help="Memories whose lineage (depth 3) is timed.")
@json_option("Print every figure, its target and its ratio as JSON.")
def graph_bench(memories: int, edges: int, nodes: int, node_edges: int, calls: int,
                as_json: bool) -> None:
    """Neighbourhood and its HTML at N nodes, graph_health and why (lineage, depth 3) on a
    large store, vs the targets."""
    from memory_core.bench.graph import check_sizes, run_graph_bench

    try:
        check_sizes(memories, edges, nodes, node_edges, calls)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    result = run_graph_bench(memories, edges=edges, nodes=nodes, node_edges=node_edges,
                             calls=calls)
    _report(result, as_json)


@bench.command(name="decay")
@click.option("--memories", default=100_000, show_default=True, type=click.IntRange(min=1),
              help="Memories in the synthetic store.")
@click.option("--events", default=20_000, show_default=True, type=click.IntRange(min=0),
              help="Recall and cite events in it (a fifth of them cites).")
@json_option("Print every figure, its target and its ratio as JSON.")
def decay_bench(memories: int, events: int, as_json: bool) -> None:
    """decay_frame, at_risk and what_if over the whole tenant (and one memory's timeline),
    vs the targets."""
    from memory_core.bench.decay import run_decay_bench

    result = run_decay_bench(memories, events=events)
    _report(result, as_json)


@bench.command(name="mcp")
@click.option("--store", "store_uri", metavar="URI",
              help="Benchmark a copy of this store (default: the demo corpus, seeded into a "
                   "temporary folder).")
@click.option("--seconds", default=60.0, show_default=True, type=click.FloatRange(min=1),
              help="How long the four concurrent clients run.")
@click.option("--queries", type=click.IntRange(min=1),
              help="Use only the first N demo queries.")
@json_option("Print every figure, its target and its ratio as JSON.")
def mcp_bench(store_uri: str | None, seconds: float, queries: int | None, as_json: bool
              ) -> None:
    """`memlens mcp` through a real stdio client: recall round trip vs in-process recall(),
    remember, start to first answer, and four clients at once (one writing), vs the
    targets."""
    import tempfile
    from pathlib import Path

    from memory_core.bench.mcp import run_mcp_bench
    from memory_core.evaluation import load_queries
    from memory_core.seeding import demo_dir, seed_from_export
    from memory_core.store import MemoryStore

    texts = [q.query for q in load_queries(demo_dir() / "queries.ndjson")][:queries]
    with tempfile.TemporaryDirectory(prefix="memlens-demo-") as folder:
        if store_uri is None:
            store_uri = str(Path(folder) / "store")
            seed_from_export(MemoryStore.open(store_uri))
        _report(run_mcp_bench(store_uri, texts, seconds=seconds), as_json)


@bench.command(name="map")
@click.option("--n", "memories", default=50_000, show_default=True,
              type=click.IntRange(min=3), help="Synthetic memories in the benchmark store.")
@click.option("--sample", type=click.IntRange(min=16),
              help="Also time a map fitted on this many memories, the rest placed.")
@click.option("--first-map/--no-first-map", default=True, show_default=True,
              help="Also time a machine's very first map (an empty numba cache: umap-learn "
                   "compiles, about a minute more).")
@json_option("Print every figure, its target and its ratio as JSON.")
def map_bench(memories: int, sample: int | None, first_map: bool, as_json: bool) -> None:
    """The embedding map cold (a fresh process, the numba cache warm) and cached, a
    machine's first map, its HDBSCAN clusters with labels, and its near-duplicates, vs the
    targets."""
    from memory_core.bench.map import run_map_bench

    result = run_map_bench(memories, sample=sample, first_map=first_map)
    _report(result, as_json)


@bench.command(name="pages")
@click.option("--store", "store_uri", metavar="PATH",
              help="The store to render the pages on (opened read-only).")
@click.option("--tenant", metavar="T", help="Its tenant (MEMLENS_TENANT).")
@click.option("--n", type=click.IntRange(min=100),
              help="Instead of --store: a synthetic store of N memories (N/10 edges), built "
                   "in a temporary folder.")
@click.option("--index/--no-index", default=True, show_default=True,
              help="Index the synthetic store as `memlens index` does (with --n).")
@click.option("--page", "pages", multiple=True, metavar="NAME",
              help="A page to render (overview, search, curate, graph, decay, map, ...); "
                   "repeat for several (default: overview and search, the targeted ones).")
@click.option("--timeout", default=900, show_default=True, type=click.IntRange(min=1),
              help="Seconds a page may take to render before it is reported as too slow.")
@json_option("Print every figure, its target and its ratio as JSON.")
def pages_bench(store_uri: str | None, tenant: str | None, n: int | None, index: bool,
                pages: tuple[str, ...], timeout: int, as_json: bool) -> None:
    """The first render of the Overview and Search pages (or --page ones), each in a fresh
    process with Streamlit's AppTest, its peak memory, vs the 5 s target."""
    if (store_uri is None) == (n is None):
        raise click.UsageError("give either --store PATH or --n N")
    said = _app_bench({"store_uri": store_uri, "tenant": tenant, "n": n, "index": index,
                       "pages": list(pages), "timeout": timeout})
    if "error" in said:
        if said["param"]:
            raise click.BadParameter(said["error"], param_hint=said["param"])
        raise MemlensError(said["error"])
    if as_json:
        emit_json(said["figures"])
        return
    for line in said["lines"]:
        echo(line)


def _app_bench(kwargs: dict[str, Any]) -> dict[str, Any]:
    """What the app's pages bench (`memlens_app.bench_pages`, run in a subprocess: the engine
    never imports the app) says for `kwargs`; its progress bars pass through on stderr."""
    import importlib.util
    import json
    import subprocess
    import sys

    if importlib.util.find_spec(PAGES_BENCH.partition(".")[0]) is None:  # found, not imported
        raise MemlensError("the web app (package memlens_app) is not installed beside "
                           "memory_core; reinstall memlens (pip install memlens)")
    done = subprocess.run([sys.executable, "-m", PAGES_BENCH, json.dumps(kwargs)],
                          stdout=subprocess.PIPE, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise MemlensError(f"the pages bench's process ({PAGES_BENCH}) failed with exit code "
                           f"{done.returncode}; its error is on the lines above")
    said: dict[str, Any] = json.loads(lines[-1])
    return said


#: What `memory_core.cli` registers from this family (the `bench` group holds the rest).
COMMANDS: tuple[click.Command, ...] = (bench,)
