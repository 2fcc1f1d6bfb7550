"""`--engine ray`: the same export and the same re-embed as in-process, on a local Ray.

One Ray instance is started for the module (its start costs seconds); each job runs on it
and on the in-process path from copies of one store, and the results are compared: export
files byte for byte, vectors value for value, audit rows by action and ids.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import memory_core.store.memory_store as memory_store
from memory_core.cli import cli
from memory_core.curation import archive
from memory_core.distributed.embed_job import ray_vectors
from memory_core.distributed.session import ray_session
from memory_core.embedding.base import UnavailableEmbedder
from memory_core.exchange.export import export_store
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import STATUSES
from memory_core.reembed import fill_pending, switch_model
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

AT = datetime(2026, 11, 1, tzinfo=UTC)


class WideFake(FakeEmbedder):
    """Another "model": the fake's bag of words padded to 24 dimensions (its first 8 again),
    so a switch is visible in the vectors' length."""

    model_id = "test/fake-bow-24"
    dimension = 24

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        narrow = super().embed_batch(texts)
        wide = np.hstack([narrow, narrow[:, :8]])
        norms = np.linalg.norm(wide, axis=1, keepdims=True)
        return (wide / np.where(norms > 0, norms, 1)).astype(np.float32)


@pytest.fixture(scope="module")
def ray_up() -> Iterator[None]:
    with ray_session(num_cpus=2):
        yield


def _memories(tenant: str, n: int) -> list[Memory]:
    return [Memory.new(f"{tenant} memory {i}: the deploy of service {i % 11} needs flag {i % 5}",
                       "decision" if i % 3 == 0 else "observation",
                       project=f"p{i % 3}", created_at=AT, tags=[f"t{i % 4}"])
            for i in range(n)]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of two tenants with archived memories, edges and audit rows."""
    folder = tmp_path_factory.mktemp("ray-source") / "store"
    for tenant, n in (("alpha", 300), ("beta", 40)):
        store = MemoryStore.open(str(folder), embedder=FakeEmbedder(), tenant=tenant)
        ids = store.add(_memories(tenant, n)).inserted
        store.edges.add([Edge.new(ids[i], ids[i + 1], "caused", created_at=AT)
                         for i in range(0, 30, 2)])
        archive(store, ids[:7], reason="stale")
    return folder


def _copy(source: Path, tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(source, tmp_path / name))


def test_an_export_on_ray_is_byte_identical(ray_up: None, source: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(source), embedder=FakeEmbedder(), tenant="alpha")
    local = export_store(store, tmp_path / "local.ndjson", with_vectors=True, with_audit=True,
                         exported_at=AT)
    result = CliRunner().invoke(cli, [
        "--store", str(source), "--tenant", "alpha", "export", str(tmp_path / "ray.ndjson"),
        "--with-vectors", "--with-audit", "--engine", "ray", "--json"])
    assert result.exit_code == 0, result.output
    on_ray = (tmp_path / "ray.ndjson").read_text(encoding="utf-8").splitlines()
    in_process = local.path.read_text(encoding="utf-8").splitlines()
    # the manifests differ only in exported_at; every record line is the same
    assert on_ray[1:] == in_process[1:] and len(in_process) > 300
    assert f'"body_sha256":"{local.manifest.body_sha256}"' in on_ray[0].replace(" ", "")
    assert all('"beta memory' not in line for line in on_ray)


def _vectors(store: MemoryStore) -> dict[str, list[float]]:
    rows = store.bulk.scan(["id", "vector", "embedding_status"])
    assert set(rows["embedding_status"].to_pylist()) == {"ok"}
    return dict(zip(rows["id"].to_pylist(), rows["vector"].to_pylist(), strict=True))


def test_a_model_switch_on_ray_writes_the_same_vectors(ray_up: None, source: Path,
                                                        tmp_path: Path) -> None:
    stores = {name: MemoryStore.open(str(_copy(source, tmp_path, name)),
                                     embedder=FakeEmbedder(), tenant="alpha")
              for name in ("local", "ray")}
    local = switch_model(stores["local"], WideFake())
    on_ray = switch_model(stores["ray"], WideFake(), vectors=ray_vectors)
    assert (on_ray.embedded, on_ray.model_id, on_ray.dimension) == (340, "test/fake-bow-24", 24)
    assert on_ray.embedded == local.embedded
    expected, got = _vectors(stores["local"]), _vectors(stores["ray"])
    assert expected.keys() == got.keys()
    assert all(np.array_equal(expected[i], got[i]) for i in expected)
    for tenant in ("alpha", "beta"):  # one audit row per tenant, naming the same memories
        rows = [MemoryStore.open(s.uri, embedder=WideFake(), tenant=tenant).audit.entries(
            limit=50) for s in stores.values()]
        reembeds = [[e.target_ids for e in r if e.action == "reembed"] for r in rows]
        assert reembeds[0] == reembeds[1] and len(reembeds[0]) == 1


def test_filling_pending_on_ray_embeds_only_this_tenants_pending(
        ray_up: None, tmp_path: Path) -> None:
    folder = tmp_path / "pending"
    offline = UnavailableEmbedder("test/fake-bow", 16, "no model here")
    for tenant in ("alpha", "beta"):
        MemoryStore.open(str(folder), embedder=offline, tenant=tenant).add(_memories(tenant, 60))
    copy = _copy(folder, tmp_path, "copy")
    local = fill_pending(MemoryStore.open(str(folder), embedder=FakeEmbedder(), tenant="alpha"))
    on_ray_store = MemoryStore.open(str(copy), embedder=FakeEmbedder(), tenant="alpha")
    on_ray = fill_pending(on_ray_store, vectors=ray_vectors)
    assert on_ray.embedded == local.embedded == 60
    pending = Filter(status=STATUSES, embedding_status=["pending"])
    beta = MemoryStore.open(str(copy), embedder=FakeEmbedder(), tenant="beta")
    assert beta.count(pending) == 60 and on_ray_store.count(pending) == 0
    left, right = (dict(zip(*(s.scan(["id", "vector"], Filter(status=STATUSES))[c].to_pylist()
                              for c in ("id", "vector")), strict=True))
                   for s in (MemoryStore.open(str(folder), embedder=FakeEmbedder(),
                                              tenant="alpha"), on_ray_store))
    assert left == right
