"""The `lancedb` import format: any existing LanceDB table, its columns mapped onto memlens
fields with `--param FIELD=COLUMN` (docs/design/importers.md). Never chosen by `--format auto`.

PATH is the LanceDB database folder (with `--table NAME`) or a `<table>.lance` folder. Each
memlens field reads the column of its own name unless a param names another:

    memlens import ./agent-db --format lancedb --table notes \\
        --param content=text --param memory_type=kind --param created_at=ts

Fields: id, content, memory_type, created_at, project, repo, agent, session_id, tags, why,
importance, vector, metadata. memory_type, project, repo, agent, session_id and importance
take a literal when the value is not a column (`--param memory_type=fact`). content,
memory_type and created_at are required; without an id column, ids are derived from the
table name and the content (a repeated content is then skipped). The metadata column may be
JSON text or a struct; every unmapped column is added to the metadata. `--param model=ID`
names the model of the vectors (kept only when it is the store's model and dimension;
otherwise the memories are embedded again). `--project P` keeps the rows of one project.
`source` is `import:lancedb`; the original memory_type spelling is kept as
`metadata.source_memory_type` when the aliases change it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.adapters.base import Adapter, memory_record, stable_id
from memory_core.adapters.lancedb_common import (
    Check,
    LanceTable,
    check_columns,
    embedding_of,
    is_json,
    is_key,
    is_text,
    is_text_list,
    is_time,
    is_vector,
    iter_rows,
    json_object,
    memory_type_of,
    merge_extra,
    open_table,
    table_names,
    text_or_none,
    time_of,
    where_of,
)
from memory_core.errors import ExportFormatError, InvalidRecordError
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
)

#: memlens field -> the check its column must pass.
FIELDS: dict[str, Check] = {
    "id": is_key, "content": is_text, "memory_type": is_text, "created_at": is_time,
    "project": is_text, "repo": is_text, "agent": is_text, "session_id": is_text,
    "tags": is_text_list, "why": is_text, "importance": is_text, "vector": is_vector,
    "metadata": is_json,
}
REQUIRED = ("content", "memory_type", "created_at")
#: Fields whose param may be a literal value instead of a column.
LITERAL_OK = ("memory_type", "project", "repo", "agent", "session_id", "importance")
PARAMS = (*FIELDS, "model")
UNNAMED = "an unnamed model (--param model=ID names it, so its vectors can be kept)"


@dataclass(frozen=True)
class ColumnMap:
    """Where each memlens field comes from: a column or a literal."""

    columns: dict[str, str]
    literals: dict[str, str]

    def value(self, row: Mapping[str, Any], field: str) -> Any:
        """The row's value of `field` (None when the field is not mapped)."""
        if field in self.columns:
            return row.get(self.columns[field])
        return self.literals.get(field)


def column_mapping(table: LanceTable, params: Mapping[str, str]) -> ColumnMap:
    """The mapping of a table's columns from `--param`s and same-named columns; refuses a
    param naming a missing column and a table without the required fields."""
    names = table.schema.names
    columns: dict[str, str] = {}
    literals: dict[str, str] = {}
    for field in FIELDS:
        given = params.get(field)
        if given is None:
            if field in names:
                columns[field] = field
        elif given in names:
            columns[field] = given
        elif field in LITERAL_OK and given.strip():
            literals[field] = given
        else:
            raise ExportFormatError(
                f"{table.label} has no column {given!r} for --param {field}; its columns: "
                f"{', '.join(names)}")
    missing = [f for f in REQUIRED if f not in columns and f not in literals]
    if missing:
        raise ExportFormatError(
            f"{table.label}: no column gives {', '.join(missing)}; map them with "
            + ", ".join(f"--param {f}=COLUMN" for f in missing)
            + (" (memory_type also takes a type, e.g. --param memory_type=fact)"
               if "memory_type" in missing else ""))
    for field, column in columns.items():  # one column may feed two fields
        check_columns(table, {}, {column: FIELDS[field]}, "a memory table")
    return ColumnMap(columns, literals)


class LanceDBTableAdapter(Adapter):
    """Any LanceDB table, its columns mapped onto memlens fields with `--param`."""

    name = "lancedb"
    sniff_order = 80
    summary = "any LanceDB table, columns mapped with --param FIELD=COLUMN (never sniffed)"
    options = frozenset({"limit", "project", "table"})
    params = PARAMS

    def sniff(self, path: Path, first_line: str) -> bool:
        return False  # a generic table says nothing about what its columns mean

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        if options.table is None and path.is_dir() and not (path / "_versions").is_dir():
            present = ", ".join(table_names(path))
            raise ExportFormatError(
                "the lancedb format needs --table NAME (or a <table>.lance folder as PATH)"
                + (f"; the tables at {path}: {present}" if present else ""))
        table = open_table(path, options.table, "<table>", self.name)
        mapping = column_mapping(table, options.params)
        if options.project is not None and "project" not in mapping.columns:
            raise ExportFormatError(f"{table.label}: --project needs a project column "
                                    f"(--param project=COLUMN)")
        model = options.param("model") or UNNAMED
        vector = mapping.columns.get("vector")
        info = SourceInfo(format=self.name, path=str(path), schema_version=1,
                          embedding=embedding_of(table.schema, vector, model) if vector
                          else None)
        source = ExportSource(info, lambda: self._records(table, mapping, source, options))
        return source

    def _records(self, table: LanceTable, mapping: ColumnMap, source: ExportSource,
                 options: ReadOptions) -> Iterator[SourceRecord]:
        derived: dict[str, int] = {}
        for number, row in iter_rows(table, table.schema.names, options.limit):
            place = where_of(number, mapping.value(row, "id"))
            where = f"{table.label}: {place}"
            if options.project is not None and mapping.value(row, "project") != options.project:
                source.skips.skip(f"project is not {options.project!r} (--project)", place)
                continue
            content = mapping.value(row, "content")
            if content is None or not content.strip():
                source.skips.skip("empty content", place)
                continue
            row_id = mapping.value(row, "id")
            if "id" not in mapping.columns:
                row_id = stable_id(self.name, table.name, content)
                if row_id in derived:
                    source.skips.skip("same content as an earlier row (no id column)", place)
                    continue
                derived[row_id] = number
            elif row_id is None or not str(row_id).strip():
                raise ExportFormatError(f"{where}: id is empty")
            yield self.record(number, row, mapping, str(row_id), where, place)

    def record(self, number: int, row: Mapping[str, Any], mapping: ColumnMap, row_id: str,
               where: str, place: str) -> SourceRecord:
        """One row as a canonical memory; errors name `where`."""
        try:
            return self._memory(number, row, mapping, row_id, where, place)
        except InvalidRecordError as exc:  # e.g. an unknown importance
            raise ExportFormatError(f"{where}: {exc}") from exc

    def _memory(self, number: int, row: Mapping[str, Any], mapping: ColumnMap, row_id: str,
                where: str, place: str) -> SourceRecord:
        kind, spelled = memory_type_of(mapping.value(row, "memory_type"), where)
        extra = {k: v for k, v in row.items() if k not in mapping.columns.values()}
        if spelled is not None:
            extra["source_memory_type"] = spelled
        metadata = merge_extra(json_object(mapping.value(row, "metadata"), where), extra)
        text = {field: text_or_none(mapping.value(row, field))
                for field in ("project", "repo", "agent", "session_id", "why")}
        return memory_record(
            place, line=number, id=row_id, content=mapping.value(row, "content"),
            memory_type=kind, created_at=time_of(mapping.value(row, "created_at"), where,
                                                 "created_at"),
            source=f"import:{self.name}", metadata=metadata,
            tags=[t for t in mapping.value(row, "tags") or () if t],
            importance=text_or_none(mapping.value(row, "importance")) or "normal",
            vector=mapping.value(row, "vector"), project=text["project"], repo=text["repo"],
            agent=text["agent"], session_id=text["session_id"], why=text["why"],
        )
