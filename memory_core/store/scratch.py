"""Scratch folders for work on a store's data (import staging), kept with the store.

An import stages every record (memory content included) before it writes. The staging
folder lives in the store's control folder (`<store>/.memlens-scratch/` for a local store;
the model cache for one on object storage), never in the system temp folder, so the content
stays where the store's own permissions protect it. A folder is removed when its work ends,
and folders left by a process that died (`kill -9`) are removed by the next one.

Two kinds of file are swept the same way, by the process id in their name: the write
journal's temporary copy (`.memlens-journal.<pid>.tmp` in the control folder, which a full
disk can leave), and the temporary files an export writes beside its destination
(`.memlens-<pid>-*.body` / `.tmp`, swept by the next export to that folder).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

SCRATCH = ".memlens-scratch"
#: The write journal's temporary copy (`WriteLock.write_journal`), by its writer's pid.
JOURNAL_TMP = re.compile(r"\.memlens-journal\.(\d+)\.tmp")
#: An export's temporary body and final file (`ExportWriter`), by its writer's pid.
EXPORT_TMP = re.compile(r"\.memlens-(\d+)-[^/]*\.(?:body|tmp)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def sweep(control: Path) -> list[Path]:
    """Remove the scratch folders and journal copies of processes that no longer run;
    returns them."""
    root = control / SCRATCH
    removed: list[Path] = []
    for folder in root.iterdir() if root.is_dir() else ():
        pid_text = folder.name.split("-")[1] if folder.name.count("-") >= 2 else ""
        if _stale(pid_text):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        log.info("removed %d scratch folders left by interrupted work", len(removed))
    return removed + sweep_files(control, JOURNAL_TMP)


def _stale(pid_text: str) -> bool:
    return pid_text.isdigit() and int(pid_text) != os.getpid() and not _alive(int(pid_text))


def sweep_files(folder: Path, pattern: re.Pattern[str]) -> list[Path]:
    """Remove the files directly in `folder` whose name matches `pattern` (group 1: the
    pid of the process writing them) and whose process no longer runs; returns them."""
    removed: list[Path] = []
    try:
        names = [p for p in folder.iterdir() if (m := pattern.fullmatch(p.name))
                 and _stale(m.group(1))]
    except OSError:  # no such folder, or not ours to list
        return removed
    for path in names:
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:  # not ours to remove: said, and left
            log.warning("could not remove %s left by a dead process: %s", path, exc)
            continue
        removed.append(path)
    if removed:
        log.info("removed %d temporary files left by dead processes in %s", len(removed),
                 folder)
    return removed


@contextmanager
def scratch_folder(control: Path, purpose: str) -> Iterator[Path]:
    """A fresh folder `<control>/.memlens-scratch/<purpose>-<pid>-<random>`, removed after;
    stale folders of dead processes are swept first."""
    sweep(control)
    folder = control / SCRATCH / f"{purpose}-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    folder.mkdir(parents=True, mode=0o700)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
