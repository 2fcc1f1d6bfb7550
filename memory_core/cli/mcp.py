"""`memlens mcp`: serve the store to agents over MCP (stdio, or streamable HTTP with --http)."""

from __future__ import annotations

import threading
from pathlib import Path

import click

from memory_core.cli.options import open_store, refuse_empty, store_options
from memory_core.cli.output import echo


@click.command()
@store_options
@click.option("--agent", metavar="NAME", callback=refuse_empty("to use the client's name"),
              help="Actor of every write and event (default: the client's name from the "
                   "MCP handshake).")
@click.option("--http", "use_http", is_flag=True,
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="With --http: the address to bind (beyond loopback a token is required).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535),
              help="With --http: the port.")
@click.option("--token-file", type=click.Path(path_type=Path, dir_okay=False),
              help="With --http: a file whose first line is the bearer token (else "
                   "MEMLENS_MCP_TOKEN; never on the command line).")
@click.pass_context
def mcp(ctx: click.Context, agent: str | None, use_http: bool, host: str, port: int,
        token_file: Path | None) -> None:
    """Serve this store and tenant to AI agents over MCP: recall, herd_recall, remember,
    cite, correct, supersede, why, related, get_memory, memory_overview and
    consolidation_candidates (with --read-only only the read tools). stdio by default, as
    Claude Code, Claude Desktop and Cursor launch it; --http serves streamable HTTP on
    127.0.0.1 unless --host says otherwise. A writable server creates a missing store."""
    from memory_core.agents.mcp.http import check_bind, read_token
    from memory_core.agents.warm_up import warm_up
    from memory_core.cli.options import settings_of

    read_only = settings_of(ctx).read_only
    token = None
    if use_http:
        token = read_token(token_file)
        check_bind(host, token)
    elif token_file is not None:
        raise click.UsageError("--token-file goes with --http", ctx=ctx)
    store = open_store(ctx, create=not read_only)
    lock = threading.Lock()
    warm_up(store, lock)  # the model and the first reads, while the SDK is imported
    from memory_core.agents.mcp.http import serve_http
    from memory_core.agents.mcp.server import build_server
    from memory_core.agents.mcp.session import ToolState

    state = ToolState(store, agent=agent, lock=lock)
    server = build_server(state, read_only=store.read_only)
    mode = "read-only" if store.read_only else "read-write"
    if use_http:
        shown_host = f"[{host}]" if ":" in host else host
        echo(f"memlens MCP ({mode}, tenant {store.tenant}) at http://{shown_host}:{port}/mcp"
             f"{' (bearer token required)' if token else ''}; Ctrl+C stops it", err=True)
        serve_http(server, host, port, token)
    else:
        server.run("stdio")


COMMANDS: tuple[click.Command, ...] = (mcp,)
