"""`memlens search` and `memlens recall`: hybrid retrieval from the command line."""

from __future__ import annotations

from typing import Any

import click

from memory_core.cli.options import (
    filter_from_options,
    json_option,
    open_store,
    ranking_of,
    ranking_options,
    refuse_empty,
    search_filter_options,
    store_options,
)
from memory_core.cli.output import echo, emit_json, memory_line
from memory_core.model.untrusted import shown
from memory_core.retrieval.config import RECALL_PRESET


def _warn_degraded(results: Any) -> None:
    if results.degraded:
        for reason in results.reasons:
            echo(f"degraded: {reason}", err=True)


@click.command()
@store_options
@click.argument("query")
@ranking_options()
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@search_filter_options()
@click.option("--explain", is_flag=True, help="Print each hit's score breakdown.")
@json_option("Print hits and explanations as JSON.")
@click.pass_context
def search(ctx: click.Context, query: str, preset_name: str, config_file: Any, limit: int,
           explain: bool, as_json: bool, **filters: Any) -> None:
    """Search memories with hybrid ranking; every hit says why it ranks where it does."""
    from memory_core.model.canonical import memory_doc
    from memory_core.retrieval.search import search as run_search

    flt = filter_from_options(filters)
    store = open_store(ctx, require_tenant=True)
    results = run_search(store, query, flt, ranking_of(preset_name, config_file), limit)
    if as_json:
        emit_json({"query": query, "degraded": results.degraded, "reasons": results.reasons,
                   "elapsed_ms": results.elapsed_ms,
                   "hits": [{"memory": memory_doc(h.memory), "explanation": h.explain()}
                            for h in results]})
        return
    _warn_degraded(results)
    for hit in results:
        echo(f"{hit.rank:>3}. {hit.score:.4f}  {memory_line(hit.memory)}")
        if explain:
            parts = ", ".join(f"{e} #{ev.rank} (+{ev.contribution:.4f})"
                              for e, ev in hit.engines.items())
            extra = f"; stands in for superseded {hit.replaces}" if hit.replaces else ""
            echo(f"      {parts}; bonus x{hit.bonus:.2f}; decay x{hit.decay:.3f}; "
                       f"mmr {hit.mmr_adjustment:+.4f}{extra}")
    echo(f"{len(results)} hits in {results.elapsed_ms:.0f} ms", err=True)


@click.command()
@store_options
@click.argument("query")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
@click.option("--type", "record_type", callback=refuse_empty("to recall every memory type"),
              help="Only this memory type.")
@click.option("--project-tag", callback=refuse_empty("to recall from every project"),
              help="A project (or, failing that, a tag) to scope to.")
@click.option("--tier", default="standard", show_default=True,
              type=click.Choice(["minimal", "compact", "standard", "full"]),
              help="How much of each memory to print.")
@click.option("--session", "session_id", callback=refuse_empty("to recall without a session"),
              help="Do not repeat memories already sent in this session (30 min TTL).")
@click.option("--max-tokens", type=click.IntRange(min=1), default=None,
              help="Print at most this many tokens: whole memories are left out, lowest "
                   "ranked first.")
@ranking_options(RECALL_PRESET)
@json_option("Print the items as JSON.")
@click.pass_context
def recall(ctx: click.Context, query: str, limit: int, record_type: str | None,
           project_tag: str | None, tier: str, session_id: str | None,
           max_tokens: int | None, preset_name: str, config_file: Any, as_json: bool) -> None:
    """What an agent's recall tool returns: best memories, recorded as accessed."""
    from memory_core.retrieval.recall import recall as run_recall

    store = open_store(ctx, require_tenant=True)
    result = run_recall(store, query, limit, record_type, project_tag, tier=tier,
                        session_id=session_id, config=ranking_of(preset_name, config_file),
                        max_tokens=max_tokens)
    if not result.session_recorded:
        echo(f"note: {store.uri} is read-only, so what this recall sent is not recorded for "
             f"session {shown(session_id)}; a later recall may send it again", err=True)
    if as_json:
        emit_json({"items": result.items, "skipped_as_sent": result.skipped_as_sent,
                   "degraded": result.degraded, "reasons": result.reasons,
                   "session_recorded": result.session_recorded,
                   "recall_id": result.recall_id, "tokens": result.tokens,
                   "dropped_for_budget": result.dropped_for_budget})
        return
    _warn_degraded(result)
    echo(result.text or "(nothing new to recall)")
    if result.dropped_for_budget:
        echo(f"{result.dropped_for_budget} more left out to stay within {max_tokens} tokens",
             err=True)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (search, recall)
