"""Another program's LanceDB table, opened read-only and streamed in batches.

PATH is a LanceDB database folder (the one given to `lancedb.connect`) holding `<table>.lance`,
or that `<table>.lance` folder itself. Nothing is written to it: the folder is checked before
LanceDB opens it (`lancedb.connect` would create a missing one), and rows are streamed in
batches (`search().limit(None).to_batches`), so memory stays bounded by one batch. The
table's Lance file format is read when it opens (`lance_format`): one in a draft format that
the installed Lance cannot decode is refused in one line before any row is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from memory_core.adapters.lance_format import TableFormat, table_format, unreadable
from memory_core.exchange.readers.base import loads
from memory_core.model.errors import ExportFormatError

BATCH_ROWS = 1024


#: Field-metadata keys under which a table may name the model of its vectors.
MODEL_KEYS = (b"memlens.embedding_model", b"embedding_model", b"model")


#: LanceDB's embedding-function registry names whose bare model names live on the Hub under
#: `sentence-transformers/` (LanceDB's own default there is "all-MiniLM-L6-v2").
HUB_PREFIXES = {"sentence-transformers": "sentence-transformers/"}


@dataclass(frozen=True)
class LanceTable:
    """An opened source table: where it is, its schema and its LanceDB handle."""

    folder: Path
    name: str
    schema: pa.Schema
    handle: Any
    format: TableFormat | None = None

    @property
    def label(self) -> str:
        """The table as error messages name it."""
        return f"{self.folder}: table {self.name!r}"


def locate(path: Path, table: str | None, default: str) -> tuple[Path, str]:
    """(database folder, table name) for PATH: a database folder or a `<table>.lance` one."""
    if (path / "_versions").is_dir() and path.suffix == ".lance":
        if table is not None and table != path.stem:
            raise ExportFormatError(f"{path} is the LanceDB table {path.stem!r}; drop --table "
                                    f"{table} or give the database folder")
        return path.parent, path.stem
    return path, table or default


def table_names(folder: Path) -> list[str]:
    """Tables of a LanceDB database folder (the `<name>.lance` folders in it)."""
    return sorted(p.stem for p in folder.glob("*.lance") if p.is_dir())


def peek_schema(path: Path, table: str) -> pa.Schema | None:
    """The schema of `table` at `path` for sniffing, or None; never raises."""
    try:
        folder, name = locate(path, None, table)
        if not (folder / f"{name}.lance" / "_versions").is_dir():
            return None
        return open_table(path, None, table, "sniff", check_format=False).schema
    except Exception:  # noqa: BLE001 - sniffing must not fail on foreign folders
        return None


def open_table(path: Path, table: str | None, default: str, fmt: str, *,
               check_format: bool = True) -> LanceTable:
    """Open a source table read-only; `ExportFormatError` says what is wrong with PATH,
    including (unless not `check_format`: sniffing) a file format Lance cannot read here."""
    if not path.exists():
        raise ExportFormatError(f"there is no LanceDB database at {path}")
    if not path.is_dir():
        raise ExportFormatError(
            f"{path} is a file, not a LanceDB database folder; the {fmt} format reads the "
            f"folder given to lancedb.connect (the one holding {table or default}.lance)")
    folder, name = locate(path, table, default)
    if not (folder / f"{name}.lance").is_dir():
        present = table_names(folder)
        found = (f"its tables: {', '.join(present)}; choose one with --table" if present
                 else "it holds no <table>.lance folders, so it is not a LanceDB database")
        raise ExportFormatError(f"{folder} has no LanceDB table {name!r} ({found})")
    import lancedb

    try:
        handle = lancedb.connect(str(folder)).open_table(name)
        schema = handle.schema
        layout = table_format(handle.to_lance())
    except (ValueError, RuntimeError, OSError) as exc:
        raise ExportFormatError(f"{folder}: cannot open LanceDB table {name!r}: {exc}") from exc
    source = LanceTable(folder, name, schema, handle, layout)
    if check_format and layout.draft:
        # A draft format fails only when a page is decoded: read one row of every column
        # now, so the refusal comes before the import stages anything.
        try:
            handle.search().limit(1).to_arrow()
        except (ValueError, RuntimeError, OSError) as exc:
            raise unreadable(str(folder / f"{name}.lance"), layout) from exc
    return source


def vector_dimension(schema: pa.Schema, column: str) -> int | None:
    """The dimension of a fixed-size vector column (None for a variable one)."""
    kind = schema.field(column).type
    return int(kind.list_size) if pa.types.is_fixed_size_list(kind) else None


def recorded_model(schema: pa.Schema, column: str, content: str) -> str | None:
    """The embedding model a table names for its vector `column`, or None.

    Two places are read: the field metadata (memlens' `memlens.embedding_model`, or a plain
    `embedding_model` / `model` key) and LanceDB's `embedding_functions` schema metadata,
    written when a table is created with an embedding function from its registry. Vectors
    embedded from another column than `content` are named as such, so they never match.
    A table without the column names none.
    """
    if column not in schema.names:
        return None
    meta = schema.field(column).metadata or {}
    for key in MODEL_KEYS:
        if meta.get(key):
            return bytes(meta[key]).decode("utf-8", errors="replace")
    raw = (schema.metadata or {}).get(b"embedding_functions")
    try:
        functions = loads(raw) if raw else []
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    for function in functions if isinstance(functions, list) else []:
        if not isinstance(function, dict) or function.get("vector_column") != column:
            continue
        args = function["model"] if isinstance(function.get("model"), dict) else {}
        registry = str(function.get("name", ""))
        name = args.get("name") or args.get("model_name") or args.get("model")
        if not isinstance(name, str):
            return None
        if "/" not in name and registry in HUB_PREFIXES:
            name = HUB_PREFIXES[registry] + name
        source = function.get("source_column")
        return name if source in (None, content) else f"{name} (embedded from {source!r})"
    return None


def iter_rows(source: LanceTable, columns: Sequence[str], limit: int | None
              ) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number from 1, row) for the first `limit` rows of the table, in batches."""
    if limit is not None and limit <= 0:
        return
    query = source.handle.search().select(list(columns)).limit(None)
    number = 0
    try:
        for batch in query.to_batches(BATCH_ROWS):
            for row in batch.to_pylist():
                number += 1
                yield number, row
                if limit is not None and number >= limit:
                    return
    except (ValueError, RuntimeError, OSError) as exc:
        if source.format is not None and source.format.draft:
            raise unreadable(str(source.folder / f"{source.name}.lance"), source.format) \
                from exc
        raise ExportFormatError(f"{source.label}: reading row {number + 1} failed: {exc}") \
            from exc


def embedding_of(schema: pa.Schema, column: str, model: str) -> dict[str, Any] | None:
    """`SourceInfo.embedding` for a table's vector column (None when it has none): the
    staging keeps the vectors only when `model` and the dimension are the store's."""
    if column not in schema.names:
        return None
    return {"model": model, "dimension": vector_dimension(schema, column)}
