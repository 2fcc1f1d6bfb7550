"""`--queries FILE|demo`: a query-set file, or `demo` for the demo corpus' query set that
ships with memlens (so a user outside a checkout can evaluate the demo store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

#: What `--queries` takes for the demo corpus' query set.
DEMO_QUERY_SET = "demo"
#: The help of a `--queries` option.
QUERY_SET_HELP = ("Query set: NDJSON, one {qid, query, relevant, filter, tags} a line; "
                  f"`{DEMO_QUERY_SET}` for the demo corpus' (shipped with memlens).")


class QuerySetPath(click.Path):
    """An existing query-set file, or `demo`: the demo query set's path."""

    name = "query set"

    def __init__(self) -> None:
        super().__init__(exists=True, dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if value == DEMO_QUERY_SET:  # a file named demo is still `./demo`
            from memory_core.seeding import DEMO_QUERIES, demo_file

            return demo_file(DEMO_QUERIES)
        return super().convert(value, param, ctx)
