"""Seeding a store from an export file: the demo corpus (the embedded default) or any export.

The demo corpus lives in `data/demo/` as a memlens export (vectors left out; memories, edges,
then the recall and cite events behind the access histories) plus a query set;
`write_demo_files` regenerates both from `memory_core.demo` byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memory_core.exchange.importer import import_file
from memory_core.exchange.ndjson import write_export
from memory_core.filters import Filter
from memory_core.records import canonical_json
from memory_core.schema import STATUSES
from memory_core.store import MemoryStore

if TYPE_CHECKING:
    from memory_core.config import Settings

DEMO_EXPORT = "demo_export.ndjson"
DEMO_QUERIES = "queries.ndjson"
#: Fixed so the committed demo export is byte-identical on every regeneration.
DEMO_EXPORTED_AT = datetime(2026, 10, 1, tzinfo=UTC)

Progress = Callable[[int], None]


def demo_dir() -> Path:
    """`data/demo` of the source checkout memlens runs from."""
    return Path(__file__).resolve().parent.parent / "data" / "demo"


@dataclass(frozen=True)
class SeedReport:
    """What seeding wrote."""

    source: str
    memories: int
    edges: int
    pending: int
    embedding_error: str | None


def write_demo_files(folder: Path, *, seed: int | None = None) -> tuple[Path, Path]:
    """Generate the demo corpus and write its export and query set into `folder`."""
    from memory_core.demo import DEMO_SEED, generate_demo

    corpus = generate_demo(DEMO_SEED if seed is None else seed)
    folder.mkdir(parents=True, exist_ok=True)
    export = folder / DEMO_EXPORT
    write_export(export, corpus.memories, corpus.edges, tenant="default",
                 exported_at=DEMO_EXPORTED_AT, events=corpus.events)
    queries = folder / DEMO_QUERIES
    with queries.open("w", encoding="utf-8", newline="\n") as out:
        for query in corpus.queries:
            out.write(canonical_json(query) + "\n")
    return export, queries


def seed_from_export(
    store: MemoryStore, path: Path | None = None, *, progress: Progress | None = None
) -> SeedReport:
    """Load an export (default: the demo export) into the store, embedding the memories.

    One way to load an export: this is `import_file` in `empty` mode (the tenant must have no
    memories yet; records are taken as they are, no content dedup), so every line is parsed
    and checked before anything is written and a failed seeding leaves the store unchanged.
    """
    store.check_writable("seeding")
    path = path or demo_dir() / DEMO_EXPORT
    report = import_file(store, path, mode="empty", progress=progress)
    return SeedReport(str(path), len(report.inserted), report.edges_added, report.pending,
                      report.embedding_error)


def demo_store(settings: Settings | None = None, *, progress: Progress | None = None
               ) -> MemoryStore:
    """A store holding the demo corpus, for notebooks and examples.

    `MEMLENS_STORE` when it is set, otherwise `demo-store` under the model cache folder
    (`~/.cache/memlens`), never the working directory's `./data/store`. A store without
    memories is seeded from the demo export first (about 20 s of embedding on 2 cores).
    """
    import os

    from memory_core.config import Settings

    if settings is None:
        settings = Settings.from_env()
        if not os.environ.get("MEMLENS_STORE"):
            settings = Settings.from_env(store_uri=str(settings.model_cache / "demo-store"))
    store = MemoryStore.open(settings=settings)
    if store.count(Filter(status=STATUSES)) == 0:
        seed_from_export(store, progress=progress)
    return store
