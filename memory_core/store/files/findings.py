"""What `memlens check` found: one `Problem` per damaged file or row set, grouped by table.

A problem names its table, the file (relative to the table's folder, e.g.
`data/0110....lance`, `_versions/18446744073709551609.manifest`, `_indices/<uuid>`) and what is
wrong, in one line. `kind` says what fixes it: a table restored to an older version
(`version`), an index rebuilt (`index`), vectors re-embedded (`vector`), or nothing memlens
can redo by itself (`rows`: content that no longer matches its hash; `lost`: writes the
audit records whose table versions are gone).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

#: What a Lance read raises on a damaged file (pylance wraps Rust errors in these).
LANCE_ERRORS = (OSError, ValueError, RuntimeError)


def short(exc: BaseException) -> str:
    """Lance's error in a few words: its first line, without the Rust source location."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    for cut in (", /root/", ", /rustc/", ", /home/", ", /build/"):
        text = text.split(cut)[0]
    for wrapper in ("lance error: ", "LanceError(IO): ", "External error: ",
                    "Invalid user input: ", "Generic LocalFileSystem error: "):
        text = text.replace(wrapper, "")
    return text[:160]


#: What a problem needs: a restore, an index rebuild, re-embedding, or a person.
KINDS = ("version", "index", "vector", "rows", "lost")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one table: `file` (relative to the table folder) and `what`."""

    table: str
    file: str
    what: str
    kind: str = "version"
    #: the memories a row problem is about (content or vector changed)
    memory_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown problem kind {self.kind!r}; known: {', '.join(KINDS)}")

    def line(self) -> str:
        """The problem in one line: table, file, what is wrong."""
        return f"{self.table}  {self.file or '-'}  {self.what}"


@dataclass(frozen=True)
class TableCheck:
    """One table's latest version, the newest version whose files all read, and problems.

    `good_version` is None when no version reads (or the table has none); it equals
    `latest` when the latest version is sound.
    """

    name: str
    latest: int | None
    good_version: int | None
    good_at: datetime | None = None
    problems: tuple[Problem, ...] = ()
    #: index name -> column of the indexes whose files are missing or unreadable
    damaged_indexes: dict[str, str] = field(default_factory=dict)
    #: manifests newer than `good_version` that cannot be read (moved aside by a repair)
    broken_manifests: tuple[str, ...] = ()

    @property
    def needs_restore(self) -> bool:
        """Whether the latest version is damaged and an older one reads."""
        return any(p.kind == "version" for p in self.problems)


@dataclass(frozen=True)
class CheckReport:
    """Every table's check, and the problems across tables (audit against versions)."""

    uri: str
    tables: tuple[TableCheck, ...]
    problems: tuple[Problem, ...] = ()
    #: what was not checked, and why (no embedder to re-embed a sample, ...)
    notes: tuple[str, ...] = ()

    @property
    def all_problems(self) -> tuple[Problem, ...]:
        """Each table's problems, then the cross-table ones."""
        return tuple(p for t in self.tables for p in t.problems) + self.problems

    @property
    def clean(self) -> bool:
        """Whether nothing is wrong."""
        return not self.all_problems

    def table(self, name: str) -> TableCheck | None:
        """The check of table `name`, if the store has that table."""
        return next((t for t in self.tables if t.name == name), None)

    def to_dict(self) -> dict[str, object]:
        """Plain data for `--json`."""
        return {
            "uri": self.uri, "clean": self.clean, "notes": list(self.notes),
            "tables": [{"name": t.name, "latest": t.latest, "good_version": t.good_version,
                        "damaged_indexes": sorted(t.damaged_indexes)} for t in self.tables],
            "problems": [{"table": p.table, "file": p.file, "what": p.what, "kind": p.kind,
                          "memories": len(p.memory_ids)} for p in self.all_problems],
        }
