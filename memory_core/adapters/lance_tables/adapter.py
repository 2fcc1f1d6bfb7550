"""The one adapter of every LanceDB-table import format: a `SourceFormat` read in place.

`LanceTableAdapter.of(fmt)` makes the reader class of a format (the `memlens.formats` entry
points name classes); the rows are read through the format's `ColumnMapping`. Rows of another
source tenant, of another project (`--project`) or with empty content are skipped, the report
saying why; without an id column, ids are derived from the table name and the content (a
repeated content is then skipped). The metadata column may be JSON text or a struct; every
unmapped column is added to the metadata, and the original memory_type spelling is kept as
`metadata.source_memory_type` when memlens' aliases change it. `source` is `import:NAME`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar, cast

from memory_core.adapters.base import Adapter, memory_record, stable_id
from memory_core.adapters.lance_tables.mapping import (
    MODEL_PARAM,
    TENANT_PARAM,
    ColumnMapping,
    SourceFormat,
)
from memory_core.adapters.lance_tables.source import (
    LanceTable,
    embedding_of,
    iter_rows,
    open_table,
    peek_schema,
    recorded_model,
    table_names,
)
from memory_core.adapters.lance_tables.tenants import source_tenant, tenant_name
from memory_core.adapters.lance_tables.values import (
    json_object,
    memory_type_of,
    merge_extra,
    text_or_none,
    time_of,
    where_of,
)
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
)
from memory_core.model.errors import ExportFormatError, InvalidRecordError

#: Text fields read as they are, "" as null.
TEXT_FIELDS = ("project", "repo", "agent", "session_id", "why")


class LanceTableAdapter(Adapter):
    """A LanceDB table read in place through its format's column mapping."""

    source_format: ClassVar[SourceFormat]

    @classmethod
    def of(cls, fmt: SourceFormat, class_name: str | None = None,
           module: str = __name__) -> type[LanceTableAdapter]:
        """The reader class of `fmt` (a registry instantiates it with no arguments)."""
        name = class_name or "".join(p.title() for p in fmt.name.split("_")) + "Adapter"
        return cast(type[LanceTableAdapter], type(name, (cls,), {
            "__module__": module, "__qualname__": name, "__doc__": fmt.summary,
            "source_format": fmt, "name": fmt.name, "summary": fmt.summary,
            "sniff_order": fmt.sniff_order, "options": fmt.options, "params": fmt.params,
        }))

    def sniff(self, path: Path, first_line: str) -> bool:
        fmt = self.source_format
        if fmt.sniff is None or fmt.default_table is None or not path.is_dir():
            return False
        schema = peek_schema(path, fmt.default_table)
        return schema is not None and fmt.sniff.matches(schema, fmt.columns.required)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        fmt = self.source_format
        self.check_options(options)
        if (fmt.default_table is None and options.table is None and path.is_dir()
                and not (path / "_versions").is_dir()):
            present = ", ".join(table_names(path))
            raise ExportFormatError(
                f"the {self.name} format needs --table NAME (or a <table>.lance folder as "
                f"PATH)" + (f"; the tables at {path}: {present}" if present else ""))
        table = open_table(path, options.table, fmt.default_table or "<table>", self.name)
        mapping = fmt.columns.resolve(table, options.params)
        if options.project is not None and "project" not in mapping.columns:
            raise ExportFormatError(f"{table.label}: --project needs a project column "
                                    f"(--param project=COLUMN)")
        tenant = (None if fmt.tenant_column is None else source_tenant(
            table, fmt.tenant_column, options.param(TENANT_PARAM), options.tenant))
        info = SourceInfo(format=self.name, path=str(path), schema_version=1, tenant=tenant,
                          embedding=self._embedding(table, mapping, options))
        source = ExportSource(
            info, lambda: self._records(table, mapping, source, tenant, options))
        return source

    def _embedding(self, table: LanceTable, mapping: ColumnMapping, options: ReadOptions
                   ) -> dict[str, Any] | None:
        """`SourceInfo.embedding`: the model named by --param model, else the one the
        table records (when the format reads it), else the format's fallback."""
        vectors = self.source_format.vectors
        vector = mapping.columns.get("vector")
        if vector is None:
            return None
        recorded = (recorded_model(table.schema, vector, mapping.columns.get("content", ""))
                    if vectors.recorded else None)
        model = options.param(MODEL_PARAM) or recorded or vectors.fallback
        return embedding_of(table.schema, vector, model)

    def _records(self, table: LanceTable, mapping: ColumnMapping, source: ExportSource,
                 tenant: str | None, options: ReadOptions) -> Iterator[SourceRecord]:
        column = self.source_format.tenant_column
        derived: set[str] = set()
        for number, row in iter_rows(table, table.schema.names, options.limit):
            place = where_of(number, mapping.value(row, "id"))
            where = f"{table.label}: {place}"
            if column is not None and tenant is not None and row.get(column) != tenant:
                source.skips.skip(f"record of source tenant {tenant_name(row.get(column))},"
                                  f" not {tenant!r} (--param tenant_id)", place)
                continue
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
                derived.add(row_id)
            elif row_id is None or not str(row_id).strip():
                raise ExportFormatError(f"{where}: id is empty")
            yield self.record(number, row, mapping, str(row_id), where, place)

    def record(self, number: int, row: Mapping[str, Any], mapping: ColumnMapping, row_id: str,
               where: str, place: str) -> SourceRecord:
        """One row as a canonical memory; errors name `where` (table, row and id)."""
        try:
            return self._memory(number, row, mapping, row_id, where, place)
        except InvalidRecordError as exc:  # e.g. an unknown importance
            raise ExportFormatError(f"{where}: {exc}") from exc

    def _memory(self, number: int, row: Mapping[str, Any], mapping: ColumnMapping, row_id: str,
                where: str, place: str) -> SourceRecord:
        kind, spelled = memory_type_of(mapping.value(row, "memory_type"), where,
                                       mapping.label("memory_type"))
        extra = {k: v for k, v in row.items() if k not in mapping.read}
        if spelled is not None:
            extra["source_memory_type"] = spelled
        metadata = merge_extra(
            json_object(mapping.value(row, "metadata"), where, mapping.label("metadata")), extra)
        text = {name: text_or_none(mapping.value(row, name)) for name in TEXT_FIELDS}
        return memory_record(
            place, line=number, id=row_id, content=mapping.value(row, "content"),
            memory_type=kind, created_at=time_of(mapping.value(row, "created_at"), where,
                                                 mapping.label("created_at")),
            source=f"import:{self.name}", metadata=metadata,
            tags=[t for t in mapping.value(row, "tags") or () if t],
            importance=text_or_none(mapping.value(row, "importance")) or "normal",
            vector=self._vector(row, mapping), **text,
        )

    def _vector(self, row: Mapping[str, Any], mapping: ColumnMapping) -> Any:
        """The row's vector, or None when it embeds another column than the content."""
        other = self.source_format.vectors.not_of_content
        if other is not None and text_or_none(row.get(other)) is not None:
            return None
        return mapping.value(row, "vector")
