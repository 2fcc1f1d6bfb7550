"""A memlens store is an ordinary LanceDB database: plain `lancedb`, as a user's other tools
would use it, lists and opens every table memlens writes, counts their rows and finds a
memory by vector search."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import lancedb

from memory_core.model.records import Edge, Event, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

CONTENTS = ["rotate the api keys every quarter", "the database migration runs at night",
            "retry the flaky upload twice"]


def test_plain_lancedb_reads_every_table_memlens_writes(store_path: str,
                                                        fake_embedder: FakeEmbedder) -> None:
    store = MemoryStore.open(store_path, embedder=fake_embedder)
    memories = [Memory.new(text, "fact") for text in CONTENTS]
    store.add(memories)
    ids = [m.id for m in memories]
    store.edges.add([Edge.new(ids[0], ids[1], "causes")])
    store.events.record([Event.new("cite", ids[2], at=datetime(2026, 1, 5, tzinfo=UTC))])

    db = lancedb.connect(store_path)
    names = set(db.list_tables().tables)
    assert {"memories", "edges", "audit", "events"} <= names
    counts = {name: db.open_table(name).count_rows() for name in names}
    assert counts["memories"] == 3 and counts["edges"] == 1 and counts["events"] == 1
    assert counts["audit"] >= 1  # the adds are audited

    table = db.open_table("memories")
    vector = fake_embedder.embed_one(CONTENTS[1]).tolist()
    nearest: Any = table.search(vector, vector_column_name="vector")  # a vector query
    hits = nearest.distance_type("cosine").select(["id", "content"]).limit(2).to_arrow()
    assert hits["id"].to_pylist()[0] == ids[1]
    assert hits["content"].to_pylist()[0] == CONTENTS[1]
