"""`memlens check [--repair]`: read every table of the store whole and report each problem
in one line (table, file, what is wrong); `--repair` puts the store right after a preview
of what it loses (memory_core.integrity)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from memory_core.cli.options import json_option, settings_of, store_options
from memory_core.cli.output import echo, emit_json, progress_bar
from memory_core.integrity.check import check_steps
from memory_core.integrity.rows import DEFAULT_SAMPLE
from memory_core.store.files.findings import CheckReport

if TYPE_CHECKING:
    from memory_core.embedding import Embedder


def _checked(uri: str, embedder: Embedder, options: dict[str, str] | None,
             sample: int) -> CheckReport:
    from memory_core.integrity import check_store

    with progress_bar("checking", total=check_steps(), unit="step") as bar:
        return check_store(uri, embedder=embedder, storage_options=options, sample=sample,
                           progress=bar)


def _print_report(report: CheckReport) -> None:
    echo(f"store {report.uri}")
    for table in report.tables:
        sound = ("reads whole" if table.good_version == table.latest
                 else f"newest version that reads whole: {table.good_version}"
                 if table.good_version is not None else "no version reads whole")
        echo(f"  {table.name:<9} version {table.latest}  {sound}")
    for note in report.notes:
        echo(f"  ({note})")
    problems = report.all_problems
    if not problems:
        echo("no problem found")
        return
    echo(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}:")
    for problem in problems:
        echo(f"  {problem.line()}")


@click.command()
@store_options
@click.option("--repair", is_flag=True,
              help="Restore each damaged table to its newest version that reads whole, "
                   "rebuild damaged indexes, re-embed changed vectors (after a preview).")
@click.option("--yes", "-y", is_flag=True, help="Repair without asking.")
@click.option("--sample", type=click.IntRange(min=0), default=DEFAULT_SAMPLE,
              show_default=True, help="Memories re-embedded to check their vectors (0: none).")
@json_option("Print the findings as JSON.")
@click.pass_context
def check(ctx: click.Context, repair: bool, yes: bool, sample: int, as_json: bool) -> None:
    """Check the store's files: every table's latest version (manifest, data files,
    indexes) read whole, the memories' content against its hash and vectors against a
    re-embedded sample, the audit against the tables' versions. Exit 1 when a problem is
    found (after --repair: when one is left).
    """
    from memory_core.embedding import load_embedder
    from memory_core.integrity import apply_repair, plan_repair
    from memory_core.model.errors import ReadOnlyError
    from memory_core.store.object_storage import storage_options

    settings = settings_of(ctx)
    uri, options = settings.store_uri, storage_options(settings.store_uri, settings)
    embedder = load_embedder(settings)
    report = _checked(uri, embedder, options, sample)
    if as_json and not repair:
        emit_json(report.to_dict())
        sys.exit(0 if report.clean else 1)
    _print_report(report)
    if not repair or report.clean:
        if not report.clean:
            echo("run `memlens check --repair` to see what a repair does")
        sys.exit(0 if report.clean else 1)
    if settings.read_only:
        raise ReadOnlyError.refusing(uri, "`memlens check --repair`")
    plan = plan_repair(report, options, model_id=embedder.model_id)
    echo("the repair will:")
    for line in plan.preview():
        echo(f"  {line}")
    if plan.empty:
        echo("nothing here that a repair can fix")
        sys.exit(1)
    if not yes:
        click.confirm("Repair the store?", abort=True)
    result = apply_repair(plan, settings=settings, embedder=embedder, storage_options=options)
    for line in result.lines:
        echo(line)
    after = _checked(uri, embedder, options, sample)
    if after.clean:
        echo("repaired: no problem found now (the repair is in `memlens audit`)")
        sys.exit(0)
    echo(f"{len(after.all_problems)} problem(s) left:")
    for problem in after.all_problems:
        echo(f"  {problem.line()}")
    sys.exit(1)


COMMANDS: tuple[click.Command, ...] = (check,)
