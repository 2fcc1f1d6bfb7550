"""What a LanceDB-table import format is, as data: which column gives each memlens field,
how `--format auto` recognises the table, and which vectors can be kept.

A new source is a `SourceFormat` value (`herd`, `make_skills` and `generic` are three), read
by the one `LanceTableAdapter`. A format maps each memlens field (id, content, memory_type,
created_at, project, repo, agent, session_id, tags, why, importance, vector, metadata) to a
column, either with fixed names (`FixedColumns`) or from `--param FIELD=COLUMN`
(`ParamColumns`); both resolve, against the opened table, to a `ColumnMapping`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyarrow as pa

from memory_core.adapters.lance_tables.columns import Check, check_columns
from memory_core.adapters.lance_tables.source import LanceTable
from memory_core.model.errors import ExportFormatError

#: The `--param` that names the model of a table's vectors, taken by every format.
MODEL_PARAM = "model"
#: The `--param` that picks a source tenant, taken by formats with a tenant column.
TENANT_PARAM = "tenant_id"


@dataclass(frozen=True)
class ColumnMapping:
    """Where each field of one opened table comes from: a column or a literal value."""

    columns: Mapping[str, str]
    literals: Mapping[str, str] = field(default_factory=dict)
    #: Whether errors name a value by its column (fixed names) or by its field (`--param`).
    named_by_column: bool = True

    def value(self, row: Mapping[str, Any], name: str) -> Any:
        """The row's value of field `name` (None when the field is not mapped)."""
        if name in self.columns:
            return row.get(self.columns[name])
        return self.literals.get(name)

    def label(self, name: str) -> str:
        """How error messages name field `name`."""
        return self.columns.get(name, name) if self.named_by_column else name

    @property
    def read(self) -> frozenset[str]:
        """The columns the mapping reads itself; every other one goes into metadata."""
        return frozenset(self.columns.values())


class Columns(Protocol):
    """How a format finds its columns in an opened table."""

    @property
    def params(self) -> tuple[str, ...]:
        """The `--param` keys that map fields to columns."""

    @property
    def required(self) -> tuple[str, ...]:
        """The columns a table must have to be sniffed as this format."""

    def resolve(self, table: LanceTable, params: Mapping[str, str]) -> ColumnMapping:
        """The mapping for `table`; `ExportFormatError` names a missing or mistyped column."""


@dataclass(frozen=True)
class Column:
    """A field's column: its name and the type check its values must pass."""

    name: str
    check: Check


@dataclass(frozen=True)
class FixedColumns:
    """Columns with fixed names (a known program's schema)."""

    #: What such a table is, for the refusal of one without the required columns.
    what: str
    #: field -> column the table must have, then the ones it may have.
    needed: Mapping[str, Column]
    optional: Mapping[str, Column] = field(default_factory=dict)
    #: Other columns whose type is checked; like every unmapped column they go into metadata.
    checked: Mapping[str, Check] = field(default_factory=dict)

    @property
    def params(self) -> tuple[str, ...]:
        return ()

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.needed.values())

    def resolve(self, table: LanceTable, params: Mapping[str, str]) -> ColumnMapping:
        check_columns(table, {c.name: c.check for c in self.needed.values()},
                      {**{c.name: c.check for c in self.optional.values()}, **self.checked},
                      self.what)
        mapped = {**self.needed, **self.optional}
        return ColumnMapping({name: column.name for name, column in mapped.items()})


@dataclass(frozen=True)
class ParamColumns:
    """Columns named by `--param FIELD=COLUMN`, each field defaulting to its own name."""

    #: field -> the check its column must pass.
    fields: Mapping[str, Check]
    #: Fields every table must give (by a column, or a literal where allowed).
    needed: tuple[str, ...]
    #: Fields whose param may be a literal value instead of a column.
    literal_ok: tuple[str, ...] = ()

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(self.fields)

    @property
    def required(self) -> tuple[str, ...]:
        return ()

    def resolve(self, table: LanceTable, params: Mapping[str, str]) -> ColumnMapping:
        """Refuses a param naming a missing column and a table without the needed fields."""
        names = table.schema.names
        columns: dict[str, str] = {}
        literals: dict[str, str] = {}
        for name in self.fields:
            given = params.get(name)
            if given is None:
                if name in names:
                    columns[name] = name
            elif given in names:
                columns[name] = given
            elif name in self.literal_ok and given.strip():
                literals[name] = given
            else:
                raise ExportFormatError(
                    f"{table.label} has no column {given!r} for --param {name}; its columns: "
                    f"{', '.join(names)}")
        missing = [f for f in self.needed if f not in columns and f not in literals]
        if missing:
            raise ExportFormatError(
                f"{table.label}: no column gives {', '.join(missing)}; map them with "
                + ", ".join(f"--param {f}=COLUMN" for f in missing)
                + (" (memory_type also takes a type, e.g. --param memory_type=fact)"
                   if "memory_type" in missing else ""))
        for name, column in columns.items():  # one column may feed two fields
            check_columns(table, {}, {column: self.fields[name]}, "a memory table")
        return ColumnMapping(columns, literals, named_by_column=False)


@dataclass(frozen=True)
class Sniff:
    """How `--format auto` recognises the table (beyond the format's required columns)."""

    #: At least one of these columns must be present (none listed: no such rule).
    any_of: frozenset[str] = frozenset()
    #: None of these columns may be present (another format's, or a memlens store's).
    none_of: frozenset[str] = frozenset()
    #: Schema-metadata keys that mean the table is not this format (a memlens store's).
    none_of_metadata: frozenset[bytes] = frozenset()

    def matches(self, schema: pa.Schema, required: tuple[str, ...]) -> bool:
        """Whether `schema` is the format's."""
        names = set(schema.names)
        if not set(required) <= names or names & self.none_of:
            return False
        if self.none_of_metadata & set(schema.metadata or {}):
            return False
        return not self.any_of or bool(names & self.any_of)


@dataclass(frozen=True)
class Vectors:
    """Which model a table's vectors are taken to be of (kept only when it is the store's)."""

    #: The model named when neither `--param model=ID` nor the table names one.
    fallback: str
    #: Whether the model the table records (field or LanceDB embedding metadata) is read.
    recorded: bool = True
    #: A column whose non-empty value means the row's vector embeds it, not the content:
    #: such a row's memory is embedded again.
    not_of_content: str | None = None


@dataclass(frozen=True)
class SourceFormat:
    """One LanceDB-table import format (`memlens import --format NAME`)."""

    name: str
    summary: str
    sniff_order: int
    #: The `ReadOptions` it honours (`limit`, `project`, `table`).
    options: frozenset[str]
    columns: Columns
    vectors: Vectors
    #: The table read when `--table` is not given (None: `--table` is needed).
    default_table: str | None = None
    #: None: never chosen by `--format auto` (a generic table says nothing about its columns).
    sniff: Sniff | None = None
    #: The column naming each row's tenant (its rows are read one source tenant at a time).
    tenant_column: str | None = None

    @property
    def params(self) -> tuple[str, ...]:
        """The `--param` keys the format takes."""
        tenant = (TENANT_PARAM,) if self.tenant_column is not None else ()
        return (*self.columns.params, MODEL_PARAM, *tenant)
