"""A full disk during a write: recognised in any of the shapes it reaches us, told in one line.

The operating system says ENOSPC (errno 28, or EDQUOT for a quota) to Python's own writes as
an `OSError`; Lance says it inside a `RuntimeError` or `OSError` whose text holds "No space
left on device (os error 28)". `disk_full` finds either in an exception or its causes.
`on_full_disk` wraps one command's write: the store's write guard has already put the tables
back when the error leaves the write, so the `DiskFullError` it raises can say that nothing
was written, how full the disk is, and roughly how much to free (an estimate the command
gives: what the write would add).
"""

from __future__ import annotations

import errno
import math
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_core.model.errors import DiskFullError, MemlensError

CODES = frozenset({errno.ENOSPC, errno.EDQUOT})
#: How Lance (Rust's std::io) and the OS word it, when only the text is left.
WORDS = ("No space left on device", "os error 28", "Disk quota exceeded", "os error 122")
MB = 1024 * 1024


def disk_full(exc: BaseException) -> bool:
    """Whether `exc`, or an exception it was raised from, is a full disk."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in CODES:
            return True
        # Text only of the libraries' errors: ours may quote a user's value.
        if isinstance(current, (OSError, RuntimeError, ValueError)) and not isinstance(
                current, MemlensError) and any(word in str(current) for word in WORDS):
            return True
        current = current.__cause__ or current.__context__
    return False


def folder_bytes(path: Path) -> int:
    """The bytes of the files under `path` (a file's own size; 0 when it is missing)."""
    if path.is_file():
        return path.stat().st_size
    if not path.is_dir():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def table_bytes(store_uri: str, table: str) -> int:
    """The bytes of one table of a local store (0 for object storage)."""
    if "://" in store_uri and not store_uri.startswith("file://"):
        return 0
    return folder_bytes(Path(store_uri.removeprefix("file://")) / f"{table}.lance")


def free_bytes(store_uri: str) -> int | None:
    """Free bytes on the disk holding a local store (None for object storage)."""
    if "://" in store_uri and not store_uri.startswith("file://"):
        return None
    path = Path(store_uri.removeprefix("file://"))
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def full_disk_error(store_uri: str, command: str, outcome: str, needed: int) -> DiskFullError:
    """The one line: which store, how much to free, what to run, what was written."""
    free = free_bytes(store_uri)
    if free is None:
        return DiskFullError(f"the storage holding {store_uri} is full: free space and run "
                             f"{command} again; {outcome}")
    # `free` is a floor: files the failed write still holds open are not given back yet.
    wanted = max(math.ceil((needed - free) / MB), 1)
    return DiskFullError(f"the disk holding {store_uri} is full: free {wanted} MB and run "
                         f"{command} again; {outcome}")


def full_disk_anywhere(exc: BaseException) -> DiskFullError | None:
    """The line for a full disk met outside `on_full_disk` (the CLI's net), else None."""
    if isinstance(exc, DiskFullError) or not disk_full(exc):
        return None
    return DiskFullError("the disk is full (no space left on device): free space and run the "
                         "command again")


@contextmanager
def on_full_disk(store_uri: str, command: str, outcome: str,
                 needed: Callable[[], int]) -> Iterator[None]:
    """Turn a full disk inside the block into `DiskFullError`; `needed()` estimates the bytes
    the write adds (asked only then).

    >>> with on_full_disk("/tmp/s", "the import", "nothing was imported", lambda: 0):
    ...     pass
    """
    try:
        yield
    except (OSError, RuntimeError, ValueError, MemlensError) as exc:
        if isinstance(exc, DiskFullError) or not disk_full(exc):
            raise
        raise full_disk_error(store_uri, command, outcome, needed()) from exc
