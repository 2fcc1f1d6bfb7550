"""`memlens delete --with-derived` and receipts: the derived memories listed with their
paths before the confirmation (`--keep ID` leaves one as it is), the purge's receipt written
after it, and `memlens verify-deleted --receipt FILE` printed. Everything printed goes through
`echo` (terminal-safe); ids and paths are shortened."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memory_core.cli.curation_flow import print_checks
from memory_core.cli.output import echo, memory_line, shorten

if TYPE_CHECKING:
    from memory_core.curation import CurationReport, Selection
    from memory_core.curation.lineage import Derived
    from memory_core.curation.receipt import ReceiptCheck
    from memory_core.store import MemoryStore

#: Characters of an id in a printed path.
ID_CHARS = 40


@dataclass(frozen=True)
class Lineage:
    """What a `--with-derived` delete takes along: the closure, and the ids kept out."""

    closure: tuple[Derived, ...]
    kept: tuple[str, ...]

    @property
    def taken(self) -> list[str]:
        return [d.id for d in self.closure if d.id not in self.kept]

    @property
    def paths(self) -> dict[str, tuple[str, ...]]:
        return {d.id: d.path for d in self.closure if d.id not in self.kept}


def path_text(path: Sequence[str]) -> str:
    """`a <- r1 <- top`: each memory derived_from the one before it."""
    return " <- ".join(shorten(i, ID_CHARS) for i in path)


def lineage_of(ctx: click.Context, store: MemoryStore, selection: Selection,
               keep: Sequence[str]) -> Lineage:
    """The closure of the selection; a `--keep` id outside it is a usage error."""
    from memory_core.curation.lineage import derived_closure
    from memory_core.model.filters import Filter
    from memory_core.model.untrusted import shown

    ids = sorted(store.ids(selection)) if isinstance(selection, Filter) else list(selection)
    closure = tuple(derived_closure(store, ids))
    inside = {d.id for d in closure}
    outside = [i for i in keep if i not in inside]
    if outside:
        raise click.UsageError(f"--keep {shown(outside[0])}: it is not derived from the "
                               f"selection (keep only ids the preview lists as derived)",
                               ctx=ctx)
    return Lineage(closure, tuple(dict.fromkeys(keep)))


def print_lineage(store: MemoryStore, lineage: Lineage, *, verb: str, err: bool) -> None:
    """Every derived memory with its path, marked as taken along (`verb`) or kept."""
    n = len(lineage.closure)
    if not n:
        echo("derived from the selection: none (no memory is derived_from it)", err=err)
        return
    echo(f"derived from the selection: {n} (path: X <- Y when Y is derived_from X); "
         f"{len(lineage.kept)} kept (--keep ID leaves one as it is)", err=err)
    # every one of them, however many: each is a memory the user may want to keep
    rows = store.get_many([d.id for d in lineage.closure])
    for d in lineage.closure:
        mark = "keep" if d.id in lineage.kept else verb
        row = rows.get(d.id)
        echo(f"  {mark:<6} {memory_line(row, 50) if row else shorten(d.id, ID_CHARS)}",
             err=err)
        echo(f"         path: {path_text(d.path)}", err=err)


def receipt_target(path: str | None, *, wanted: bool) -> Path | None:
    """The receipt path given (checked now, before anything is erased); None for no
    receipt; the default one is named after the batch, once there is one."""
    from memory_core.curation.receipt_file import check_folder, check_new

    if path is not None:
        return check_new(Path(path))
    if wanted:
        check_folder(Path.cwd(), "the current folder")
    return None


def receipt_writer(store: MemoryStore, lineage: Lineage | None, target: Path | None,
                   *, err: bool) -> Callable[[CurationReport], None]:
    """What runs after the purge: its receipt written to `target` (default: the current
    folder, `memlens-receipt-<batch id>.json`), and its path printed."""
    from memory_core.curation.receipt import write_receipt
    from memory_core.model.errors import ReceiptError

    def write(report: CurationReport) -> None:
        try:
            path = write_receipt(store, report, target,
                                 paths=lineage.paths if lineage else None)
        except ReceiptError as exc:
            raise ReceiptError(f"the purge is done (batch {report.batch_id}) but its receipt "
                               f"was not written: {exc}") from exc
        echo(f"receipt: {path} (check it later with `memlens verify-deleted --receipt "
             f"FILE`)", err=err)

    return write


def print_receipt_check(check: ReceiptCheck) -> None:
    """The receipt's purge, the checks now, and what moved since the receipt."""
    receipt = check.receipt
    echo(f"receipt of purge {receipt.batch_id}, tenant {receipt.tenant}, written "
         f"{receipt.written_at}: {len(receipt.erased)} memories")
    if not check.same_store:
        echo(f"  note: written for the store at {shorten(receipt.store, 80)}; checked "
             f"against this one, which holds that purge's record")
    print_checks(check.verification)
    for name, then, now in check.changed:
        echo(f"  since the receipt: {name}: {then or '-'} -> {now or '-'}")
    if check.unrepeatable:
        echo("  note: the searches for the content cannot run again (the purge erased it and "
             "a receipt keeps none); the checks by id and content hash did")
