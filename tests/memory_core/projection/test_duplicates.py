"""Near-duplicate pairs: planted near copies found, exact content-hash copies and distant
pairs not, the threshold itself included, any block size giving the pairs one block gives,
and every pair the brute-force definition finds."""

from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from memory_core.embedding.base import UnavailableEmbedder
from memory_core.model.errors import InvalidMapParamsError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.projection import near_duplicate_pairs, near_duplicates
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM

HOSTILE = "<script>alert(1)</script> <a href='x'>50%</a> \x1b]52;c;ZXZpbA==\x07\r\u202e"


def unit(*pairs: tuple[int, float]) -> list[float]:
    """A FAKE_DIM vector with these (axis, value) entries, normalised."""
    vector = np.zeros(FAKE_DIM)
    for axis, value in pairs:
        vector[axis] = value
    return list(vector / np.linalg.norm(vector))


def cos_with_first(cosine: float) -> list[float]:
    """The unit vector at `cosine` from axis 0, in the plane of axes 0 and 1."""
    return unit((0, cosine), (1, math.sqrt(1 - cosine**2)))


def brute_force(ids: list[str], vectors: np.ndarray, hashes: list[str], threshold: float
                ) -> list[tuple[str, str, float]]:
    """The definition, pair by pair (the oracle for small inputs)."""
    unit_rows = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    found = []
    for i, j in combinations(range(len(ids)), 2):
        cosine = float(unit_rows[i] @ unit_rows[j])
        if cosine >= threshold and hashes[i] != hashes[j]:
            a, b = sorted((ids[i], ids[j]))
            found.append((a, b, cosine))
    return sorted(found, key=lambda p: (-p[2], p[0], p[1]))


@pytest.fixture(scope="module")
def topics() -> tuple[list[str], np.ndarray, list[str]]:
    """300 vectors around 20 topic centres (many pairs above 0.9), ids in shuffled order,
    every 25th vector sharing the previous one's content hash."""
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((20, FAKE_DIM))
    vectors = centres[rng.integers(0, 20, 300)] + 0.25 * rng.standard_normal((300, FAKE_DIM))
    ids = [f"m{k:03d}" for k in rng.permutation(300)]
    hashes = [f"h{i - 1 if i % 25 == 0 and i else i}" for i in range(300)]
    return ids, vectors, hashes


@pytest.mark.parametrize("block", [7, 64, 300, 2048])
def test_any_block_size_finds_exactly_the_pairs_of_the_definition(
        topics: tuple[list[str], np.ndarray, list[str]], block: int) -> None:
    ids, vectors, hashes = topics
    pairs = near_duplicate_pairs(ids, vectors, hashes, 0.9, block=block)
    expected = brute_force(ids, vectors, hashes, 0.9)
    assert len(expected) > 100
    assert [(a, b) for a, b, _ in pairs.rows()] == [(a, b) for a, b, _ in expected]
    assert pairs["cosine"].to_list() == pytest.approx([c for *_, c in expected], abs=1e-12)
    assert all(a < b for a, b, _ in pairs.rows())
    assert pairs.equals(near_duplicate_pairs(ids, vectors, hashes, 0.9, block=3))


@pytest.mark.parametrize("block", [16, 2048])
def test_limit_keeps_the_closest_pairs(topics: tuple[list[str], np.ndarray, list[str]],
                                       block: int) -> None:
    ids, vectors, hashes = topics
    everything = near_duplicate_pairs(ids, vectors, hashes, 0.9)
    for limit in (1, 10, 57):
        assert near_duplicate_pairs(ids, vectors, hashes, 0.9, block=block,
                                    limit=limit).equals(everything.head(limit))


def test_planted_pairs_near_copies_found_exact_copies_and_distant_pairs_not() -> None:
    ids = ["base", "near", "copy", "far", "far-ish"]
    vectors = np.array([unit((0, 1)), cos_with_first(0.99), unit((0, 1)), unit((5, 1)),
                        unit((5, 1), (6, 0.5))])
    hashes = ["h-base", "h-near", "h-base", "h-far", "h-far-ish"]
    pairs = near_duplicate_pairs(ids, vectors, hashes, 0.95)
    # copy has base's content hash: that pair is dedup's; copy is near `near` all the same
    assert [(a, b) for a, b, _ in pairs.rows()] == [("base", "near"), ("copy", "near")]
    assert pairs["cosine"].to_list() == pytest.approx([0.99, 0.99], abs=1e-12)
    assert pairs.columns == ["a", "b", "cosine"]


@pytest.mark.parametrize("cosine", [0.6, 0.95, 0.8, 0.123456789])
def test_a_pair_exactly_at_the_threshold_is_included(cosine: float) -> None:
    vectors = np.array([unit((0, 1)), cos_with_first(cosine)])
    assert near_duplicate_pairs(["a", "b"], vectors, ["1", "2"], cosine).height == 1
    assert near_duplicate_pairs(["a", "b"], vectors, ["1", "2"], cosine + 1e-4).height == 0


def test_identical_vectors_with_different_contents_are_at_cosine_one() -> None:
    vectors = np.array([unit((3, 2), (4, 1))] * 2)
    pairs = near_duplicate_pairs(["b", "a"], vectors, ["1", "2"], 1.0)
    assert pairs.rows() == [("a", "b", pytest.approx(1.0, abs=1e-6))]


def test_a_zero_vector_is_near_nothing_and_no_input_gives_no_pairs() -> None:
    vectors = np.array([unit((0, 1)), [0.0] * FAKE_DIM, unit((0, 1))])
    assert near_duplicate_pairs(["a", "z", "b"], vectors, ["1", "2", "3"], 0.1).rows() == [
        ("a", "b", pytest.approx(1.0, abs=1e-6))]
    empty = near_duplicate_pairs([], np.zeros((0, FAKE_DIM)), [], 0.95)
    assert empty.height == 0 and empty.columns == ["a", "b", "cosine"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"threshold": 0}, r"threshold must be a cosine in \(0, 1\], got 0"),
    ({"threshold": 1.5}, "got 1.5"),
    ({"threshold": float("nan")}, "got nan"),
    ({"threshold": True}, "got True"),
    ({"block": 0}, "block must be a whole number >= 1, got 0"),
    ({"limit": 0}, "limit must be a whole number >= 1, got 0"),
    ({"ids": ["a", "a"]}, "distinct ids"),
    ({"hashes": ["1"]}, "2 ids, vectors of shape .2, 16. and 1 hashes"),
    ({"vectors": np.array([[np.nan] * FAKE_DIM, unit((0, 1))])}, "NaN or infinite"),
])
def test_bad_input_is_one_clear_error(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"ids": ["a", "b"], "vectors": np.array([unit((0, 1))] * 2),
                               "hashes": ["1", "2"], "threshold": 0.95}
    args.update(kwargs)
    with pytest.raises(InvalidMapParamsError, match=message):
        near_duplicate_pairs(**args)  # type: ignore[arg-type]


# -- over a store ---------------------------------------------------------------------------

@pytest.fixture
def planted(store: MemoryStore, store_path: str) -> MemoryStore:
    """base ~ near (0.99, herd); base's exact copy; far ~ shelved (0.97, archived); a
    pending memory; hostile text in near."""
    store.add([
        Memory.new("deploy with blue green switch", "decision", id="base", project="herd",
                   vector=unit((0, 1))),
        Memory.new(f"deploy with a blue/green switch {HOSTILE}", "decision", id="near",
                   project="herd", vector=cos_with_first(0.99)),
        Memory.new("the cache key holds the tenant", "fact", id="far", project="lumen",
                   vector=unit((5, 1))),
        Memory.new("cache keys hold the tenant id", "fact", id="shelved", project="lumen",
                   status="archived", vector=unit((5, 1), (6, 0.25))),
    ])
    store.add([Memory.new("deploy with blue green switch", "decision", id="copy",
                          vector=unit((0, 1)))], dedup=False)
    pending = MemoryStore.open(store_path, embedder=UnavailableEmbedder(
        "test/fake-bow", FAKE_DIM, "no model in this test"))
    pending.add([Memory.new("deploy with blue green switches", "decision", id="pending")])
    return store


def test_store_pairs_have_both_contents_untouched(planted: MemoryStore) -> None:
    pairs = near_duplicates(planted)
    assert pairs.columns == ["a", "b", "cosine", "a_content", "b_content"]
    assert pairs.select("a", "b").rows() == [("base", "near"), ("copy", "near")]
    assert pairs["cosine"].to_list() == pytest.approx([0.99, 0.99], abs=1e-6)
    # escaping is each sink's job: the frame holds the content as stored
    assert pairs["b_content"].to_list() == [f"deploy with a blue/green switch {HOSTILE}"] * 2
    assert pairs["a_content"][0] == "deploy with blue green switch"


def test_store_pairs_follow_the_filter(planted: MemoryStore) -> None:
    assert near_duplicates(planted, Filter(project="lumen")).height == 0  # shelved archived
    both = near_duplicates(planted, Filter(project="lumen", status=["active", "archived"]))
    assert both.select("a", "b").rows() == [("far", "shelved")]
    assert near_duplicates(planted, threshold=0.995).height == 0


def test_progress_rises_to_one(planted: MemoryStore) -> None:
    seen: list[tuple[str, float]] = []
    near_duplicates(planted, block=2, progress=lambda stage, f: seen.append((stage, f)))
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert seen[0] == ("loading vectors", 0.0) and seen[-1] == ("done", 1.0)
    assert len(seen) > 3  # 4 vectors in blocks of 2: three block pairs


def test_a_store_without_vectors_has_no_pairs(store_path: str, tmp_path: Path) -> None:
    store = MemoryStore.open(str(tmp_path / "empty"), embedder=UnavailableEmbedder(
        "test/fake-bow", FAKE_DIM, "no model in this test"))
    store.add([Memory.new("only pending here", "fact")])
    assert near_duplicates(store).height == 0
