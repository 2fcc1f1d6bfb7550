"""`memlens export | import | drill | diff` and `memlens bench exchange` (DESIGN.md 5, 8).

`register(cli)` adds the commands to the `memlens` group (and `exchange` to `memlens bench`).
Each command parses, calls one engine function of `memory_core.exchange` and prints; user
mistakes are `MemlensError`s, which the CLI's `main` prints as one line with exit code 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli_support import (
    emit_json,
    filter_from_options,
    filter_options,
    open_store,
    progress_bar,
    store_options,
)

if TYPE_CHECKING:
    from memory_core.exchange.diff import DiffResult

JSON = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")


@click.command(name="export")
@store_options
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--with-vectors", is_flag=True,
              help="Include the vectors (import then keeps them instead of embedding).")
@click.option("--with-audit", is_flag=True, help="Include the audit rows (after the edges).")
@filter_options("all")
@JSON
@click.pass_context
def export_command(ctx: click.Context, path: Path, with_vectors: bool, with_audit: bool,
                   as_json: bool, **filters: Any) -> None:
    """Export the tenant to PATH as canonical NDJSON: a manifest line, then memories (every
    status unless --status is given) and edges sorted by id. Exports of an unchanged store
    have byte-identical bodies. With filters, edges between exported memories only."""
    from memory_core.exchange.export import export_filter, export_store

    flt = filter_from_options(filters)
    store = open_store(ctx, require_tenant=True)
    with progress_bar("exporting", total=store.count(export_filter(flt))) as bar:
        written = export_store(store, path, filter=flt, with_vectors=with_vectors,
                               with_audit=with_audit, progress=bar)
    manifest = written.manifest
    if as_json:
        emit_json({"path": str(written.path), **manifest.to_dict()})
        return
    counts = ", ".join(f"{n} {kind}" for kind, n in manifest.counts.items())
    click.echo(f"exported {counts} to {written.path} (body sha256 {manifest.body_sha256})")


@click.command(name="import")
@store_options
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--mode", type=click.Choice(["empty", "merge"]), default="empty",
              show_default=True,
              help="empty: load into a tenant without memories; merge: upsert memories by "
                   "id (inserted/updated/unchanged) and add edges whose id is new.")
@click.option("--format", "fmt", default="auto", show_default=True,
              help="auto (tell from the manifest), memlens, superagents, or another "
                   "registered reader.")
@JSON
@click.pass_context
def import_command(ctx: click.Context, path: Path, mode: str, fmt: str, as_json: bool) -> None:
    """Import an export file into the tenant: all or nothing. Every line is checked (and
    older schemas migrated) before anything is written; memories without vectors are
    embedded."""
    from memory_core.exchange.importer import import_file

    store = open_store(ctx)
    with progress_bar("reading lines") as read, progress_bar("embedding") as bar:
        report = import_file(store, path, mode=mode, format=fmt,  # type: ignore[arg-type]
                             progress=bar, read_progress=read)
    if as_json:
        emit_json(report.to_dict())
        return
    migrated = f", migrated {'+'.join(report.migrations)}" if report.migrations else ""
    click.echo(f"read {report.path} ({report.format} schema_version "
               f"{report.schema_version}{migrated}): "
               + ", ".join(f"{n} {kind}" for kind, n in report.records.items()))
    click.echo(f"memories: {len(report.inserted)} inserted, {len(report.updated)} updated, "
               f"{len(report.unchanged)} unchanged; {report.vectors_kept} vectors kept, "
               f"{report.embedded} embedded, {report.pending} pending")
    click.echo(f"edges: {report.edges_added} added, {report.edges_skipped} already there; "
               f"audit rows: {report.audit_added} added")
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    if report.embedding_error:
        click.echo(f"note: embedding unavailable ({report.embedding_error}); run "
                   f"`memlens reembed` later", err=True)


@click.command()
@store_options
@click.option("--export-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the drill's export file goes (default: exports/ beside the store "
                   "folder).")
@click.option("--keep", is_flag=True, help="Keep the export file after a passing drill.")
@click.option("--drop-tables", is_flag=True,
              help="Drop and recreate the tables instead of deleting the tenant's rows "
                   "(loses LanceDB version history; refused if other tenants share them).")
@JSON
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
                       progress=lambda step: click.echo(f"drill: {step}", err=True))
    if as_json:
        emit_json(report.to_dict())
    else:
        for check in report.checks:
            click.echo(f"{'PASS' if check.passed else 'FAIL'}  {check.step}: {check.detail}")
        verdict = "PASSED" if report.passed else "FAILED"
        click.echo(f"recovery drill {verdict} ({report.mode}, tenant {report.tenant})")
        if report.export_path:
            click.echo(f"export kept at {report.export_path}")
    if not report.passed:
        sys.exit(1)  # `main` runs click in non-standalone mode, which ignores ctx.exit codes


def _short(value: str | None, width: int = 60) -> str:
    text = "(absent)" if value is None else value
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_diff(result: DiffResult, limit: int) -> None:
    click.echo(f"A: {result.a}\nB: {result.b}")
    for note in result.notes:
        click.echo(f"note: {note}")
    if result.ignored:
        click.echo(f"ignoring: {', '.join(result.ignored)}")
    for kind, c in result.counts.items():
        click.echo(f"{kind:>7}: {c.added} added, {c.removed} removed, {c.changed} changed, "
                   f"{c.unchanged} unchanged")
    for by, kind in (("memory_type", "memory"), ("project", "memory"), ("agent", "memory"),
                     ("relation", "edge")):
        rows = result.breakdown(by, kind=kind).head(8).iter_rows(named=True)
        parts = [f"{r['value']} +{r['added']} -{r['removed']} ~{r['changed']}" for r in rows]
        if parts:
            click.echo(f"by {by}: " + ", ".join(parts))
    fields = result.fields
    sign = {"added": "+", "removed": "-", "changed": "~"}
    frame = result.to_frame()
    for row in (frame.head(limit) if limit else frame).iter_rows(named=True):
        click.echo(f"{sign[row['change']]} {row['kind']} {row['id']}")
        if row["change"] == "changed":
            own = fields.filter((fields["kind"] == row["kind"]) & (fields["id"] == row["id"]))
            for name, old, new in own.select("field", "old", "new").iter_rows():
                click.echo(f"    {name}: {_short(old)} -> {_short(new)}")
    if limit and frame.height > limit:
        click.echo(f"... and {frame.height - limit} more (--limit 0 or --json lists all)")


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
@JSON
@click.pass_context
def diff(ctx: click.Context, a: str, b: str, ignore: tuple[str, ...], limit: int,
         exit_code: bool, as_json: bool) -> None:
    """Compare A and B, each an export file, `live` (the store's tenant now) or `version:N`
    (memories at table version N): added, removed and changed records, field by field,
    broken down by memory_type, project, agent (edges by relation)."""
    from memory_core.exchange.diff import diff_sides
    from memory_core.exchange.diff_sides import LIVE, VERSION, load_side

    needs_store = any(s == LIVE or s.startswith(VERSION) for s in (a, b))
    store = open_store(ctx, require_tenant=True) if needs_store else None
    result = diff_sides(load_side(a, store), load_side(b, store), ignore=ignore)
    if as_json:
        emit_json(result.to_dict())
    else:
        _print_diff(result, limit)
    if exit_code and not result.identical:
        sys.exit(1)


@click.command(name="exchange")
@click.option("--n", default=100_000, show_default=True, help="Memories in the synthetic store.")
@JSON
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
    ok = {True: "PASS", False: "FAIL"}
    click.echo(f"{r.n} memories ({r.dimension}-d vectors), {r.edges} edges")
    click.echo(f"export            {r.export_s:6.2f} s  (target <= {EXPORT_TARGET_S:.0f} s) "
               f"{ok[r.export_within_target]}  {r.export_mb} MiB")
    click.echo(f"export + vectors  {r.export_vectors_s:6.2f} s  {r.export_vectors_mb} MiB")
    click.echo(f"import + vectors  {r.import_vectors_s:6.2f} s  (target <= "
               f"{IMPORT_TARGET_S:.0f} s) {ok[r.import_within_target]}")
    click.echo(f"diff (1% differ)  {r.diff_s:6.2f} s  (target <= {DIFF_TARGET_S:.0f} s) "
               f"{ok[r.diff_within_target]}  {r.diff_changed_records} records differ")
    click.echo("memory: resident set growth (MiB) during " + ", ".join(
        f"{k} {v}" for k, v in r.rss_growth_mib.items()) + f"; process peak {r.max_rss_mib} MiB")


def register(cli: click.Group) -> None:
    """Add export, import, drill and diff to `cli`, and `exchange` to `memlens bench`."""
    from memory_core.cli_bench import bench

    for command in (export_command, import_command, drill, diff):
        cli.add_command(command)
    bench.add_command(exchange_bench)
