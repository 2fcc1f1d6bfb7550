"""`memlens duplicates`: near-duplicate memories (docs/design/map.md), thin over
`memory_core.projection.near_duplicates`.

Pairs whose vectors have cosine >= --threshold but whose contents differ (exact copies are
dedup's job). Memory content is untrusted: every line goes through `echo`, content is
shortened; `--json` prints the pairs whole. Writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.options import (
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    store_options,
)
from memory_core.cli.output import echo, emit_json, shorten
from memory_core.cli.stage_progress import staged_progress
from memory_core.projection.duplicates import DEFAULT_THRESHOLD

if TYPE_CHECKING:
    import polars as pl

#: Characters of each content a pair shows.
CONTENT_CHARS = 100


def _content(text: str | None) -> str:
    return shorten(" ".join((text or "").split()), CONTENT_CHARS)


def _print(pairs: pl.DataFrame) -> None:
    for row in pairs.iter_rows(named=True):
        echo(f"{row['cosine']:.4f}  {row['a']}  {row['b']}")
        echo(f"    a: {_content(row['a_content'])}")
        echo(f"    b: {_content(row['b_content'])}")


@click.command()
@store_options
@click.option("--threshold", type=float, default=DEFAULT_THRESHOLD, show_default=True,
              help="Smallest cosine of a pair, in (0, 1]: 0.95 finds near copies, lower "
                   "values paraphrases too.")
@click.option("--limit", type=click.IntRange(min=1),
              help="At most this many pairs, the closest first (default: all).")
@filter_options(status_default="active")
@json_option("Print the pairs (ids, cosine and both contents) as JSON.")
@click.pass_context
def duplicates(ctx: click.Context, threshold: float, limit: int | None, as_json: bool,
               **filters: Any) -> None:
    """Pairs of memories whose vectors have cosine >= --threshold but whose contents differ,
    closest first: candidates for a merge. Exact copies (the same content hash) are left
    out, and so are memories not embedded yet."""
    from memory_core.projection import near_duplicates

    store = open_store(ctx, require_tenant=True)
    filter = filter_from_options(filters) if any(filters.values()) else None
    with staged_progress("near-duplicates") as progress:
        pairs = near_duplicates(store, filter, threshold=threshold, limit=limit,
                                progress=progress)
    if as_json:
        emit_json(pairs.to_dicts())
        return
    _print(pairs)
    n = pairs.height
    echo(f"{n} near-duplicate pair{'' if n == 1 else 's'} with cosine >= {threshold:g}"
         f"{f' (the closest {limit})' if limit is not None and n == limit else ''}", err=True)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (duplicates,)
