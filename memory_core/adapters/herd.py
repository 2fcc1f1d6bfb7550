"""The `herd` import format: herd's LanceDB `memories` table (HDR-0033), read in place.

PATH is the LanceDB database folder (herd's `HERD_LANCE_PATH`, by default `data/herd.lance`)
or its `memories.lance` folder; `--table` names another table. Columns: id, project, repo,
session_id, agent, memory_type, content, vector, created_at, metadata (JSON text); herd's
writer also adds summary, org, team and host.

Mapping: id, project, repo, session_id, agent, content keep their names (herd writes "" for
a missing repo: read as null); memory_type goes through memlens' aliases (the spelling found
is kept as `metadata.source_memory_type` when it changes); created_at may be a timestamp, an
ISO-8601 string (naive means UTC) or epoch seconds; the metadata JSON becomes the metadata
object, and every other column (summary, org, team, host, ...) is added to it. `source` is
`import:herd`. Rows with empty content are skipped; `--project P` keeps one project.

Vectors: herd tables do not name their embedding model, so the vectors are kept only when
`--param model=ID` names the store's model (or the table's metadata names it: LanceDB's
`embedding_functions`, or an `embedding_model` key on the vector field) and the dimension
matches; otherwise every memory is embedded again and the report says why, even for 384-d
vectors, which herd's code makes with all-MiniLM-L6-v2 but the table cannot prove. A row with a
non-empty `summary` has a vector of that summary, not of its content (herd embeds the
summary when there is one), so its vector is always embedded again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from memory_core.adapters.base import Adapter, memory_record
from memory_core.adapters.lancedb_common import (
    LanceTable,
    check_columns,
    embedding_of,
    is_json,
    is_key,
    is_text,
    is_time,
    is_vector,
    iter_rows,
    json_object,
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
from memory_core.schema import META_SCHEMA_VERSION

DEFAULT_TABLE = "memories"
REQUIRED = {"id": is_key, "content": is_text, "memory_type": is_text, "created_at": is_time}
OPTIONAL = {"project": is_text, "repo": is_text, "session_id": is_text, "agent": is_text,
            "metadata": is_json, "vector": is_vector, "summary": is_text}
SAME_NAME = ("project", "repo", "session_id", "agent")
#: Columns the mapping reads itself; every other one goes into metadata.
MAPPED = frozenset({"id", "content", "memory_type", "created_at", "metadata", "vector",
                    *SAME_NAME})
PARAMS = ("model",)
#: The model named when the table names none: it never matches a store, so the vectors are
#: embedded again, and the report's note says how to keep them.
UNRECORDED = "an unrecorded model (herd tables do not name theirs; --param model=ID keeps them)"


def looks_like_herd(schema: pa.Schema) -> bool:
    """Whether a table schema is herd's: its required columns and one of project, repo,
    session_id, agent; not Make_Skills' `type`/`ts`, not a memlens store's `memories`."""
    names = set(schema.names)
    if not set(REQUIRED) <= names or names & {"type", "ts"}:
        return False
    if "content_hash" in names or META_SCHEMA_VERSION in (schema.metadata or {}):
        return False
    return bool(names & set(SAME_NAME))


class HerdAdapter(Adapter):
    """Seed 000 herd `memories` tables (HDR-0033), read in place from the LanceDB folder."""

    name = "herd"
    sniff_order = 60
    summary = "herd LanceDB `memories` table (HDR-0033), read in place"
    options = frozenset({"limit", "project", "table"})
    params = PARAMS

    def sniff(self, path: Path, first_line: str) -> bool:
        if not path.is_dir():
            return False
        schema = peek_schema(path, DEFAULT_TABLE)
        return schema is not None and looks_like_herd(schema)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        table = open_table(path, options.table, DEFAULT_TABLE, self.name)
        check_columns(table, REQUIRED, OPTIONAL, "a herd memories table")
        model = (options.param("model") or recorded_model(table.schema, "vector", "content")
                 or UNRECORDED)
        info = SourceInfo(format=self.name, path=str(path), schema_version=1,
                          embedding=embedding_of(table.schema, "vector", model))
        source = ExportSource(info, lambda: self._records(table, source, options))
        return source

    def _records(self, table: LanceTable, source: ExportSource, options: ReadOptions
                 ) -> Iterator[SourceRecord]:
        for number, row in iter_rows(table, table.schema.names, options.limit):
            place = where_of(number, row.get("id"))
            if options.project is not None and row.get("project") != options.project:
                source.skips.skip(f"project is not {options.project!r} (--project)", place)
                continue
            content = row.get("content")
            if content is None or not content.strip():
                source.skips.skip("empty content", place)
                continue
            yield self.record(number, row, f"{table.label}: {place}", place)

    def record(self, number: int, row: Mapping[str, Any], where: str, place: str
               ) -> SourceRecord:
        """One herd row as a canonical memory; errors name `where` (table, row and id)."""
        row_id = row.get("id")
        if row_id is None or not str(row_id).strip():
            raise ExportFormatError(f"{where}: id is empty")
        kind, spelled = memory_type_of(row.get("memory_type"), where)
        metadata = json_object(row.get("metadata"), where)
        extra = {k: v for k, v in row.items() if k not in MAPPED}
        if spelled is not None:
            extra["source_memory_type"] = spelled
        summary = text_or_none(row.get("summary"))
        return memory_record(
            place, line=number, id=str(row_id), content=row["content"], memory_type=kind,
            created_at=time_of(row.get("created_at"), where, "created_at"),
            source=f"import:{self.name}", metadata=merge_extra(metadata, extra),
            vector=row.get("vector") if summary is None else None,
            project=text_or_none(row.get("project")), repo=text_or_none(row.get("repo")),
            agent=text_or_none(row.get("agent")),
            session_id=text_or_none(row.get("session_id")),
        )
