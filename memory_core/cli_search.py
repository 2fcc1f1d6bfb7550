"""`memlens search` and `memlens recall`: hybrid retrieval from the command line."""

from __future__ import annotations

from typing import Any

import click

from memory_core.cli_support import (
    emit_json,
    filter_from_options,
    memory_line,
    open_store,
    store_options,
)


def _config(preset_name: str, config_file: Any) -> Any:
    import json

    from memory_core.errors import InvalidConfigError
    from memory_core.retrieval.config import RankingConfig, preset

    if config_file is None:
        return preset(preset_name)
    try:
        return RankingConfig.from_dict(json.load(config_file))
    except (json.JSONDecodeError, TypeError) as exc:
        raise InvalidConfigError(f"--config is not a RankingConfig JSON object: {exc}") from exc


def _warn_degraded(results: Any) -> None:
    if results.degraded:
        for reason in results.reasons:
            click.echo(f"degraded: {reason}", err=True)


@click.command()
@store_options
@click.argument("query")
@click.option("--preset", "preset_name", default="hybrid_graph", show_default=True,
              type=click.Choice(["vector", "bm25", "hybrid", "hybrid_graph", "full"]),
              help="Named ranking configuration.")
@click.option("--config", "config_file", type=click.File("r"),
              help="A RankingConfig as JSON (overrides --preset).")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--project", multiple=True, help="Only these projects.")
@click.option("--agent", multiple=True, help="Only these agents.")
@click.option("--type", "memory_type", multiple=True, help="Only these memory types.")
@click.option("--tag", "tags", multiple=True, help="Has any of these tags.")
@click.option("--status", multiple=True, help="active (default), archived, superseded.")
@click.option("--explain", is_flag=True, help="Print each hit's score breakdown.")
@click.option("--json", "as_json", is_flag=True, help="Print hits and explanations as JSON.")
@click.pass_context
def search(ctx: click.Context, query: str, preset_name: str, config_file: Any, limit: int,
           explain: bool, as_json: bool, **filters: Any) -> None:
    """Search memories with hybrid ranking; every hit says why it ranks where it does."""
    from memory_core.canonical import memory_doc
    from memory_core.retrieval.search import search as run_search

    flt = filter_from_options(filters)
    store = open_store(ctx, require_tenant=True)
    results = run_search(store, query, flt, _config(preset_name, config_file), limit)
    if as_json:
        emit_json({"query": query, "degraded": results.degraded, "reasons": results.reasons,
                   "elapsed_ms": results.elapsed_ms,
                   "hits": [{"memory": memory_doc(h.memory), "explanation": h.explain()}
                            for h in results]})
        return
    _warn_degraded(results)
    for hit in results:
        click.echo(f"{hit.rank:>3}. {hit.score:.4f}  {memory_line(hit.memory)}")
        if explain:
            parts = ", ".join(f"{e} #{ev.rank} (+{ev.contribution:.4f})"
                              for e, ev in hit.engines.items())
            extra = f"; stands in for superseded {hit.replaces}" if hit.replaces else ""
            click.echo(f"      {parts}; bonus x{hit.bonus:.2f}; decay x{hit.decay:.3f}; "
                       f"mmr {hit.mmr_adjustment:+.4f}{extra}")
    click.echo(f"{len(results)} hits in {results.elapsed_ms:.0f} ms", err=True)


@click.command()
@store_options
@click.argument("query")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
@click.option("--type", "record_type", help="Only this memory type.")
@click.option("--project-tag", help="A project (or, failing that, a tag) to scope to.")
@click.option("--tier", default="standard", show_default=True,
              type=click.Choice(["minimal", "compact", "standard", "full"]),
              help="How much of each memory to print.")
@click.option("--session", "session_id",
              help="Do not repeat memories already sent in this session (30 min TTL).")
@click.option("--json", "as_json", is_flag=True, help="Print the items as JSON.")
@click.pass_context
def recall(ctx: click.Context, query: str, limit: int, record_type: str | None,
           project_tag: str | None, tier: str, session_id: str | None, as_json: bool) -> None:
    """What an agent's recall tool returns: best memories, recorded as accessed."""
    from memory_core.retrieval.recall import recall as run_recall

    store = open_store(ctx, require_tenant=True)
    result = run_recall(store, query, limit, record_type, project_tag, tier=tier,
                        session_id=session_id)
    if as_json:
        emit_json({"items": result.items, "skipped_as_sent": result.skipped_as_sent,
                   "degraded": result.degraded, "reasons": result.reasons})
        return
    _warn_degraded(result)
    click.echo(result.text or "(nothing new to recall)")


def register(cli: click.Group) -> None:
    """Add `search` and `recall` to the memlens command group."""
    cli.add_command(search)
    cli.add_command(recall)
