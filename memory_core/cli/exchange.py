"""`memlens export | import | drill | diff`: move a tenant in and out of files.

The file formats are those of docs/design/exports.md and docs/design/importers.md.

Each command parses, calls one engine function of `memory_core.exchange` and prints; user
mistakes are `MemlensError`s, which the CLI's `main` prints as one line with exit code 1.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.options import (
    engine_option,
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    refuse_empty,
    settings_of,
    store_options,
)
from memory_core.cli.output import echo, emit_json, progress_bar, shorten
from memory_core.model.untrusted import shown
from memory_core.store.disk_full import folder_bytes, on_full_disk

if TYPE_CHECKING:
    from memory_core.exchange.diff import DiffResult
    from memory_core.exchange.import_report import ImportReport



@click.command(name="export")
@store_options
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--with-vectors", is_flag=True,
              help="Include the vectors (import then keeps them instead of embedding).")
@click.option("--with-audit", is_flag=True, help="Include the audit rows (after the edges).")
@filter_options("all")
@engine_option("render the memory lines")
@json_option()
@click.pass_context
def export_command(ctx: click.Context, path: Path, with_vectors: bool, with_audit: bool,
                   engine: str, as_json: bool, **filters: Any) -> None:
    """Export the tenant to PATH as canonical NDJSON: a manifest line, then memories (every
    status unless --status is given), edges, events and, with --with-audit, audit rows, each
    sorted by id. Exports of an unchanged store have byte-identical bodies. With filters,
    edges between exported memories and the events of exported memories only."""
    from memory_core.exchange.export import export_filter, export_store, local_memory_lines

    flt = filter_from_options(filters)
    store = open_store(ctx, require_tenant=True)
    with ExitStack() as job:
        source = local_memory_lines
        if engine == "ray":
            from memory_core.distributed.export_job import ray_memory_lines
            from memory_core.distributed.session import ray_session

            job.enter_context(ray_session())
            source = ray_memory_lines
        bar = job.enter_context(progress_bar("exporting", total=store.count(export_filter(flt))))
        written = export_store(store, path, filter=flt, with_vectors=with_vectors,
                               with_audit=with_audit, progress=bar, memory_source=source)
    manifest = written.manifest
    if as_json:
        emit_json({"path": str(written.path), **manifest.to_dict()})
        return
    counts = ", ".join(f"{n} {kind}" for kind, n in manifest.counts.items())
    echo(f"exported {counts} to {written.path} (body sha256 {manifest.body_sha256})")


def _params(pairs: tuple[str, ...]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{shown(pair)} is not KEY=VALUE", param_hint="--param")
        params[key.strip()] = value
    return params


def _print_import(report: ImportReport, sniffed: bool) -> None:
    migrated = f", migrated {'+'.join(report.migrations)}" if report.migrations else ""
    chosen = " (--format auto chose it)" if sniffed else ""
    echo(f"format: {report.format}{chosen}; mode {report.mode}"
               f"{'; dry run, nothing written' if report.dry_run else ''}")
    echo(f"read {report.read} records from {report.path} ({report.format} schema_version "
               f"{report.schema_version}{migrated}): "
               + ", ".join(f"{n} {kind}" for kind, n in report.records.items()))
    if report.dry_run:
        echo(f"memories: {len(report.inserted)} would be new, {len(report.existing)} "
                   f"already in the tenant (updated or unchanged), {report.pending} to embed")
        echo(f"edges: {report.edges_added} would be created, {report.edges_skipped} "
                   f"already there")
    else:
        echo(f"memories: {len(report.inserted)} imported, {len(report.updated)} "
                   f"updated, {len(report.unchanged)} unchanged; {report.vectors_kept} "
                   f"vectors kept, {report.embedded} embedded, {report.pending} pending")
        echo(f"edges: {report.edges_added} created, {report.edges_skipped} already "
                   f"there; audit rows: {report.audit_added} added")
    echo(f"duplicates by content_hash: {len(report.duplicates)}")
    skipped = sum(int(s["count"]) for s in report.skipped.values())
    echo(f"skipped: {skipped}")
    for reason, seen in report.skipped.items():
        echo(f"  {seen['count']} {reason} (e.g. {', '.join(seen['examples'])})")
    if report.queries_path:
        echo(f"queries: {report.queries} written to {report.queries_path}")
    for note in report.notes:
        echo(f"note: {note}", err=True)
    if report.embedding_error:
        echo(f"note: embedding unavailable ({report.embedding_error}); run "
                   f"`memlens reembed` later", err=True)


def _list_formats(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from memory_core.exchange.readers import get_reader, reader_names

    for name in reader_names():
        echo(f"{name:14} {get_reader(name).summary}")
    ctx.exit(0)


@click.command(name="import")
@store_options
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--format", "fmt", default="auto", show_default=True,
              help="auto (recognise the input and say which format it chose), or a format "
                   "name; `memlens import --formats` lists them.")
@click.option("--mode", type=click.Choice(["empty", "merge"]), default=None,
              help="empty: load into a tenant without memories; merge: upsert memories by "
                   "id and add edges whose id is new. Default: empty for memlens exports, "
                   "merge for every other format.")
@click.option("--dry-run", is_flag=True, help="Read and check everything; write nothing.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Read at most N records (sessions for transcripts; see the format).")
@click.option("--project", default=None, callback=refuse_empty("to import every project"),
              help="Only this project (formats with projects).")
@click.option("--table", default=None, callback=refuse_empty("to let the format find it"),
              help="Table name of a LanceDB source.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
              help="A format-specific setting (see docs/guides/importers.md); repeatable.")
@click.option("--queries-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Benchmark formats: write their query set to this NDJSON file.")
@click.option("--formats", "list_formats", is_flag=True, is_eager=True, expose_value=False,
              callback=_list_formats, help="List the import formats and exit.")
@json_option()
@click.pass_context
def import_command(ctx: click.Context, path: Path, fmt: str, mode: str | None, dry_run: bool,
                   limit: int | None, project: str | None, table: str | None,
                   params: tuple[str, ...], queries_out: Path | None, as_json: bool) -> None:
    """Import memories from PATH: a memlens export or another memory system's files. All
    or nothing: every record is checked before anything is written; memories without
    vectors are embedded."""
    from memory_core.exchange.importer import import_into
    from memory_core.exchange.readers import AUTO, ReadOptions

    options = ReadOptions(limit=limit, project=project, table=table, params=_params(params))
    settings = settings_of(ctx)
    # Staging copies the input, the tables add about as much again.
    with (on_full_disk(settings.store_uri, "`memlens import`", "nothing was imported",
                       lambda: 2 * folder_bytes(path)),
          progress_bar("reading records") as read, progress_bar("embedding") as bar):
        # a missing store is created only after the whole input checked out
        report = import_into(settings, path, mode=mode, format=fmt, options=options,
                             dry_run=dry_run, queries_out=queries_out, progress=bar,
                             read_progress=read)
    if as_json:
        emit_json(report.to_dict())
        return
    _print_import(report, sniffed=fmt == AUTO)


@click.command()
@store_options
@click.option("--export-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the drill's export file goes (default: exports/ beside the store "
                   "folder).")
@click.option("--keep", is_flag=True, help="Keep the export file after a passing drill.")
@click.option("--drop-tables", is_flag=True,
              help="Drop and recreate the tables instead of deleting the tenant's rows "
                   "(loses LanceDB version history; refused if other tenants share them).")
@json_option()
@click.pass_context
def drill(ctx: click.Context, export_dir: Path | None, keep: bool, drop_tables: bool,
          as_json: bool) -> None:
    """Recovery drill: export -> verify the file -> rehearse in a scratch store -> drop ->
    import -> compare counts and body sha256. Exit code 1 on any difference; the export file
    is kept (and named) whenever anything fails."""
    from memory_core.exchange.drill import run_drill
    from memory_core.exchange.export import default_exports_dir

    store = open_store(ctx, require_tenant=True)
    report = run_drill(store, export_dir=export_dir or default_exports_dir(store.uri),
                       drop_tables=drop_tables, keep=keep,
                       progress=lambda step: echo(f"drill: {step}", err=True))
    if as_json:
        emit_json(report.to_dict())
    else:
        for check in report.checks:
            echo(f"{'PASS' if check.passed else 'FAIL'}  {check.step}: {check.detail}")
        verdict = "PASSED" if report.passed else "FAILED"
        echo(f"recovery drill {verdict} ({report.mode}, tenant {report.tenant})")
        if report.export_path:
            echo(f"export kept at {report.export_path}")
    if not report.passed:
        sys.exit(1)  # `main` runs click in non-standalone mode, which ignores ctx.exit codes


def _short(value: str | None) -> str:
    return shorten("(absent)" if value is None else value, 60)


def _print_diff(result: DiffResult, limit: int) -> None:
    echo(f"A: {result.a}\nB: {result.b}")
    for note in result.notes:
        echo(f"note: {note}")
    if result.ignored:
        echo(f"ignoring: {', '.join(result.ignored)}")
    for kind, c in result.counts.items():
        echo(f"{kind:>7}: {c.added} added, {c.removed} removed, {c.changed} changed, "
                   f"{c.unchanged} unchanged")
    for by, kind in (("memory_type", "memory"), ("project", "memory"), ("agent", "memory"),
                     ("relation", "edge")):
        rows = result.breakdown(by, kind=kind).head(8).iter_rows(named=True)
        parts = [f"{r['value']} +{r['added']} -{r['removed']} ~{r['changed']}" for r in rows]
        if parts:
            echo(f"by {by}: " + ", ".join(parts))
    fields = result.fields
    sign = {"added": "+", "removed": "-", "changed": "~"}
    frame = result.to_frame()
    for row in (frame.head(limit) if limit else frame).iter_rows(named=True):
        echo(f"{sign[row['change']]} {row['kind']} {row['id']}")
        if row["change"] == "changed":
            own = fields.filter((fields["kind"] == row["kind"]) & (fields["id"] == row["id"]))
            for name, old, new in own.select("field", "old", "new").iter_rows():
                echo(f"    {name}: {_short(old)} -> {_short(new)}")
    if limit and frame.height > limit:
        echo(f"... and {frame.height - limit} more (--limit 0 or --json lists all)")


@click.command()
@store_options
@click.argument("a")
@click.argument("b")
@click.option("--ignore", multiple=True, metavar="FIELD",
              help="Leave FIELD out of the comparison; repeat. E.g. updated_at, access_count, "
                   "last_accessed_at, metadata.KEY.")
@click.option("--limit", default=20, show_default=True,
              help="Changed records listed in text output (0 for all).")
@click.option("--exit-code", is_flag=True, help="Exit with 1 when the sides differ.")
@json_option()
@click.pass_context
def diff(ctx: click.Context, a: str, b: str, ignore: tuple[str, ...], limit: int,
         exit_code: bool, as_json: bool) -> None:
    """Compare A and B, each an export file, `live` (the store's tenant now) or `version:N`
    (memories at table version N): added, removed and changed records, field by field,
    broken down by memory_type, project, agent (edges by relation). A warning on stderr says
    when A and B hold different tenants."""
    from memory_core.exchange.diff import diff_sides
    from memory_core.exchange.diff_sides import LIVE, VERSION, load_side

    needs_store = any(s == LIVE or s.startswith(VERSION) for s in (a, b))
    store = open_store(ctx, require_tenant=True) if needs_store else None
    result = diff_sides(load_side(a, store), load_side(b, store), ignore=ignore)
    if result.tenant_mismatch:
        echo(f"warning: {result.tenant_mismatch}", err=True)
    if as_json:
        emit_json(result.to_dict())
    else:
        _print_diff(result, limit)
    if exit_code and not result.identical:
        sys.exit(1)


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (export_command, import_command, drill, diff)
