"""`place_query`: a query lands where its text's memory sits, and the hits the map does not
show are told apart. The checks of its input run on a stood-in UMAP; the landing is the
real UMAP's."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from memory_core.embedding.base import UnavailableEmbedder
from memory_core.model.errors import EmbedderUnavailableError, MapError, ModelMismatchError
from memory_core.model.filters import Filter
from memory_core.projection import Projection, place_query, project
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder
from tests.memory_core.projection.helpers import topic_memories


class OtherModel(FakeEmbedder):
    model_id = "other/model"


@pytest.mark.usefixtures("stand_in")
def test_hits_off_the_map_are_told_apart(topic_store: MemoryStore) -> None:
    react_only = project(topic_store, Filter(project="react"), cache=False)
    placed = place_query(topic_store, react_only, "lancedb index vector recall", k=5)
    assert len(placed.hit_ids) == 5 and placed.z is None
    projects = {m.id: m.project for m in topic_store.list(limit=None)}
    assert [projects[i] for i in placed.hit_ids] == ["lancedb"] * 5
    assert placed.hits_on_map == ()
    scoped = place_query(topic_store, react_only, "lancedb index vector recall", k=5,
                         filter=Filter(project="react"))
    assert scoped.hits_on_map == scoped.hit_ids and len(scoped.hit_ids) == 5


@pytest.mark.usefixtures("stand_in")
@pytest.mark.parametrize(("query", "k", "message"), [
    ("  ", 10, "the query to place is empty"),
    ("react", 0, "k (hits to show) must be a whole number of at least 1, got 0"),
])
def test_bad_input_is_a_clear_error(topic_store: MemoryStore, query: str, k: int,
                                    message: str) -> None:
    projection = project(topic_store, cache=False)
    with pytest.raises(MapError) as caught:
        place_query(topic_store, projection, query, k=k)
    assert message in str(caught.value)


@pytest.mark.usefixtures("stand_in")
def test_a_store_on_another_model_or_none_cannot_place(topic_store: MemoryStore) -> None:
    projection = project(topic_store, cache=False)
    offline = MemoryStore.open(topic_store.uri, embedder=UnavailableEmbedder(
        FakeEmbedder.model_id, FAKE_DIM, "no model files"))
    with pytest.raises(EmbedderUnavailableError, match="no model files"):
        place_query(offline, projection, "react hook")
    other = MemoryStore.open(topic_store.uri, embedder=FakeEmbedder())
    other.use_model(OtherModel())  # as after `memlens reembed --model other/model`
    with pytest.raises(ModelMismatchError, match="computed from test/fake-bow vectors"):
        place_query(other, projection, "react hook")


@pytest.fixture(scope="module")
def topics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    store = MemoryStore.open(str(tmp_path_factory.mktemp("overlay") / "store"),
                             embedder=FakeEmbedder())
    store.add(topic_memories(50))
    yield store


@pytest.fixture(scope="module")
def umap_map(topics: MemoryStore) -> Projection:
    return project(topics, cache=False)


def test_a_memorys_exact_content_lands_by_its_point(topics: MemoryStore,
                                                    umap_map: Projection) -> None:
    frame = umap_map.frame
    coords = frame.select("x", "y").to_numpy()
    gaps = np.linalg.norm(coords[:, None] - coords[None, :], axis=-1)
    median = float(np.median(gaps[np.triu_indices(len(coords), 1)]))
    for row in (3, 71):
        memory = frame.row(row, named=True)
        placed = place_query(topics, umap_map, memory["content"], k=3)
        assert memory["id"] == placed.hit_ids[0]  # its own text is its best hit
        assert placed.hits_on_map == placed.hit_ids
        gap = float(np.hypot(placed.x - memory["x"], placed.y - memory["y"]))
        assert gap < median, (gap, median)
