"""Import staging stays with the store and never outlives its work (issue 20, item 3); a
dead process's journal copy and export leftovers are swept too (issue 42, item 12)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memory_core.store.scratch import EXPORT_TMP, SCRATCH, scratch_folder, sweep, sweep_files


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_sweep_removes_only_dead_processes_folders(tmp_path: Path) -> None:
    root = tmp_path / SCRATCH
    dead = root / f"import-{_dead_pid()}-abc"
    (dead / "memory.arrow").parent.mkdir(parents=True)
    (dead / "memory.arrow").write_text("memory content")
    with scratch_folder(tmp_path, "import") as mine:
        assert mine.parent == root and dead.exists() is False  # swept on the way in
        assert sweep(tmp_path) == [] and mine.exists()  # a live process's folder stays
    assert not mine.exists()


def test_sweep_removes_a_dead_writers_journal_copy(tmp_path: Path) -> None:
    # a full disk between writing the journal's copy and renaming it leaves the copy
    dead = tmp_path / f".memlens-journal.{_dead_pid()}.tmp"
    live = tmp_path / f".memlens-journal.{os.getpid()}.tmp"
    for path in (dead, live):
        path.write_text('{"action": "purge"}')
    assert sweep(tmp_path) == [dead]
    assert not dead.exists() and live.exists()


def test_sweep_files_keeps_what_it_cannot_tell(tmp_path: Path) -> None:
    names = [f".memlens-{_dead_pid()}-x1.body", f".memlens-{_dead_pid()}-x2.tmp",
             ".memlens-abc.body", f".memlens-{os.getpid()}-x3.body", "notes.body"]
    for name in names:
        (tmp_path / name).write_text("plaintext")
    removed = sweep_files(tmp_path, EXPORT_TMP)
    assert sorted(p.name for p in removed) == sorted(names[:2])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[2:])
