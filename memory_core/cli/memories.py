"""`memlens init | serve | stats | add | ls | show`: the store and its memories."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.options import (
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    settings_of,
    store_options,
)
from memory_core.cli.output import echo, emit_json, memory_line, progress_bar
from memory_core.model.errors import InvalidRecordError, MemlensError, ReadOnlyError
from memory_core.model.untrusted import shown
from memory_core.store.disk_full import on_full_disk

if TYPE_CHECKING:
    from collections.abc import Callable

    from memory_core.model.records import Memory
    from memory_core.store import MemoryStore


@click.command()
@store_options
@click.option("--from", "source", type=click.Path(path_type=Path),
              help="Export file to seed from (default: the demo corpus shipped with memlens).")
@click.option("--demo", is_flag=True,
              help="Seed with the demo corpus shipped with memlens (what `init` does without "
                   "--from).")
@json_option("Print the report as JSON.")
@click.pass_context
def init(ctx: click.Context, source: Path | None, demo: bool, as_json: bool) -> None:
    """Create the store and seed it with the demo corpus (embedding it with a progress bar).

    Does nothing if the tenant already has memories.
    """
    from memory_core.seeding import seed_from_export

    if demo and source is not None:
        raise click.UsageError("--demo seeds the demo corpus and --from another export; "
                               "give one of them")
    settings = settings_of(ctx)
    if settings.read_only:  # refused before a missing store could be reported as missing
        raise ReadOnlyError.refusing(settings.store_uri, "init")
    store = open_store(ctx, create=True)
    existing = store.count()
    if existing:
        result: dict[str, Any] = {"store": store.uri, "seeded": False, "memories": existing}
        message = f"{store.uri} already holds {existing} memories; nothing to seed"
    else:
        with progress_bar("embedding") as bar:
            report = seed_from_export(store, source, progress=bar)
        result = {"store": store.uri, "seeded": True, **report.__dict__}
        message = (f"seeded {store.uri} with {report.memories} memories and {report.edges} "
                   f"edges from {report.source}")
        if report.pending:
            message += (f"; {report.pending} are pending embedding ({report.embedding_error}); "
                        f"run `memlens reembed` once the model is available")
    from memory_core.projection.warm import start_map_warm

    start_map_warm(settings.model_cache)  # the map's engine compiles once, in the background
    emit_json(result) if as_json else echo(message)


#: Addresses that only this machine can reach; `serve` binds to the first by default.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: The web app's server process, by module (the `memlens_app` package installed beside this one).
APP_SERVER = "memlens_app.server"


@click.command()
@store_options
@click.option("--host", default=LOOPBACK[0], show_default=True,
              help="Address to listen on. Anything but this machine (e.g. 0.0.0.0) lets "
                   "everyone who can reach it read and write the store.")
@click.option("--port", default=8501, show_default=True, help="Port of the web app.")
@click.option("--no-seed", is_flag=True, help="Do not seed an empty store with the demo.")
@click.option("--headless/--open-browser", default=True, show_default=True,
              help="Open a browser tab or not.")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, no_seed: bool, headless: bool) -> None:
    """Start the memlens web app (Streamlit) on this machine only (--host to share it),
    seeding an empty store with the demo first (unless --read-only: then the app has no
    write control at all). It creates a missing store only to seed it; with --no-seed the
    app starts without one (its Overview can create it)."""
    from memory_core.model.errors import StoreDamagedError, StoreNotFoundError

    try:
        store: MemoryStore | None = open_store(ctx, create=not no_seed)
    except StoreDamagedError as exc:  # the app starts and shows the same line on its pages
        echo(f"warning: {exc}", err=True)
        store = None
    except StoreNotFoundError as exc:
        if not no_seed:
            raise
        echo(f"note: {exc}; the app starts without it", err=True)
        store = None
    settings = settings_of(ctx)
    uri, tenant = (store.uri, store.tenant) if store else (settings.store_uri, settings.tenant)
    read_only = store.read_only if store else settings.read_only
    if store is not None and not no_seed and store.count() == 0:
        if store.read_only:
            echo(f"note: {store.uri} holds no memories and is read-only, so it is not "
                 f"seeded", err=True)
        else:
            ctx.invoke(init)
    from memory_core.projection.warm import start_map_warm

    start_map_warm(settings.model_cache)  # the Map page's engine, compiled once per machine
    if importlib.util.find_spec(APP_SERVER.partition(".")[0]) is None:  # found, not imported
        raise MemlensError("the web app (package memlens_app) is not installed beside "
                           "memory_core; reinstall memlens (pip install memlens)")
    if host not in LOOPBACK:
        # the app has no login: whoever reaches the port can read and (unless read-only)
        # change every memory of the allowed stores
        echo(f"warning: memlens listens on {host}, so anyone who can reach this "
                   f"machine on port {port} can use the app and "
                   f"{'read' if read_only else 'read and change'} the store; there is "
                   f"no login. Set MEMLENS_READ_ONLY=1 or put it behind an authenticating "
                   f"proxy.", err=True)
    # after the app's own settings (the server adds them): these win over them
    env_args = ["--server.address", host, "--server.port", str(port),
                "--server.headless", str(headless).lower(),
                "--browser.gatherUsageStats", "false"]
    app_args = ["--", "--store", uri, "--tenant", tenant]
    env = dict(os.environ)
    if read_only:  # the app reads MEMLENS_READ_ONLY wherever it builds Settings
        app_args.append("--read-only")
        env["MEMLENS_READ_ONLY"] = "1"
    shown_host = f"[{host}]" if ":" in host else host
    echo(f"memlens is at http://{shown_host}:{port} (Ctrl+C stops it)", err=True)
    # Streamlit's own command line on the app, behind one that preloads LanceDB and
    # scikit-learn; the engine names the app's module and never imports it
    code = subprocess.call([sys.executable, "-m", APP_SERVER, *env_args, *app_args], env=env)
    sys.exit(code)


@click.command()
@store_options
@json_option("Print the stats as JSON.")
@click.pass_context
def stats(ctx: click.Context, as_json: bool) -> None:
    """Counts by type, project, agent and status, and the store's health."""
    from memory_core.stats import store_stats
    from memory_core.store.index_health import index_fix_command

    s = store_stats(open_store(ctx, require_tenant=True))
    given = {**(ctx.find_root().obj or {}), **(ctx.obj or {})}  # --store/--tenant as typed
    fix = index_fix_command(given.get("store"), given.get("tenant"))
    outgrown = s.index_health.warning(fix) if s.index_health is not None else None
    if as_json:
        out = s.to_dict()
        if out["index_health"] is not None:
            out["index_health"]["warning"] = outgrown
        emit_json(out)
        return
    echo(f"store {s.uri}  tenant {s.tenant}  version {s.table_version}")
    echo(f"model {s.model_id} ({s.dimension}-d)")
    echo(f"memories {s.memories} ({s.active} active)  edges {s.edges}")
    for title, counts in (("status", s.by_status), ("type", s.by_type),
                          ("project", s.by_project), ("agent", s.by_agent),
                          ("embedding", s.by_embedding_status)):
        echo(f"{title:>10}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    echo(f"    health: {s.pending_embeddings} pending embeddings, {s.duplicate_groups} "
               f"duplicate groups ({s.duplicate_memories} memories), {s.dangling_edges} "
               f"dangling edges")
    if s.interrupted_write:
        echo(f"   warning: {s.interrupted_write}", err=True)
    if outgrown:
        echo(f"   warning: {outgrown}", err=True)


def _metadata(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(f"--metadata is not JSON ({exc.msg}): {shown(text)}") from exc
    if not isinstance(value, dict):
        raise InvalidRecordError(f"--metadata must be a JSON object, got {shown(text)}")
    return value


def _write(store: MemoryStore, memories: list[Memory], *, upsert: bool, dedup: bool,
           progress: Callable[[int], None]) -> dict[str, Any]:
    """Add or upsert `memories`; the result as `memlens add --json` prints it."""
    if upsert:
        up = store.upsert(memories, reason="memlens add --upsert", progress=progress)
        return {"inserted": list(up.inserted), "updated": list(up.updated),
                "unchanged": list(up.unchanged), "pending": up.pending,
                "version": up.table_version}
    report = store.add(memories, dedup=dedup, reason="memlens add", progress=progress)
    return {"inserted": list(report.inserted),
            "duplicates": [list(d) for d in report.duplicates],
            "pending": report.pending, "version": report.table_version}


def _print_added(result: dict[str, Any], *, many: bool) -> None:
    pending = " (embedding pending; run `memlens reembed`)" if result["pending"] else ""
    if not many and result.get("duplicates"):
        echo(f"not added: the same content is already memory {result['duplicates'][0][1]} "
                   f"(use --allow-duplicate to store it anyway)")
    elif not many:
        echo(f"added {result['inserted'][0]}{pending}")
    else:
        counts = ", ".join(f"{len(v) if isinstance(v, list) else v} {k}"
                           for k, v in result.items() if k != "version")
        echo(f"{counts}{pending}")


@click.command()
@store_options
@click.argument("content", required=False)
@click.option("--file", "file", type=click.File("r", encoding="utf-8"),
              help="Add many: an NDJSON file (or - for stdin), one memory object a line.")
@click.option("--upsert", is_flag=True,
              help="With --file: replace memories whose id exists, insert the rest.")
@click.option("--type", "memory_type", default="observation", show_default=True,
              help="Memory type (open vocabulary; aliases are mapped).")
@click.option("--project")
@click.option("--repo")
@click.option("--agent")
@click.option("--session", "session_id")
@click.option("--tag", "tags", multiple=True, help="A tag; repeat for more.")
@click.option("--why", help="One-line rationale.")
@click.option("--source", help="user_statement, agent_inference, code_analysis, transcript, ...")
@click.option("--importance", default="normal", show_default=True)
@click.option("--metadata", help="A JSON object of extra fields.")
@click.option("--allow-duplicate", is_flag=True, help="Store it even if the content exists.")
@json_option()
@click.pass_context
def add(ctx: click.Context, content: str | None, file: Any, upsert: bool, memory_type: str,
        project: str | None, repo: str | None, agent: str | None, session_id: str | None,
        tags: tuple[str, ...], why: str | None, source: str | None, importance: str,
        metadata: str | None, allow_duplicate: bool, as_json: bool) -> None:
    """Add one memory (CONTENT) or many (--file), embedding them now.

    Memories are written with embedding_status "pending" if the model is unavailable;
    `memlens reembed` completes them. Each line of --file is a JSON object with at least
    "content"; every line is checked before anything is written.
    """
    from memory_core.exchange.memory_lines import read_memory_lines
    from memory_core.model.records import Memory

    if (content is None) == (file is None):
        raise click.UsageError("give either CONTENT or --file, not both or neither")
    if upsert and file is None:
        raise click.UsageError("--upsert works with --file")
    if file is not None:
        memories = read_memory_lines(file, source=getattr(file, "name", "input"))
    else:
        memories = [Memory.new(content or "", memory_type, project=project, repo=repo,
                               agent=agent, session_id=session_id, tags=tags, why=why,
                               source=source, importance=importance,
                               metadata=_metadata(metadata))]
    store = open_store(ctx, create=True)
    size = sum(len(m.content.encode()) for m in memories)
    with (on_full_disk(store.uri, "`memlens add`", "nothing was added", lambda: 2 * size),
          progress_bar("embedding", total=len(memories)) as bar):
        result = _write(store, memories, upsert=upsert, dedup=not allow_duplicate,
                        progress=bar)
    if as_json:
        emit_json(result)
    else:
        _print_added(result, many=file is not None)


@click.command(name="ls")
@store_options
@filter_options()
@click.option("--limit", default=20, show_default=True, help="How many (0 for all).")
@json_option("Print memories as JSON lines.")
@click.pass_context
def ls_command(ctx: click.Context, limit: int, as_json: bool, **filters: Any) -> None:
    """List memories, newest first, with filters."""
    from memory_core.model.canonical import memory_doc

    flt = filter_from_options(filters)
    store = open_store(ctx, require_tenant=True)
    memories = store.list(flt, limit=limit or None)
    if as_json:
        emit_json([memory_doc(m) for m in memories])
        return
    for m in memories:
        echo(memory_line(m))
    total = store.count(flt)
    echo(f"{len(memories)} of {total} matching memories", err=True)


@click.command()
@store_options
@click.argument("memory_id")
@click.option("--full", is_flag=True,
              help="Print every field whole (a field is otherwise cut at 2,000 characters).")
@json_option("Print the memory as JSON (always whole).")
@click.pass_context
def show(ctx: click.Context, memory_id: str, full: bool, as_json: bool) -> None:
    """Show one memory with its edges and audit history."""
    from memory_core.model.canonical import edge_doc, memory_doc
    from memory_core.retrieval.tiers import SHOWN_CHARS, cut_content

    store = open_store(ctx, require_tenant=True)
    memory = store.get(memory_id)
    edges = store.edges.list(memory_id=memory_id)
    history = store.audit.entries(memory_id=memory_id, limit=20)
    if as_json:
        emit_json({"memory": memory_doc(memory), "edges": [edge_doc(e) for e in edges],
                   "audit": [{"at": a.at.isoformat(), "actor": a.actor, "action": a.action,
                              "reason": a.reason} for a in history]})
        return
    for key, value in memory_doc(memory).items():
        if key != "kind" and value not in (None, [], {}):
            text, total = (str(value), 0) if full else cut_content(str(value))
            echo(f"{key:>16}: {text}")
            if total:
                echo(f"{'':>16}  ({key} cut at {SHOWN_CHARS:,} of {total:,} characters; "
                     f"`memlens show {memory_id} --full` prints all)")
    for e in edges:
        arrow = f"-[{e.relation}]-> {e.target_id}" if e.source_id == memory_id \
            else f"<-[{e.relation}]- {e.source_id}"
        echo(f"{'edge':>16}: {arrow} (strength {e.strength:.2f})")
    for a in history:
        echo(f"{'audit':>16}: {a.at:%Y-%m-%d %H:%M} {a.actor} {a.action} {a.reason or ''}")


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (init, serve, stats, add, ls_command, show)
