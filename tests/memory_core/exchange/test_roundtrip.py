"""Round trip: any store -> export -> import into a fresh store -> export, byte for byte."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.exchange.ndjson import write_export
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import IMPORTANCE_TIERS, MEMORY_TYPES, RELATIONS, STATUSES
from memory_core.store import MemoryStore
from tests.memory_core.exchange.conftest import WHEN, body, fresh_store

chars = st.characters(codec="utf-8")
texts = st.text(chars, min_size=1, max_size=200).filter(lambda s: bool(s.strip()))
# long texts built by repetition: generating thousands of random characters is slow to shrink
long_texts = st.builds(lambda text, times: (text + "\n") * times, texts, st.integers(30, 300))
optional = st.none() | st.text(chars, max_size=30)
times = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2100, 1, 1),
                     timezones=st.just(UTC))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(chars, max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(chars, max_size=8),
                                                                 inner, max_size=3),
    max_leaves=8,
)
memories = st.builds(
    Memory.new,
    content=texts | long_texts,
    memory_type=st.sampled_from([*MEMORY_TYPES, "Custom Kind"]),
    importance=st.sampled_from(IMPORTANCE_TIERS),
    created_at=times,
    updated_at=st.none() | times,
    tags=st.lists(st.text(chars, max_size=12), max_size=4),
    metadata=st.dictionaries(st.text(chars, max_size=12), json_values, max_size=4),
    status=st.sampled_from(STATUSES),
    project=optional, repo=optional, agent=optional, session_id=optional, why=optional,
    source=optional,
    confidence=st.none() | st.floats(0, 1, width=32),
    stability=st.none() | st.floats(0.5, 1e6, width=32),
    access_count=st.integers(0, 2**31 - 1),
    last_accessed_at=st.none() | times,
)
edge_specs = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50),
                                st.sampled_from(RELATIONS), st.floats(0, 1, width=32),
                                st.lists(st.text(chars, max_size=10), max_size=2)),
                      max_size=6)


def _store_with(folder: Path, items: list[Memory], specs: list[tuple]) -> MemoryStore:
    store = fresh_store(folder, "source")
    store.add(items, dedup=False)
    edges = [Edge.new(items[s % len(items)].id, items[t % len(items)].id, rel, strength=w,
                      evidence=ev, created_at=WHEN)
             for s, t, rel, w, ev in specs if s % len(items) != t % len(items)]
    store.edges.add(edges)
    return store


@pytest.mark.slow  # 25 stores written, imported and exported again
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(memories, min_size=1, max_size=8), specs=edge_specs,
       with_vectors=st.booleans())
def test_export_import_export_is_byte_identical(items: list[Memory], specs: list[tuple],
                                                with_vectors: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = _store_with(folder, items, specs)
        first = export_store(store, folder / "first.ndjson", with_vectors=with_vectors,
                             exported_at=WHEN)
        target = fresh_store(folder, "target")
        report = import_file(target, folder / "first.ndjson")
        assert len(report.inserted) == len(items)
        again = export_store(target, folder / "again.ndjson", with_vectors=with_vectors,
                             exported_at=WHEN)
        assert body(folder / "again.ndjson") == body(folder / "first.ndjson")
        assert again.manifest.body_sha256 == first.manifest.body_sha256
        # the streamed, column-wise export equals the record-by-record canonical form
        held = store.list(Filter(status=STATUSES), limit=None, with_vectors=with_vectors)
        write_export(folder / "held.ndjson", held, store.edges.list(include_inactive=True),
                     tenant="default", exported_at=WHEN, with_vectors=with_vectors)
        assert body(folder / "held.ndjson") == body(folder / "first.ndjson")
