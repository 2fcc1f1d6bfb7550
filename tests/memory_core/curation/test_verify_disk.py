"""What a purge leaves on disk besides the tables (issue 42, items 11, 12, 18 and 19): the
cached maps forget the purged memory and the check looks in them; the verification's export
stays in the store's scratch folder; another tenant's copy of the same text is said without
naming a file or a tenant, and does not fail the purge; the files check reads each file once
for every needle."""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memory_core.curation import delete, verify_deleted
from memory_core.curation.verify_disk import SHARED, files_check
from memory_core.model.records import Memory
from memory_core.projection import project
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli
from tests.memory_core.curation.conftest import Corpus

MARKER = "the marker word is quokka-zeppelin-5521 for the map cache"


def _bytes_under(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _statuses(verification: object) -> dict[str, str]:
    return {c.name: c.status for c in verification.checks}  # type: ignore[attr-defined]


@pytest.fixture
def maps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A model cache of this test's own: the map cache folder under it."""
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "maps"


def _mapped_marker(corpus: Corpus) -> Memory:
    store = corpus.store
    marker = store.add([Memory.new(MARKER, "fact")]).inserted[0]
    project(store)  # `memlens map`: the default cache, under MEMLENS_MODEL_CACHE
    record = store.get_many([marker], with_vectors=True)[marker]
    return record


@pytest.mark.slow
def test_a_purge_removes_the_cached_maps_that_hold_the_memory(corpus: Corpus,
                                                             maps: Path) -> None:
    record = _mapped_marker(corpus)
    vector = np.asarray(record.vector[:32], dtype=np.float32).tobytes()
    held = _bytes_under(maps)
    assert MARKER.encode() in held and vector in held  # layout.parquet, reducer.pkl
    report = delete(corpus.store, [record.id], purge=True)
    assert report.verification is not None and report.verification.passed
    left = _bytes_under(maps)
    assert MARKER.encode() not in left and vector not in left
    assert _statuses(report.verification)["map caches"] == "pass"
    assert "cached maps removed: 1" in report.notes


@pytest.mark.slow
def test_the_check_finds_a_cached_map_that_still_holds_it(corpus: Corpus, maps: Path,
                                                          tmp_path: Path) -> None:
    record = _mapped_marker(corpus)
    (entry,) = [p for p in maps.iterdir() if not p.name.startswith(".")]
    shutil.copytree(entry, tmp_path / "kept")
    delete(corpus.store, [record.id], purge=True)
    shutil.copytree(tmp_path / "kept", entry)  # a copy the purge did not see
    result = verify_deleted(corpus.store, record.id, known=[record])
    (failure,) = result.failures
    assert failure.name == "map caches" and entry.name[:12] in failure.detail


@pytest.mark.slow
def test_a_plain_delete_says_the_older_maps_hold_it(corpus: Corpus, maps: Path) -> None:
    record = _mapped_marker(corpus)
    delete(corpus.store, [record.id])
    result = verify_deleted(corpus.store, record.id)
    assert result.passed and _statuses(result)["map caches"] == "info"


@pytest.mark.slow
def test_a_purge_leaves_the_maps_of_other_stores(corpus: Corpus, maps: Path, tmp_path: Path,
                                                 fake_embedder: FakeEmbedder) -> None:
    other = MemoryStore.open(str(tmp_path / "other"), embedder=fake_embedder)
    other.add([Memory.new(f"another store's memory number {i}", "fact") for i in range(6)])
    project(other)
    record = _mapped_marker(corpus)
    delete(corpus.store, [record.id], purge=True)
    assert len([p for p in maps.iterdir() if not p.name.startswith(".")]) == 1
    assert b"another store's memory" in _bytes_under(maps)


def test_the_verification_export_stays_in_the_store_scratch_folder(
        corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.exchange import export as export_module

    written: list[Path] = []
    original = export_module.export_store

    def spy(store: MemoryStore, path: Path, **kwargs: object) -> object:
        written.append(Path(path))
        return original(store, path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(export_module, "export_store", spy)
    delete(corpus.store, [corpus.ids[3]], purge=True)
    (path,) = written
    # a kill during the verification leaves it where the next writable open sweeps it
    assert path.parent.parent == Path(corpus.store.uri) / ".memlens-scratch"
    assert path.parent.name.startswith("verify-") and not path.parent.exists()


SHARED_TEXT = "the shared deploy token is kea-7781-marmot, both teams hold it"


def _two_tenants(store: MemoryStore, fake_embedder: FakeEmbedder) -> str:
    bravo = MemoryStore.open(store.uri, tenant="bravo", embedder=fake_embedder)
    bravo.add([Memory.new(SHARED_TEXT, "fact")])
    store.add([Memory.new("an unrelated memory of the default tenant", "fact")])
    return store.add([Memory.new(SHARED_TEXT, "fact")]).inserted[0]


def test_text_another_tenant_holds_is_said_without_a_file_and_passes(
        store: MemoryStore, fake_embedder: FakeEmbedder) -> None:
    mine = _two_tenants(store, fake_embedder)
    report = delete(store, [mine], purge=True)
    assert report.verification is not None and report.verification.passed
    (check,) = [c for c in report.verification.checks if c.name == "files on disk"]
    assert check.status == "info" and SHARED in check.detail
    assert ".lance" not in check.detail and "bravo" not in check.detail


@pytest.mark.slow
def test_the_cli_purge_of_shared_text_exits_0_naming_no_file_or_tenant(
        store: MemoryStore, fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from memory_core.store import memory_store

    mine = _two_tenants(store, fake_embedder)
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    code, out, err = run_cli(["--store", store.uri, "delete", mine, "--purge", "--yes"],
                             capsys)
    assert code == 0, out + err
    assert SHARED in out and "memories.lance" not in out + err and "bravo" not in out + err


def test_the_same_text_in_this_tenant_still_fails(store: MemoryStore) -> None:
    first = store.add([Memory.new(SHARED_TEXT, "fact")]).inserted[0]
    record = store.get_many([first], with_vectors=True)[first]
    delete(store, [first], purge=True)
    store.add([Memory.new(SHARED_TEXT, "fact")])  # back under another id: a leak
    result = verify_deleted(store, first, known=[record])
    assert "files on disk" in {c.name for c in result.failures}


@pytest.mark.slow
def test_the_files_check_reads_each_file_once_for_4000_memories(store: MemoryStore) -> None:
    rng = np.random.default_rng(7)
    store.add([Memory.new("a memory that stays in the store", "fact")])
    planted = Path(store.uri) / "memories.lance" / "data" / "planted.lance"
    data = bytearray(rng.integers(0, 256, 48 << 20, dtype=np.uint8).tobytes())
    known = {}
    for i in range(4000):
        memory = Memory.new(f"purged memory {i} {rng.integers(1 << 60)}", "fact")
        vector = rng.standard_normal(8).astype(np.float32).tolist()
        known[memory.id] = replace(memory, vector=vector)
    leaked = next(iter(known.values()))
    data[9 << 20:(9 << 20) + len(leaked.content)] = leaked.content.encode()
    planted.write_bytes(bytes(data))
    start = time.perf_counter()
    check = files_check(store, known)
    elapsed = time.perf_counter() - start
    # 8,000 needles tested one by one read the 48 MB 8,000 times (minutes); once: seconds
    assert check.status == "fail" and "planted.lance" in check.detail
    assert elapsed < 20, elapsed
