"""The `memlens` command: parse, call the engine, print (docs/reference/cli.md).

One module per command family (`memories`, `curation`, `corrections`, `search`, `graph`,
`decay`, `duplicates`, `projection` (map), `maintenance`, `exchange`, `eval`, `tune`, `bench`,
`check`, `mcp`, `agents`, `consolidate`), each listing its commands in `COMMANDS`; `options`
(the shared options) and `output` (what commands print) hold what they share. User mistakes
(every `MemlensError`, bad options) print one line on stderr and exit 1; data output has
`--json`; long work shows a progress bar on stderr. Human-readable output goes through
`output.echo`, which escapes the control characters a memory could hold.
"""

from __future__ import annotations

import sys

import click

from memory_core.cli import (
    agents,
    bench,
    check,
    consolidate,
    corrections,
    curation,
    decay,
    duplicates,
    exchange,
    graph,
    maintenance,
    mcp,
    memories,
    projection,
    search,
    tune,
)
from memory_core.cli import eval as evaluation
from memory_core.cli.options import UNSET_STORE, UNSET_TENANT, read_only_option, refuse_empty
from memory_core.cli.output import one_line_errors, warnings_to_terminal

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", "store_uri", metavar="URI", callback=refuse_empty(UNSET_STORE),
              help="Store folder or URI (MEMLENS_STORE).")
@click.option("--tenant", metavar="T", callback=refuse_empty(UNSET_TENANT),
              help="Tenant whose memories to use (MEMLENS_TENANT).")
@read_only_option
@click.version_option(package_name="memlens")
@click.pass_context
def cli(ctx: click.Context, store_uri: str | None, tenant: str | None) -> None:
    """memlens: review, search and curate what AI agents remember in LanceDB."""
    ctx.ensure_object(dict)
    ctx.obj.update(store=store_uri, tenant=tenant)


for _family in (memories, curation, corrections, search, graph, maintenance, exchange,
                evaluation, tune, bench, decay, duplicates, projection, check, mcp, agents,
                consolidate):
    for _command in _family.COMMANDS:
        cli.add_command(_command)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user mistakes into one line and exit code 1."""
    from memory_core.store import stall_watch

    try:
        with warnings_to_terminal(), one_line_errors():
            # without standalone mode click returns ctx.exit() codes instead of exiting
            code = cli.main(args=argv, prog_name="memlens", standalone_mode=False)
            if isinstance(code, int) and code:
                sys.exit(code)
    finally:
        stall_watch.forget()  # the stores this command opened are no longer waited on
