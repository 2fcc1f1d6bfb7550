"""The generator (tools/demo_corpus, not shipped) writes the committed demo files byte for
byte, and the benches read its corpus back from those files alone, in the generator's order
(the engine ships without the generator)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memory_core.bench.demo_records import EXPORT, ORDER, QUERIES, demo_records
from memory_core.embedding.vector_file import read_vector_file
from memory_core.seeding import DEMO_EXPORT, DEMO_ORDER, DEMO_QUERIES, DEMO_VECTORS, demo_dir
from tests.memory_core.test_seeding_vectors import StandIn
from tools.demo_corpus import generate_demo
from tools.demo_corpus.files import write_demo_files

ROOT = Path(__file__).resolve().parents[3]


def test_committed_demo_files_are_regenerated_byte_for_byte_with_vectors(
        tmp_path: Path) -> None:
    export, queries = write_demo_files(tmp_path, embedder=StandIn())
    assert export.read_bytes() == (demo_dir() / DEMO_EXPORT).read_bytes()
    assert queries.read_bytes() == (demo_dir() / DEMO_QUERIES).read_bytes()
    assert (tmp_path / DEMO_ORDER).read_bytes() == (demo_dir() / DEMO_ORDER).read_bytes()
    texts = [m.content for m in generate_demo().memories]
    written = read_vector_file(tmp_path / DEMO_VECTORS, StandIn())
    assert len(written) == len(set(texts))
    kept = written.vector_of(texts[7])
    assert kept is not None and np.array_equal(kept, StandIn().embed_one(texts[7]))


def test_the_benches_read_the_generators_corpus_from_the_shipped_files() -> None:
    """The synthetic benches sample by position, so their figures stay those the generator
    gave only if the shipped files give back its records in its order, field for field."""
    assert (EXPORT, ORDER, QUERIES) == (DEMO_EXPORT, DEMO_ORDER, DEMO_QUERIES)
    made, shipped = generate_demo(), demo_records()
    assert shipped.memories == made.memories
    assert shipped.edges == made.edges
    assert list(shipped.queries) == list(made.queries)


def test_the_generator_is_not_in_the_engine() -> None:
    """memory_core ships without it (tests/test_layering.py: memory_core never imports
    tools)."""
    assert not (ROOT / "memory_core" / "demo").exists()
    assert (ROOT / "tools" / "demo_corpus" / "corpus.py").is_file()
