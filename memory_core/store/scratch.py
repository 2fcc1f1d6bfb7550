"""Scratch folders for work on a store's data (import staging), kept with the store.

An import stages every record (memory content included) before it writes. The staging
folder lives in the store's control folder (`<store>/.memlens-scratch/` for a local store;
the model cache for one on object storage), never in the system temp folder, so the content
stays where the store's own permissions protect it. A folder is removed when its work ends,
and folders left by a process that died (`kill -9`) are removed by the next one.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

SCRATCH = ".memlens-scratch"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def sweep(control: Path) -> list[Path]:
    """Remove the scratch folders of processes that no longer run; returns them."""
    root = control / SCRATCH
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for folder in root.iterdir():
        pid_text = folder.name.split("-")[1] if folder.name.count("-") >= 2 else ""
        if pid_text.isdigit() and not _alive(int(pid_text)) and int(pid_text) != os.getpid():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        log.info("removed %d scratch folders left by interrupted imports", len(removed))
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
