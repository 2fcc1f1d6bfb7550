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

from memory_core.adapters.lance_tables.adapter import LanceTableAdapter
from memory_core.adapters.lance_tables.columns import (
    is_json,
    is_key,
    is_text,
    is_time,
    is_vector,
)
from memory_core.adapters.lance_tables.mapping import (
    Column,
    FixedColumns,
    Sniff,
    SourceFormat,
    Vectors,
)
from memory_core.model.schema import META_SCHEMA_VERSION

#: The model named when the table names none: it never matches a store, so the vectors are
#: embedded again, and the report's note says how to keep them.
UNRECORDED = "an unrecorded model (herd tables do not name theirs; --param model=ID keeps them)"

HERD = SourceFormat(
    name="herd", summary="herd LanceDB `memories` table (HDR-0033), read in place",
    sniff_order=60, options=frozenset({"limit", "project", "table"}), default_table="memories",
    columns=FixedColumns(
        what="a herd memories table",
        needed={"id": Column("id", is_key), "content": Column("content", is_text),
                "memory_type": Column("memory_type", is_text),
                "created_at": Column("created_at", is_time)},
        optional={"project": Column("project", is_text), "repo": Column("repo", is_text),
                  "session_id": Column("session_id", is_text),
                  "agent": Column("agent", is_text), "metadata": Column("metadata", is_json),
                  "vector": Column("vector", is_vector)},
        checked={"summary": is_text},
    ),
    # one of herd's own columns; not Make_Skills' `type`/`ts`, not a memlens store's table
    sniff=Sniff(any_of=frozenset({"project", "repo", "session_id", "agent"}),
                none_of=frozenset({"type", "ts", "content_hash"}),
                none_of_metadata=frozenset({META_SCHEMA_VERSION})),
    vectors=Vectors(fallback=UNRECORDED, not_of_content="summary"),
)

HerdAdapter = LanceTableAdapter.of(HERD, "HerdAdapter", __name__)
