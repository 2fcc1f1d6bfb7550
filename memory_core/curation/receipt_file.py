"""A receipt file on disk: written atomically, owner-only, never over an existing file; read
with a size cap and as strict JSON. The path comes from the user: it is checked, and shown in
messages only shortened and escaped (`shown`)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from memory_core.model.errors import ReceiptError
from memory_core.model.untrusted import shown

#: A receipt of a million purged ids is about 150 MB of JSON; anything larger is not one.
MAX_BYTES = 256 * 1024 * 1024


def check_new(path: Path) -> Path:
    """`path` (user home expanded) if a new receipt can be written there: not a folder, not
    an existing file, in a folder that exists and can be written; else a `ReceiptError`
    (checked before a purge, so a bad path stops it before anything is erased)."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise ReceiptError(f"the receipt path {shown(str(path))} is a folder; give a file "
                           f"name, e.g. {shown(str(path / 'receipt.json'))}")
    if os.path.lexists(path):
        raise ReceiptError(f"{shown(str(path))} already exists; a receipt never replaces a "
                           f"file: give another name")
    check_folder(path.parent, f"the folder of the receipt path {shown(str(path))}")
    return path


def check_folder(folder: Path, what: str) -> None:
    """A `ReceiptError` unless `folder` exists and a file can be made in it."""
    if not folder.is_dir():
        raise ReceiptError(f"{what} does not exist; create it or give another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ReceiptError(f"cannot write a receipt in {what}; give another path "
                           f"(--receipt FILE)")


def write_new(path: Path, text: str) -> Path:
    """Write `text` to a new file `path` (mode 0600): a temporary file beside it, synced,
    then linked into place, so a reader never sees half a receipt and an existing file (an
    earlier receipt, or anything else) is never replaced."""
    path = check_new(path)
    folder = path.parent
    try:
        fd, scratch = tempfile.mkstemp(prefix=".memlens-receipt-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ReceiptError(f"cannot write a receipt in {shown(str(folder))} "
                           f"({exc.strerror}); give another path") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp made it 0600
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        _link_new(Path(scratch), path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(scratch)
    _sync_folder(folder)
    return path


def _link_new(scratch: Path, path: Path) -> None:
    """`scratch` becomes `path`, refused when `path` appeared meanwhile (a hard link cannot
    replace a file; where links are not supported, a checked rename)."""
    try:
        os.link(scratch, path)
        return
    except FileExistsError as exc:
        raise ReceiptError(f"{shown(str(path))} already exists; a receipt never replaces a "
                           f"file: give another name") from exc
    except OSError:
        pass  # a file system without hard links
    if os.path.lexists(path):
        raise ReceiptError(f"{shown(str(path))} already exists; a receipt never replaces a "
                           f"file: give another name")
    os.replace(scratch, path)


def _sync_folder(folder: Path) -> None:
    """Make the new name durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_json(path: Path) -> Any:
    """The JSON value of the file `path`; a missing, oversized, non-UTF-8 or non-JSON file is
    a `ReceiptError` that quotes none of its bytes."""
    path = Path(path).expanduser()
    name = shown(str(path))
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError as exc:
        raise ReceiptError(f"no receipt file {name}; check the path") from exc
    except IsADirectoryError as exc:
        raise ReceiptError(f"{name} is a folder, not a receipt file") from exc
    except OSError as exc:
        raise ReceiptError(f"cannot read the receipt {name} ({exc.strerror})") from exc
    if len(data) > MAX_BYTES:
        raise ReceiptError(f"{name} is larger than any receipt ({MAX_BYTES // 2**20} MB); "
                           f"it is not a memlens receipt")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReceiptError(f"{name} is not a memlens receipt: not UTF-8 text (byte "
                           f"{exc.start})") from exc
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ReceiptError(f"{name} is not a memlens receipt: not JSON ({exc.msg}; line "
                           f"{exc.lineno}, column {exc.colno})") from exc
    except ValueError as exc:
        raise ReceiptError(f"{name} is not a memlens receipt: {exc}") from exc
    except RecursionError as exc:
        raise ReceiptError(f"{name} is not a memlens receipt: nested too deeply") from exc


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
