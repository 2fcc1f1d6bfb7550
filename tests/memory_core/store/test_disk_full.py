"""A full disk during `import`, `add --file`, `archive` and `index`: one line, exit 1, and
the store holds exactly what it held before (every row of every table).

The fast tests make one Lance write fail the way Lance reports a full disk; the hardening
test fills a real 16 MB tmpfs (mounting needs root: it is skipped where that is refused).
"""

from __future__ import annotations

import base64
import errno
import json
import os
import random
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import lancedb
import pytest

from memory_core.model.errors import DiskFullError, InvalidRecordError
from memory_core.store.disk_full import disk_full, full_disk_error, on_full_disk
from tests.conftest import pending_store, run_cli

TABLES = ("memories", "edges", "audit", "events")
LANCE_ENOSPC = ("lance error: LanceError(IO): Generic LocalFileSystem error: Unable to write "
                "to file: No space left on device (os error 28), /home/runner/.cargo/...")
ONE_LINE = re.compile(r"Error: the disk holding (?P<store>\S+) is full: free (?P<mb>\d+) MB "
                      r"and run `memlens (?P<command>\w+)` again; (?P<outcome>.+)")


def rows(store: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, read with LanceDB itself (not through memlens)."""
    db = lancedb.connect(str(store))
    return {name: sorted(db.open_table(name).to_arrow().drop_columns(["vector"]).to_pylist()
                         if name == "memories" else db.open_table(name).to_arrow().to_pylist(),
                         key=lambda row: str(row.get("id")))
            for name in TABLES}


def lines(memories: int, prefix: str, chars: int = 40) -> str:
    rng = random.Random(prefix)
    return "".join(json.dumps({"content": f"{prefix} {i} " + base64.b64encode(
        rng.randbytes(chars)).decode(), "memory_type": "observation"}) + "\n"
        for i in range(memories))


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def held(tmp_path: Path, env: None, capsys: pytest.CaptureFixture[str]) -> Path:
    """A store holding four memories (one add, one add --file) and their audit rows."""
    store = pending_store(tmp_path / "store", "the first memory")
    (tmp_path / "three.ndjson").write_text(lines(3, "held"))
    code, _, err = run_cli(["--store", str(store), "add", "--file",
                            str(tmp_path / "three.ndjson")], capsys)
    assert code == 0, err
    return store


def failing(monkeypatch: pytest.MonkeyPatch, method: str, at: int) -> None:
    """Make call number `at` of `LanceTable.<method>` fail as Lance does on a full disk."""
    original = getattr(lancedb.table.LanceTable, method)
    calls = [0]

    def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == at:
            raise RuntimeError(LANCE_ENOSPC)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(lancedb.table.LanceTable, method, write)


def export_of(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "export.ndjson"
    other = pending_store(tmp_path / "other", "a memory from another store")
    code, _, err = run_cli(["--store", str(other), "export", str(path)], capsys)
    assert code == 0, err
    return path


#: command -> (its arguments after --store, the write that fails, at which call, outcome)
CASES: dict[str, tuple[Callable[[Path, Path, Any], list[str]], str, int, str]] = {
    # the import's memories are committed (merge_insert), its audit row's append fails
    "import": (lambda store, tmp, capsys: ["import", str(export_of(store, tmp, capsys)),
                                           "--mode", "merge"], "add", 1,
               "nothing was imported"),
    # the memories are committed, their audit row's append fails
    "add": (lambda store, tmp, capsys: ["add", "--file", str(tmp / "more.ndjson")], "add", 2,
            "nothing was added"),
    "archive": (lambda store, tmp, capsys: ["archive", "--type", "observation", "--yes"],
                "add", 1, "nothing was archived"),
    "index": (lambda store, tmp, capsys: ["index"], "create_index", 2,
              "the memories are unchanged and it builds only what is still missing"),
}


@pytest.mark.parametrize("command", sorted(CASES))
def test_a_full_disk_is_one_line_and_the_store_is_as_before(
        held: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    argv, method, at, outcome = CASES[command]
    (tmp_path / "more.ndjson").write_text(lines(3, "more"))
    args = argv(held, tmp_path, capsys)
    before = rows(held)
    failing(monkeypatch, method, at)
    code, _, err = run_cli(["--store", str(held), *args], capsys)
    assert code == 1
    said = [line for line in err.splitlines() if line.startswith("Error")]
    assert len(said) == 1 and "Traceback" not in err, err
    # the rollback behind "nothing was ..." is not a second line
    assert "restored to the versions before it" not in err, err
    match = ONE_LINE.fullmatch(said[0])
    assert match is not None, said[0]
    assert (match["store"], match["command"], match["outcome"]) == (str(held), command,
                                                                      outcome)
    monkeypatch.undo()
    assert rows(held) == before


def test_the_shapes_of_a_full_disk() -> None:
    assert disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert disk_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert disk_full(RuntimeError(LANCE_ENOSPC))
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as exc:
            raise ValueError("write failed") from exc
    except ValueError as wrapped:
        assert disk_full(wrapped)
    assert not disk_full(OSError(errno.ENOENT, "No such file or directory"))
    assert not disk_full(RuntimeError("lance error: Not found: memories.lance/data/x.lance"))
    # A memlens error quoting a user's value is not taken for one.
    assert not disk_full(InvalidRecordError("bad memory_type 'No space left on device'"))


def test_free_asks_for_what_the_write_needs_beyond_what_is_free(tmp_path: Path) -> None:
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    line = str(full_disk_error(str(tmp_path), "`memlens add`", "nothing was added",
                               free + 5 * 1024 * 1024))
    assert re.fullmatch(rf"the disk holding {re.escape(str(tmp_path))} is full: free [5-6] MB "
                        r"and run `memlens add` again; nothing was added", line), line
    with pytest.raises(DiskFullError, match="the storage holding s3://b/s is full"), \
            on_full_disk("s3://b/s", "`memlens add`", "nothing was added", lambda: 1):
        raise RuntimeError(LANCE_ENOSPC)
    with pytest.raises(RuntimeError, match="Not found"), \
            on_full_disk(str(tmp_path), "`memlens add`", "nothing was added", lambda: 1):
        raise RuntimeError("lance error: Not found")


# -- a real full disk ------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs at tmp_path/disk (skipped where mounting is not permitted)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(disk)],
                             capture_output=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.hardening
@pytest.mark.parametrize("command", ["add", "import"])
def test_a_real_full_disk(small_disk: Path, tmp_path: Path, env: None,
                          capsys: pytest.CaptureFixture[str], command: str) -> None:
    store = pending_store(small_disk / "store", "the first memory")
    big = tmp_path / "big.ndjson"  # ~24 MB of incompressible text, on another disk
    big.write_text(lines(8000, "big", chars=2000))
    if command == "import":
        source = pending_store(tmp_path / "source", "seed")
        code, _, err = run_cli(["--store", str(source), "add", "--file", str(big)], capsys)
        assert code == 0, err
        big = tmp_path / "export.ndjson"
        code, _, err = run_cli(["--store", str(source), "export", str(big)], capsys)
        assert code == 0, err
        args = ["import", str(big), "--mode", "merge"]
    else:
        args = ["add", "--file", str(big)]
    before = rows(store)
    code, _, err = run_cli(["--store", str(store), *args], capsys)
    assert code == 1
    said = [line for line in err.splitlines() if line.startswith("Error")]
    assert len(said) == 1 and "Traceback" not in err, err
    # the rollback behind "nothing was ..." is not a second line
    assert "restored to the versions before it" not in err, err
    match = ONE_LINE.fullmatch(said[0])
    assert match is not None and match["command"] == command, said[0]
    assert int(match["mb"]) >= 1
    assert rows(store) == before
