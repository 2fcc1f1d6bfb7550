"""`memlens bench ...`: benchmarks that print figures and ratios."""

from __future__ import annotations

import click

from memory_core.cli_support import emit_json


@click.group()
def bench() -> None:
    """Benchmarks: figures and ratios against the targets."""


@bench.command()
@click.option("--n", default=1000, show_default=True, help="Number of texts / records.")
@click.option("--single-adds", default=200, show_default=True,
              help="Single-record adds timed for latency.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
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
    ok = {True: "PASS", False: "FAIL"}
    click.echo(f"texts: {result.n} (batch 32)")
    click.echo(f"raw fastembed        {result.raw_fastembed_texts_per_s:8.1f} texts/s")
    click.echo(f"memlens embed        {result.memlens_embed_texts_per_s:8.1f} texts/s")
    click.echo(f"time ratio memlens/raw {result.embed_time_ratio:.3f} "
               f"(target <= {EMBED_TARGET_RATIO:.2f}) {ok[result.embed_within_target]}")
    click.echo(f"batched add (vectors given) {result.batched_add_records_per_s:8.1f} records/s")
    click.echo(f"single add incl. embedding: p50 {result.single_add_p50_ms:.1f} ms, "
               f"p99 {result.single_add_p99_ms:.1f} ms over {result.single_adds} adds "
               f"(target p99 <= {SINGLE_ADD_P99_TARGET_MS:.0f} ms) "
               f"{ok[result.single_add_within_target]}")
