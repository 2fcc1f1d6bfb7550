"""`project`: one row per embedded memory with its fields, the unembedded counted, tiny
corpora handled, progress reported, large selections sampled; and, with the real UMAP, a
layout that is repeatable float for float, keeps two topics apart and places a memory's own
vector by its point."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from memory_core.curation import archive
from memory_core.model.errors import MapError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.projection import MapParams, Projection, ProjectionCache, project
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.projection.helpers import add_pending, topic_memories

COLUMNS = ["id", "x", "y", "memory_type", "project", "agent", "status", "importance",
           "created_at", "content"]


# -- everything but the layout itself (UMAP stood in) ---------------------------------------

@pytest.mark.usefixtures("stand_in")
def test_one_row_per_embedded_memory_with_its_fields(topic_store: MemoryStore) -> None:
    add_pending(topic_store, "written while the model was off")
    topic_store.add([Memory.new("?!", "fact")])  # no word: the fake embedder's zero vector
    archived = topic_memories(1, seed=9)[0]
    topic_store.add([archived])
    archive(topic_store, [archived.id])
    result = project(topic_store, cache=False)
    frame = result.frame
    assert frame.columns == COLUMNS
    assert frame.schema["x"] == pl.Float64 and frame["id"].is_sorted()
    assert frame.height == 80 and result.fitted == 80
    assert result.skipped_unembedded == 2  # the pending one and the zero vector
    assert any("1 memories with an all-zero vector" in note for note in result.notes)
    assert archived.id not in frame["id"].to_list()
    by_id = {m.id: m for m in topic_store.list(limit=None)}
    row = frame.row(0, named=True)
    assert row["content"] == by_id[row["id"]].content  # whole, not clipped
    assert row["project"] == by_id[row["id"]].project
    assert (result.model_id, result.version) == (FakeEmbedder.model_id, topic_store.version)
    assert result.to_frame() is frame


@pytest.mark.usefixtures("stand_in")
def test_three_dimensions_add_z(topic_store: MemoryStore) -> None:
    result = project(topic_store, params=MapParams(dims=3), cache=False)
    assert result.frame.columns[:4] == ["id", "x", "y", "z"]
    assert result.place(np.ones((2, 16), dtype=np.float32)).shape == (2, 3)


@pytest.mark.usefixtures("stand_in")
def test_a_tiny_corpus_lowers_n_neighbors(store: MemoryStore) -> None:
    store.add(topic_memories(3))  # 6 memories, n_neighbors 15
    result = project(store, cache=False)
    assert result.model.n_neighbors == 5 and result.frame.height == 6
    assert result.notes == ("n_neighbors lowered from 15 to 5: only 6 memories are on the map",)


@pytest.mark.usefixtures("stand_in")
def test_three_points_start_from_a_random_layout(store: MemoryStore) -> None:
    store.add(topic_memories(2)[:3])
    result = project(store, cache=False)
    assert result.frame.height == 3 and result.model.n_neighbors == 2
    assert result.notes[1] == ("a random initial layout (seed 42): 3 memories are too few for "
                               "a spectral one in 2 dimensions")


@pytest.mark.usefixtures("stand_in")
def test_fewer_than_three_points_is_a_clear_error(store: MemoryStore) -> None:
    store.add(topic_memories(1))
    add_pending(store, "not embedded yet")
    with pytest.raises(MapError) as caught:
        project(store, cache=False)
    assert str(caught.value) == (
        "a map needs at least 3 embedded memories, the filter selects 2; widen the filter, "
        "or embed pending memories with `memlens reembed`")


@pytest.mark.usefixtures("stand_in")
def test_progress_rises_to_one(topic_store: MemoryStore, cache: ProjectionCache) -> None:
    calls: list[tuple[str, float]] = []
    project(topic_store, params=MapParams(sample=50), cache=cache,
            progress=lambda stage, fraction: calls.append((stage, fraction)))
    fractions = [f for _, f in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in fractions)
    stages = list(dict.fromkeys(stage for stage, _ in calls))
    assert stages == ["reading the cached map", "loading vectors", "finding neighbours",
                      "fitting", "placing the rest",
                      "saving the map to the cache", "done"]
    calls.clear()
    project(topic_store, params=MapParams(sample=50), cache=cache,
            progress=lambda stage, fraction: calls.append((stage, fraction)))
    assert calls == [("reading the cached map", 0.0), ("done", 1.0)]


@pytest.mark.usefixtures("stand_in")
def test_a_large_selection_is_fitted_on_a_sample(topic_store: MemoryStore) -> None:
    result = project(topic_store, params=MapParams(sample=30), cache=False)
    assert result.fitted == 30 and result.frame.height == 80
    assert result.notes == ("fitted on a sample of 30 of 80 memories (seed 42, in proportion "
                            "to each memory type); the rest placed with transform",)
    assert project(topic_store, params=MapParams(sample=80), cache=False).fitted == 80


def test_params_must_be_map_params(topic_store: MemoryStore) -> None:
    with pytest.raises(MapError, match="params must be a MapParams, got dict"):
        project(topic_store, params={"seed": 1}, cache=False)  # type: ignore[arg-type]
    with pytest.raises(MapError, match="cache must be a ProjectionCache"):
        project(topic_store, cache="maps")  # type: ignore[arg-type]


# -- the real UMAP --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def topics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    """60 memories about LanceDB and 60 about React, embedded by the fake embedder."""
    store = MemoryStore.open(str(tmp_path_factory.mktemp("topics") / "store"),
                             embedder=FakeEmbedder())
    store.add(topic_memories(60))
    yield store


@pytest.fixture(scope="module")
def umap_map(topics: MemoryStore) -> Projection:
    return project(topics, cache=False)


def _median_distance(coords: np.ndarray) -> float:
    gaps = np.linalg.norm(coords[:, None, :] - coords[None, :, :], axis=-1)
    return float(np.median(gaps[np.triu_indices(len(coords), 1)]))


def test_same_seed_same_layout_float_for_float(topics: MemoryStore,
                                               umap_map: Projection) -> None:
    again = project(topics, cache=False)
    assert again.frame.equals(umap_map.frame)  # exact equality, not approx
    other = project(topics, params=MapParams(seed=7), cache=False)
    assert not np.allclose(other.frame["x"].to_numpy(), umap_map.frame["x"].to_numpy())


def test_the_two_topics_sit_apart(umap_map: Projection) -> None:
    coords = umap_map.frame.select("x", "y").to_numpy()
    lancedb = (umap_map.frame["project"] == "lancedb").to_numpy()
    within = max(_median_distance(coords[lancedb]), _median_distance(coords[~lancedb]))
    between = float(np.linalg.norm(coords[lancedb].mean(0) - coords[~lancedb].mean(0)))
    assert between > 2 * within


def test_a_memorys_own_vector_lands_by_its_point(topics: MemoryStore,
                                                 umap_map: Projection) -> None:
    memories = {m.id: m for m in topics.list(limit=None, with_vectors=True)}
    coords = umap_map.frame.select("x", "y").to_numpy()
    ids = umap_map.frame["id"].to_list()
    picks = [0, 17, 64, 119]
    placed = umap_map.place(np.stack([np.asarray(memories[ids[i]].vector) for i in picks]))
    assert placed.shape == (4, 2)
    gaps = np.linalg.norm(placed - coords[picks], axis=1)
    assert (gaps < _median_distance(coords)).all(), gaps


def test_a_cached_model_places_like_the_fitted_one(topics: MemoryStore, tmp_path: Path
                                                   ) -> None:
    cache = ProjectionCache(tmp_path)
    fitted = project(topics, params=MapParams(dims=3), cache=cache)
    cached = project(topics, params=MapParams(dims=3), cache=cache)
    assert cached.from_cache and cached.frame.equals(fitted.frame)
    vector = FakeEmbedder().embed_one("react hook state")
    assert np.array_equal(cached.place(vector), fitted.place(vector))


def test_a_sample_places_the_rest_near_their_topic(topics: MemoryStore) -> None:
    result = project(topics, Filter(), params=MapParams(sample=40), cache=False)
    assert result.fitted == 40 and result.frame.height == 120
    coords = result.frame.select("x", "y").to_numpy()
    lancedb = (result.frame["project"] == "lancedb").to_numpy()
    centre = coords[lancedb].mean(0), coords[~lancedb].mean(0)
    nearer_own = [np.linalg.norm(c - centre[0]) < np.linalg.norm(c - centre[1])
                  for c in coords[lancedb]]
    assert np.mean(nearer_own) > 0.9


@pytest.mark.parametrize(("count", "dims"), [(3, 2), (4, 3), (5, 2)])
def test_the_smallest_maps_are_drawn(store: MemoryStore, count: int, dims: int) -> None:
    store.add(topic_memories(3)[:count])
    result = project(store, params=MapParams(dims=dims), cache=False)
    coords = result.frame.select(*"xyz"[:dims]).to_numpy()
    assert coords.shape == (count, dims) and np.isfinite(coords).all()
    assert result.model.n_neighbors == count - 1


@pytest.mark.usefixtures("stand_in")
def test_a_selection_past_the_auto_sample_size_is_sampled_and_says_so(
        topic_store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.projection import layout

    monkeypatch.setattr(layout, "AUTO_SAMPLE_ABOVE", 60)
    monkeypatch.setattr(layout, "AUTO_SAMPLE", 30)
    result = project(topic_store, cache=False)
    assert result.fitted == 30 and result.frame.height == 80
    assert any("chosen because more than 60 memories" in note for note in result.notes)
    whole = project(topic_store, params=MapParams(sample=100), cache=False)
    assert whole.fitted == 80  # a sample size the user sets wins
