"""`memlens bench search --store URI`: the search benchmark on a store at URI (object storage,
say `s3://bucket/prefix`) beside the same run on a local folder.

Both runs build the same synthetic store (`bench.search`: same seed, same texts and vectors)
and time the same queries, so the difference is the storage: each query's reads of the
tables (index files, fragments) go over the network instead of to the page cache. The store
at URI lives under a fresh prefix (`URI/memlens-bench-<random>`) that is removed afterwards,
so URI may hold anything else, a real store included.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from memory_core.bench.search import NO_CONTEXT, PRESET_NAMES, SearchBench, run_search_bench
from memory_core.model.config import Settings
from memory_core.store import store_exists
from memory_core.store.object_storage import drop_scratch_store, storage_options

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoreComparison:
    """The search benchmark on a local folder and at a given location, side by side."""

    uri: str
    local: SearchBench
    there: SearchBench

    def to_dict(self) -> dict[str, Any]:
        """Every figure of both runs, as plain data."""
        return {"uri": self.uri, "local": self.local.to_dict(), "there": self.there.to_dict()}

    def lines(self) -> list[str]:
        """The local run's figures (with its targets), then both runs per preset."""
        out = [*self.local.lines(), "",
               f"the same store at {self.uri}: written in {self.there.write_seconds:.1f} s "
               f"(local {self.local.write_seconds:.1f} s), indexed in "
               f"{self.there.index_seconds:.1f} s (local {self.local.index_seconds:.1f} s)",
               f"{'preset':<16}{'local p50':>10}{'local p95':>10}{'there p50':>10}"
               f"{'there p95':>10}{'p95 x':>7}"]
        rows = [(name, self.local.presets[name], self.there.presets[name])
                for name in [*PRESET_NAMES, NO_CONTEXT]]
        rows.append(("raw lancedb", self.local.raw_hybrid, self.there.raw_hybrid))
        for name, here, there in rows:
            out.append(f"{name:<16}{here.p50_ms:10.1f}{here.p95_ms:10.1f}{there.p50_ms:10.1f}"
                       f"{there.p95_ms:10.1f}{there.p95_ms / here.p95_ms:7.1f}")
        return out


@contextmanager
def scratch_location(parent: str, settings: Settings | None = None) -> Iterator[str]:
    """A fresh store URI under `parent`, its store removed when the block ends."""
    uri = f"{parent.rstrip('/')}/memlens-bench-{uuid.uuid4().hex[:12]}"
    try:
        yield uri
    finally:
        try:
            drop_scratch_store(uri, settings)
        except (OSError, ValueError, RuntimeError) as exc:  # the run's own error says more
            log.warning("could not remove the benchmark store %s: %s", uri, exc)


def run_store_comparison(uri: str, n: int, *, queries: int, edges: int | None = None,
                         settings: Settings | None = None) -> StoreComparison:
    """Run the search benchmark locally, then under a fresh prefix of `uri`."""
    settings = settings or Settings.from_env()
    # reach the location first: a missing bucket or a wrong key fails now, not after the
    # local run
    store_exists(uri, storage_options=storage_options(uri, settings))
    local = run_search_bench(n, queries=queries, edges=edges, settings=settings)
    with scratch_location(uri, settings) as where:
        there = run_search_bench(n, queries=queries, edges=edges, settings=settings,
                                 store_uri=where)
    return StoreComparison(uri, local, there)
