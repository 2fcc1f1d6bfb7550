"""Import staging stays with the store and never outlives its work (issue 20, item 3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memory_core.store.scratch import SCRATCH, scratch_folder, sweep


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
