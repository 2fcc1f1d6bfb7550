"""Round trips through a real store, in the style of sqlite-utils' tests/test_hypothesis.py:
a generated record written with `add` / `upsert` / `add_edges` comes back from the store
equal to the original, field by field (not compared with another output of the same code)."""

from __future__ import annotations

import dataclasses
import tempfile
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.model.records import Edge, Memory
from memory_core.model.schema import (
    IMPORTANCE_TIERS,
    MEMORY_TYPES,
    RELATIONS,
    STATUSES,
    normalise_memory_type,
)
from memory_core.model.values import content_hash
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder

pytestmark = pytest.mark.slow  # Hypothesis through real LanceDB: ~10 s

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

texts = st.text(min_size=0, max_size=40)
optional_texts = st.none() | texts
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(
    lambda w: w.strip("_") == w)
# microseconds are what the store keeps; any year Arrow and ISO-8601 both hold
times = st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31),
                     timezones=st.just(UTC))
float32s = st.floats(width=32, allow_nan=False, allow_infinity=False)
unit32s = st.floats(min_value=0.0, max_value=1.0, width=32)
#: a stability is a positive number of days (`is_valid_stability`)
days32s = st.floats(min_value=0.0, exclude_min=True, width=32, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | texts
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
metadata = st.dictionaries(texts, json_values, max_size=4)


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    content = draw(st.text(min_size=1, max_size=200).filter(lambda t: t.strip() != ""))
    created = draw(times)
    vector = draw(st.lists(float32s, min_size=FAKE_DIM, max_size=FAKE_DIM)
                  .filter(lambda v: any(v)))
    return Memory(
        id=str(draw(st.uuids())), content=content,
        # a word the store keeps as typed: an alias ("pref") is stored as its canonical type,
        # which the alias tests cover
        memory_type=draw(st.sampled_from(MEMORY_TYPES)
                         | words.filter(lambda w: normalise_memory_type(w) == w)),
        status=draw(st.sampled_from(STATUSES)), tenant="default",
        project=draw(optional_texts), repo=draw(optional_texts), agent=draw(optional_texts),
        session_id=draw(optional_texts), tags=tuple(draw(st.lists(texts, max_size=4))),
        why=draw(optional_texts), source=draw(optional_texts),
        created_at=created, updated_at=draw(times), content_hash=content_hash(content),
        importance=draw(st.sampled_from(IMPORTANCE_TIERS)),
        stability=draw(st.none() | days32s), confidence=draw(st.none() | unit32s),
        access_count=draw(st.integers(0, 2**31 - 1)), last_accessed_at=draw(st.none() | times),
        embedding_status="ok", vector=tuple(float(x) for x in np.float32(vector)),
        metadata=draw(metadata),
    )


def _equal_field_by_field(original: Memory | Edge, back: Memory | Edge) -> None:
    for field in dataclasses.fields(original):
        assert getattr(back, field.name) == getattr(original, field.name), field.name


@SETTINGS
@given(batch=st.lists(memories(), min_size=1, max_size=4, unique_by=lambda m: m.id))
def test_a_memory_written_with_add_reads_back_equal(batch: list[Memory]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore.open(folder, embedder=FakeEmbedder())
        store.add(batch, dedup=False)
        for memory in batch:
            _equal_field_by_field(memory, store.get(memory.id, with_vectors=True))


@SETTINGS
@given(first=memories(), second=memories())
def test_a_memory_replaced_with_upsert_reads_back_equal(first: Memory, second: Memory
                                                         ) -> None:
    replacement = dataclasses.replace(second, id=first.id)
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore.open(folder, embedder=FakeEmbedder())
        store.upsert([first])
        _equal_field_by_field(first, store.get(first.id, with_vectors=True))
        store.upsert([replacement])
        # upsert skips a record equal but for updated_at (it reports it unchanged)
        same = dataclasses.replace(replacement, updated_at=first.updated_at) == first
        _equal_field_by_field(first if same else replacement,
                              store.get(first.id, with_vectors=True))


@SETTINGS
@given(data=st.data())
def test_an_edge_reads_back_equal(data: st.DataObject) -> None:
    source, target = data.draw(st.lists(memories(), min_size=2, max_size=2,
                                        unique_by=lambda m: m.id))
    edge = Edge(
        id=str(data.draw(st.uuids())), tenant="default", source_id=source.id,
        target_id=target.id, relation=data.draw(st.sampled_from(RELATIONS)),
        strength=data.draw(unit32s), evidence=tuple(data.draw(st.lists(texts, max_size=3))),
        created_at=data.draw(times), last_reinforced=data.draw(st.none() | times),
        decay_rate=data.draw(st.floats(min_value=0.0, max_value=10.0, width=32)),
        status=data.draw(st.sampled_from(STATUSES)), metadata=data.draw(metadata),
    )
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore.open(folder, embedder=FakeEmbedder())
        store.add([source, target], dedup=False)
        store.edges.add([edge])
        (back,) = store.edges.list(include_inactive=True)
        _equal_field_by_field(edge, back)
