"""Seeding a store from an export file: the demo corpus (the embedded default) or any export.

The demo corpus ships as package data in `memory_core/demo_data/` (`demo_file` finds its
files, installed or in a checkout): a memlens export (vectors left out; memories, edges,
then the recall and cite events behind the access histories), a query set, the order the
generator made the records in, and the offline model's vectors of its texts
(`demo_vectors.npz`, a cache: seeding takes a memory's vector from it when the store embeds
with that same model, and embeds the others). The generator is not shipped: in a checkout,
`python -m tools.demo_corpus` regenerates every file byte for byte.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from memory_core.embedding import UnavailableEmbedder
from memory_core.embedding.preloaded import PreloadedEmbedder
from memory_core.embedding.vector_file import read_vector_file
from memory_core.exchange.importer import import_file
from memory_core.model.errors import EmbedderUnavailableError, ModelMismatchError, VectorFileError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore

if TYPE_CHECKING:
    from memory_core.model.config import Settings

log = logging.getLogger(__name__)

DEMO_EXPORT = "demo_export.ndjson"
DEMO_QUERIES = "queries.ndjson"
DEMO_VECTORS = "demo_vectors.npz"
#: The generator's order of the export's memories and edges (the benches sample by it).
DEMO_ORDER = "demo_order.json"
#: Fixed so the committed demo export is byte-identical on every regeneration.
DEMO_EXPORTED_AT = datetime(2026, 10, 1, tzinfo=UTC)

Progress = Callable[[int], None]


#: The demo corpus' files, as `demo_file` takes them.
DEMO_FILES = (DEMO_EXPORT, DEMO_QUERIES, DEMO_VECTORS, DEMO_ORDER)


def demo_dir() -> Path:
    """The folder of the demo corpus: `demo_data` of the installed `memory_core`."""
    # a package installed from a wheel or a checkout is on disk (not zipped), so the
    # resource folder is a plain path
    return Path(str(resources.files("memory_core") / "demo_data"))


def demo_file(name: str) -> Path:
    """The demo corpus' file `name` (one of `DEMO_FILES`), from wherever memlens is
    installed.

    >>> demo_file("queries.ndjson").name
    'queries.ndjson'
    """
    if name not in DEMO_FILES:
        raise ValueError(f"no demo file {name!r}; the demo files are {', '.join(DEMO_FILES)}")
    return demo_dir() / name


@dataclass(frozen=True)
class SeedReport:
    """What seeding wrote."""

    source: str
    memories: int
    edges: int
    pending: int
    embedding_error: str | None
    #: Memories whose vector came from the vectors file rather than the model.
    vectors_reused: int = 0
    #: Why the vectors file was not used, when it was not.
    vectors_note: str | None = None


def _reusing_vectors(store: MemoryStore, vectors: Path
                     ) -> tuple[MemoryStore, PreloadedEmbedder | None, str | None]:
    """`store`, or a view of it (same tables, caches, lock and journal) whose embedder takes
    the vectors of `vectors` for the texts it holds, with the reason when it cannot.

    The file is used when it holds the store's model (id, dimension, fingerprint), even if
    that model then fails to load: its vectors are exactly the model's. Not when embedding
    is switched off (`MEMLENS_EMBED_MODEL=none`: memories stay pending, as asked), nor when
    the model's package is missing (nothing says which model will embed the queries).
    """
    inner = store.embedder
    if isinstance(inner, UnavailableEmbedder):
        return store, None, f"not used: {inner.reason}"
    try:
        shipped = read_vector_file(vectors, inner)
    except ModelMismatchError as exc:  # another model: expected, so only noted
        log.info("%s", exc)
        return store, None, str(exc)
    except (VectorFileError, EmbedderUnavailableError) as exc:
        log.warning("seeding embeds every memory with the model: %s", exc)
        return store, None, str(exc)
    preloaded = PreloadedEmbedder(inner, shipped)
    view = copy.copy(store)  # as `tune` searches: the import sets no attribute of the store
    view.embedder = preloaded
    return view, preloaded, None


def seed_from_export(
    store: MemoryStore, path: Path | None = None, *, vectors: Path | None = None,
    progress: Progress | None = None
) -> SeedReport:
    """Load an export (default: the demo export) into the store, embedding the memories.

    One way to load an export: this is `import_file` in `empty` mode (the tenant must have no
    memories yet; records are taken as they are, no content dedup), so every line is parsed
    and checked before anything is written and a failed seeding leaves the store unchanged.
    A memory whose exact text the vectors file holds (default: the demo's, `DEMO_VECTORS`)
    gets its vector from there when the file holds the store's model; a missing, damaged or
    other model's file is logged and every memory is embedded, as without it. Seeding the
    demo also saves its query set as the store's (`memory_core.impact_preview.save_query_set`).
    """
    store.check_writable("seeding")
    demo = path is None
    path = path or demo_file(DEMO_EXPORT)
    target, preloaded, note = _reusing_vectors(store, vectors or demo_file(DEMO_VECTORS))
    report = import_file(target, path, mode="empty", progress=progress)
    if demo:  # the demo's query set becomes the store's: what impact previews measure with
        from memory_core.impact_preview.queries import save_query_set

        save_query_set(store, demo_file(DEMO_QUERIES))
    return SeedReport(str(path), len(report.inserted), report.edges_added, report.pending,
                      report.embedding_error, preloaded.served if preloaded else 0, note)


def demo_store(settings: Settings | None = None, *, progress: Progress | None = None
               ) -> MemoryStore:
    """A store holding the demo corpus, for notebooks and examples.

    `MEMLENS_STORE` when it is set, otherwise `demo-store` under the model cache folder
    (`~/.cache/memlens`), never the working directory's `./data/store`. A store without
    memories is seeded from the demo export first (a few seconds: its vectors are shipped).
    """
    import os

    from memory_core.model.config import Settings

    if settings is None:
        settings = Settings.from_env()
        if not os.environ.get("MEMLENS_STORE"):
            settings = Settings.from_env(store_uri=str(settings.model_cache / "demo-store"))
    store = MemoryStore.open(settings=settings)
    if store.count(Filter(status=STATUSES)) == 0:
        seed_from_export(store, progress=progress)
    return store
