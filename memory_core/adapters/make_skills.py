"""The `make_skills` import format: Make_Skills' LanceDB memory records, read in place.

PATH is the LanceDB database folder (Make_Skills' `MEMORY_DATA_DIR`, `/data/memory` in its
api container) or its `records.lance` folder; `--table` names another table (Make_Skills'
code calls its table `records`). Rows are `{id, type, content, vector[384], project_tags,
source_thread_id, ts, why}`; the hosted multi-tenant variant adds `tenant_id` and
`visibility`.

Mapping: id -> id, type -> memory_type (through memlens' aliases; the spelling found is kept
as `metadata.source_memory_type` when it changes), content -> content, project_tags -> tags,
source_thread_id -> session_id, ts (epoch seconds) -> created_at, why -> why; "" reads as
null; tenant_id, visibility and any other column go into metadata. `source` is
`import:make_skills`. Rows with empty content are skipped.

Tenants: memlens imports into one tenant (the store's, `--tenant`), so one source tenant is
read at a time; rows of other tenants are skipped, the report naming each tenant, and the
tenant_id read is kept in metadata. `--param tenant_id=ID` picks the source tenant;
`--param tenant_id='*'` reads every row. Without the param: the rows whose tenant_id is the
store's tenant name, when there are any; else the whole table when its rows carry a single
tenant_id (or it has no tenant_id column: self-hosted); else the import is refused, listing
the tenant ids with their row counts: silently mixing other people's memories into one
tenant, or importing nothing, would surprise more than one clear error.

Vectors: Make_Skills' documentation says only "fastembed, 384-d, ~80MB"; its code
(`platform/api/memory/lance.py`) embeds with fastembed's `BAAI/bge-small-en-v1.5`, so that is
the model assumed, and its vectors are kept only in a store of that model; in the default
all-MiniLM-L6-v2 store the memories are embedded again. `--param model=ID` overrides it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from memory_core.adapters.base import Adapter, memory_record
from memory_core.adapters.lancedb_common import (
    LanceTable,
    check_columns,
    embedding_of,
    is_epoch,
    is_key,
    is_text,
    is_text_list,
    is_vector,
    iter_rows,
    memory_type_of,
    merge_extra,
    open_table,
    peek_schema,
    recorded_model,
    text_or_none,
    time_of,
    where_of,
)
from memory_core.errors import ExportFormatError
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
)

DEFAULT_TABLE = "records"
#: The model Make_Skills' recorder embeds with (fastembed, 384-d).
DEFAULT_MODEL = "BAAI/bge-small-en-v1.5"
REQUIRED = {"id": is_key, "type": is_text, "content": is_text, "ts": is_epoch}
OPTIONAL = {"vector": is_vector, "project_tags": is_text_list, "source_thread_id": is_text,
            "why": is_text, "tenant_id": is_text}
#: Columns the mapping reads itself; every other one (tenant_id too) goes into metadata.
MAPPED = frozenset({"id", "type", "content", "vector", "project_tags", "source_thread_id",
                    "ts", "why"})
PARAMS = ("model", "tenant_id")
ALL_TENANTS = "*"


def looks_like_make_skills(schema: pa.Schema) -> bool:
    """Whether a table schema has Make_Skills' record columns."""
    return set(REQUIRED) <= set(schema.names)


def _tenant_name(tenant: str | None) -> str:
    return "(no tenant_id)" if tenant is None else repr(tenant)


class MakeSkillsAdapter(Adapter):
    """Seed 002 Make_Skills memory records (self-hosted or tenant-scoped), read in place."""

    name = "make_skills"
    sniff_order = 70
    summary = "Make_Skills LanceDB records (type/project_tags/ts/why), read in place"
    options = frozenset({"limit", "table"})
    params = PARAMS

    def sniff(self, path: Path, first_line: str) -> bool:
        if not path.is_dir():
            return False
        schema = peek_schema(path, DEFAULT_TABLE)
        return schema is not None and looks_like_make_skills(schema)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        table = open_table(path, options.table, DEFAULT_TABLE, self.name)
        check_columns(table, REQUIRED, OPTIONAL, "a Make_Skills records table")
        tenant = self.source_tenant(table, options.param("tenant_id"), options.tenant)
        model = (options.param("model") or recorded_model(table.schema, "vector", "content")
                 or DEFAULT_MODEL)
        info = SourceInfo(format=self.name, path=str(path), schema_version=1,
                          tenant=tenant, embedding=embedding_of(table.schema, "vector", model))
        source = ExportSource(info, lambda: self._records(table, source, tenant, options))
        return source

    @staticmethod
    def source_tenant(table: LanceTable, wanted: str | None, store_tenant: str | None
                      ) -> str | None:
        """The source tenant to read, or None for every row (see the module doc)."""
        if "tenant_id" not in table.schema.names:
            if wanted not in (None, ALL_TENANTS):
                raise ExportFormatError(
                    f"{table.label} has no tenant_id column (a self-hosted table), so "
                    f"--param tenant_id={wanted} selects nothing; drop it")
            return None
        if wanted is not None:
            return None if wanted == ALL_TENANTS else wanted
        counts = Counter(row["tenant_id"] for _, row in iter_rows(table, ["tenant_id"], None))
        if store_tenant is not None and store_tenant in counts:
            return store_tenant
        if len(counts) <= 1:
            return next(iter(counts), None)
        listed = ", ".join(f"{_tenant_name(t)}: {n} row{'s' if n > 1 else ''}"
                           for t, n in sorted(counts.items(), key=lambda c: str(c[0])))
        raise ExportFormatError(
            f"{table.label} holds the records of {len(counts)} tenants ({listed}), none of "
            f"them the store's tenant {store_tenant!r}; memlens imports one source tenant at a "
            f"time into the store's tenant: choose it with --param tenant_id=ID, or read "
            f"every row with --param tenant_id='*'")

    def _records(self, table: LanceTable, source: ExportSource, tenant: str | None,
                 options: ReadOptions) -> Iterator[SourceRecord]:
        for number, row in iter_rows(table, table.schema.names, options.limit):
            place = where_of(number, row.get("id"))
            if tenant is not None and row.get("tenant_id") != tenant:
                source.skips.skip(f"record of source tenant {_tenant_name(row.get('tenant_id'))},"
                                  f" not {tenant!r} (--param tenant_id)", place)
                continue
            content = row.get("content")
            if content is None or not content.strip():
                source.skips.skip("empty content", place)
                continue
            yield self.record(number, row, f"{table.label}: {place}", place)

    def record(self, number: int, row: Mapping[str, Any], where: str, place: str
               ) -> SourceRecord:
        """One Make_Skills row as a canonical memory; errors name `where`."""
        row_id = row.get("id")
        if row_id is None or not str(row_id).strip():
            raise ExportFormatError(f"{where}: id is empty")
        kind, spelled = memory_type_of(row.get("type"), where, "type")
        extra = {k: v for k, v in row.items() if k not in MAPPED}
        if spelled is not None:
            extra["source_memory_type"] = spelled
        return memory_record(
            place, line=number, id=str(row_id), content=row["content"], memory_type=kind,
            created_at=time_of(row.get("ts"), where, "ts"), source=f"import:{self.name}",
            metadata=merge_extra({}, extra),
            tags=[tag for tag in row.get("project_tags") or () if tag],
            session_id=text_or_none(row.get("source_thread_id")),
            why=text_or_none(row.get("why")), vector=row.get("vector"),
        )
