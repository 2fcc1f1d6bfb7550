"""The store the fuzzed importers write into, and the check every example makes (issue 18).

`seed_store` fills a store with memories, edges and audit rows of two tenants;
`Target.attempt` imports one input into it: a clean import, or one `MemlensError` after
which every table holds exactly the rows it held and the tenant's memory `PRE` is as it was.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import NO_OPTIONS, ReadOptions
from memory_core.model.errors import MemlensError
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import TABLE_OF_KIND
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.exchange.conftest import sample_records

PRE = Memory.new("A memory the tenant held before any fuzzed import", "fact", id="pre",
                 project="atlas", tags=["before"])


@dataclass(frozen=True)
class State:
    """What an import that fails must leave as it was."""

    rows: dict[str, int]
    pre: Memory


class Target:
    """A store with data of its own, and fresh folders for the inputs of each example."""

    def __init__(self, store: MemoryStore, folder: Path) -> None:
        self.store = store
        self._folder = folder
        self._numbers = itertools.count()

    def folder(self) -> Path:
        path = self._folder / f"example-{next(self._numbers)}"
        path.mkdir()
        return path

    def state(self) -> State:
        return State({kind: self.store.bulk.count(kind) for kind in TABLE_OF_KIND},
                     self.store.get("pre"))

    def fresh_tenant(self) -> MemoryStore:
        """A handle on a tenant without memories, another each call."""
        return MemoryStore.open(self.store.uri, embedder=FakeEmbedder(),
                                tenant=f"fresh-{next(self._numbers)}")

    def attempt(self, path: Path, fmt: str, options: ReadOptions = NO_OPTIONS,
                mode: Any = None, into: MemoryStore | None = None) -> None:
        """Import `path` (into the tenant of `into`, default the store's): it succeeds, or
        raises one `MemlensError` and changes nothing."""
        before = self.state()
        try:
            import_file(into or self.store, path, format=fmt, options=options, mode=mode)
        except MemlensError as exc:
            assert str(exc).strip(), "an error without a message"
            assert self.state() == before, f"a failed import changed the store: {exc}"
            scratch = Path(self.store.uri) / ".memlens-scratch"
            assert not scratch.exists() or not any(scratch.iterdir()), "staging left behind"
            return
        assert self.store.get("pre") == before.pre


def seed_store(path: Path) -> MemoryStore:
    """A store at `path`: `PRE` and `sample_records()` in tenant "default", one memory and a
    dangling edge in tenant "other"."""
    store = MemoryStore.open(str(path), embedder=FakeEmbedder(), tenant="default")
    memories, edges = sample_records()
    store.add([PRE, *memories], dedup=False)
    store.edges.add(edges)
    other = MemoryStore.open(str(path), embedder=FakeEmbedder(), tenant="other")
    other.add([Memory.new("Another tenant's memory", "fact", id="theirs")])
    other.edges.add([Edge.new("theirs", "theirs-2", "relates_to", id="e-theirs")],
                    check_endpoints=False)
    return store
