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

from memory_core.adapters.lance_tables.adapter import LanceTableAdapter
from memory_core.adapters.lance_tables.columns import (
    is_json,
    is_key,
    is_text,
    is_text_list,
    is_time,
    is_vector,
)
from memory_core.adapters.lance_tables.mapping import ParamColumns, SourceFormat, Vectors

#: The model named without --param model: it never matches a store, so the memories are
#: embedded again, and the report's note says how to keep the vectors.
UNNAMED = "an unnamed model (--param model=ID names it, so its vectors can be kept)"

LANCEDB = SourceFormat(
    name="lancedb",
    summary="any LanceDB table, columns mapped with --param FIELD=COLUMN (never sniffed)",
    sniff_order=80, options=frozenset({"limit", "project", "table"}),
    columns=ParamColumns(
        fields={"id": is_key, "content": is_text, "memory_type": is_text,
                "created_at": is_time, "project": is_text, "repo": is_text, "agent": is_text,
                "session_id": is_text, "tags": is_text_list, "why": is_text,
                "importance": is_text, "vector": is_vector, "metadata": is_json},
        needed=("content", "memory_type", "created_at"),
        literal_ok=("memory_type", "project", "repo", "agent", "session_id", "importance"),
    ),
    vectors=Vectors(fallback=UNNAMED, recorded=False),
)

LanceDBTableAdapter = LanceTableAdapter.of(LANCEDB, "LanceDBTableAdapter", __name__)
