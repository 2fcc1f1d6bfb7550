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

from memory_core.adapters.lance_tables.adapter import LanceTableAdapter
from memory_core.adapters.lance_tables.columns import (
    is_epoch,
    is_key,
    is_text,
    is_text_list,
    is_vector,
)
from memory_core.adapters.lance_tables.mapping import (
    Column,
    FixedColumns,
    Sniff,
    SourceFormat,
    Vectors,
)

#: The model Make_Skills' recorder embeds with (fastembed, 384-d).
DEFAULT_MODEL = "BAAI/bge-small-en-v1.5"

MAKE_SKILLS = SourceFormat(
    name="make_skills",
    summary="Make_Skills LanceDB records (type/project_tags/ts/why), read in place",
    sniff_order=70, options=frozenset({"limit", "table"}), default_table="records",
    columns=FixedColumns(
        what="a Make_Skills records table",
        needed={"id": Column("id", is_key), "memory_type": Column("type", is_text),
                "content": Column("content", is_text), "created_at": Column("ts", is_epoch)},
        optional={"vector": Column("vector", is_vector),
                  "tags": Column("project_tags", is_text_list),
                  "session_id": Column("source_thread_id", is_text),
                  "why": Column("why", is_text)},
        checked={"tenant_id": is_text},
    ),
    sniff=Sniff(),
    vectors=Vectors(fallback=DEFAULT_MODEL),
    tenant_column="tenant_id",
)

MakeSkillsAdapter = LanceTableAdapter.of(MAKE_SKILLS, "MakeSkillsAdapter", __name__)
