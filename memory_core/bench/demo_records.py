"""The demo corpus as the synthetic benches sample it: its memories and edges in the order
the generator made them, and its queries, read from the shipped files.

The export holds the records sorted by id; `demo_order.json` gives each one's place in the
generator's order, which the benches' seeded draws index into (so their figures do not
depend on the generator, which is not shipped).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from memory_core.exchange.readers.memlens import read_export
from memory_core.model.canonical import edge_from_doc, memory_from_doc
from memory_core.model.records import Edge, Memory

#: The shipped files read, as `memory_core.seeding` names them (the benches sit below seeding,
#: so they locate the package data themselves).
EXPORT, ORDER, QUERIES = "demo_export.ndjson", "demo_order.json", "queries.ndjson"


@dataclass(frozen=True)
class DemoRecords:
    """The demo corpus' memories, edges and queries, in the generator's order."""

    memories: tuple[Memory, ...]
    edges: tuple[Edge, ...]
    queries: tuple[dict[str, Any], ...]


def shipped(name: str) -> Path:
    """A file of the shipped demo corpus (`memory_core/demo_data/`)."""
    return Path(str(resources.files("memory_core") / "demo_data" / name))


@lru_cache(maxsize=1)
def demo_records() -> DemoRecords:
    """The shipped demo corpus, read once per process."""
    _, records = read_export(shipped(EXPORT))
    docs = {kind: [{k: v for k, v in r.items() if k != "_line"} for r in records
                   if r["kind"] == kind] for kind in ("memory", "edge")}
    order = json.loads(shipped(ORDER).read_text(encoding="utf-8"))
    lines = shipped(QUERIES).read_text(encoding="utf-8").splitlines()
    return DemoRecords(
        memories=tuple(memory_from_doc(docs["memory"][i]) for i in order["memory"]),
        edges=tuple(edge_from_doc(docs["edge"][i]) for i in order["edge"]),
        queries=tuple(json.loads(line) for line in lines if line.strip()),
    )
