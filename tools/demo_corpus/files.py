"""The committed demo corpus' files (`memory_core/demo_data/`), written from the generator.

The export (vectors left out; memories, edges, then the recall and cite events behind the
access histories) and the query set are byte-identical on every run for the same seed. The
order file gives, for the export's memories and edges (sorted by id there), the order the
generator made them in: the synthetic benches sample the corpus by position. The vectors
file holds the offline model's vector of each text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memory_core.exchange.ndjson import write_export
from memory_core.exchange.readers.memlens import read_export
from memory_core.model.values import canonical_json
from memory_core.seeding import (
    DEMO_EXPORT,
    DEMO_EXPORTED_AT,
    DEMO_ORDER,
    DEMO_QUERIES,
    DEMO_VECTORS,
)
from tools.demo_corpus.corpus import DEMO_SEED, DemoCorpus, generate_demo

if TYPE_CHECKING:
    from memory_core.embedding import Embedder

Progress = Callable[[int], None]


def write_demo_files(folder: Path, *, seed: int | None = None,
                     embedder: Embedder | None = None, vectors: bool = True,
                     progress: Progress | None = None) -> tuple[Path, Path]:
    """Generate the demo corpus and write its export, query set and order into `folder`, and
    (with `vectors`) the vectors of its texts by `embedder` (default: the offline default
    model, whatever MEMLENS_EMBED_MODEL says; about a minute on 2 cores); returns the export
    and query-set paths."""
    from memory_core.embedding import load_embedder
    from memory_core.embedding.vector_file import write_vector_file
    from memory_core.model.config import DEFAULT_MODEL, Settings

    corpus = generate_demo(DEMO_SEED if seed is None else seed)
    folder.mkdir(parents=True, exist_ok=True)
    export = folder / DEMO_EXPORT
    write_export(export, corpus.memories, corpus.edges, tenant="default",
                 exported_at=DEMO_EXPORTED_AT, events=corpus.events)
    queries = folder / DEMO_QUERIES
    with queries.open("w", encoding="utf-8", newline="\n") as out:
        for query in corpus.queries:
            out.write(canonical_json(query) + "\n")
    (folder / DEMO_ORDER).write_text(order_of(corpus, export), encoding="utf-8", newline="\n")
    if vectors:
        write_vector_file(folder / DEMO_VECTORS, [m.content for m in corpus.memories],
                          embedder or load_embedder(Settings.from_env(embed_model=DEFAULT_MODEL)),
                          progress=progress)
    return export, queries


def order_of(corpus: DemoCorpus, export: Path) -> str:
    """The order file's text: for memories and edges, the export position of each record,
    in the generator's order."""
    _, records = read_export(export)
    order = {}
    for kind, made in (("memory", corpus.memories), ("edge", corpus.edges)):
        position = {r["id"]: i for i, r in enumerate(r for r in records if r["kind"] == kind)}
        order[kind] = [position[record.id] for record in made]
    return json.dumps(order, separators=(",", ":")) + "\n"
