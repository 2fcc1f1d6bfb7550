"""`check_store` on a copy of a small store damaged each way issue 42 reproduced: every
damage is found, in its table and file, with the newest version that still reads whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.integrity import check_store
from tests.conftest import FakeEmbedder
from tests.memory_core.integrity.damaged import (
    DAMAGE,
    TABLE_OF,
    build_base,
    change_content,
    damaged_copy,
    newest_manifest,
)

#: damage kind -> (what fixes it, a word of its line)
EXPECTED = {
    "memories data file deleted": ("version", "missing"),
    "memories data file truncated": ("version", "truncated"),
    "memories manifest truncated": ("version", "manifest of version 6 unreadable"),
    "edges data file deleted": ("version", "missing"),
    "audit manifest truncated": ("version", "manifest of version 5 unreadable"),
    "full-text index deleted": ("index", "has no files"),
    "vectors zeroed": ("vector", "vectors changed"),
    "newest memories manifest deleted": ("lost", "the newest manifests are gone"),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("integrity") / "base"
    build_base(path)
    return path


def test_an_undamaged_store_is_clean(base: Path) -> None:
    report = check_store(str(base), embedder=FakeEmbedder())
    assert report.clean, [p.line() for p in report.all_problems]
    assert [(t.name, t.latest, t.good_version) for t in report.tables] == [
        ("memories", 6, 6), ("edges", 2, 2), ("audit", 5, 5), ("events", 2, 2)]
    assert "re-embedded a sample of 64 of 120 vectors" in report.notes


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_each_damage_is_found_in_its_table(base: Path, tmp_path: Path, kind: str) -> None:
    store = damaged_copy(base, tmp_path / "store", kind)
    report = check_store(str(store), embedder=FakeEmbedder())
    fix, word = EXPECTED[kind]
    found = [p for p in report.all_problems if p.kind == fix]
    assert found, [p.line() for p in report.all_problems]
    assert found[0].table == TABLE_OF[kind] and word in found[0].what, found[0].line()
    assert found[0].line().startswith(f"{TABLE_OF[kind]}  ")


def test_the_damaged_file_is_named_and_the_version_before_it_is_the_sound_one(
        base: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    damaged_copy(base, store, "memories data file deleted")
    gone = sorted(set(p.name for p in (base / "memories.lance" / "data").iterdir())
                  - set(p.name for p in (store / "memories.lance" / "data").iterdir()))
    report = check_store(str(store), embedder=FakeEmbedder())
    memories = report.table("memories")
    assert memories is not None
    assert (memories.latest, memories.good_version) == (6, 5)
    assert [p.file for p in memories.problems] == [f"data/{gone[0]}"]


def test_a_truncated_manifest_points_at_the_version_before(base: Path, tmp_path: Path) -> None:
    store = damaged_copy(base, tmp_path / "store", "memories manifest truncated")
    memories = check_store(str(store), embedder=FakeEmbedder()).table("memories")
    assert memories is not None and memories.good_version == 5
    assert memories.broken_manifests == (str(newest_manifest(store, "memories")
                                             .relative_to(store / "memories.lance")),)


def test_zeroed_vectors_are_found_by_their_norm_without_the_embedder(
        base: Path, tmp_path: Path) -> None:
    store = damaged_copy(base, tmp_path / "store", "vectors zeroed")
    report = check_store(str(store), embedder=None)
    changed = [p for p in report.all_problems if p.kind == "vector"]
    assert len(changed) == 1 and len(changed[0].memory_ids) >= 20
    assert "vectors not re-embedded (--sample 0 or no embedder)" in report.notes


def test_changed_content_does_not_match_its_hash(base: Path, tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "store"
    shutil.copytree(base, store)
    change_content(store)
    rows = [p for p in check_store(str(store), embedder=None).all_problems if p.kind == "rows"]
    assert len(rows) == 1 and len(rows[0].memory_ids) == 1
    assert "content does not match its content_hash" in rows[0].what
    assert rows[0].file.startswith("data/") and rows[0].file.endswith(".lance")


def test_a_deleted_newest_manifest_is_held_against_the_audited_archive(
        base: Path, tmp_path: Path) -> None:
    store = damaged_copy(base, tmp_path / "store", "newest memories manifest deleted")
    lost = [p for p in check_store(str(store), embedder=None).all_problems
            if p.kind == "lost"]
    assert [p.table for p in lost] == ["memories", "memories"]
    assert "Lance last committed version 6, the newest manifest left is version 5" in lost[0].what
    assert "archive at" in lost[1].what and "left it at version 6" in lost[1].what
    assert "but its newest version is 5" in lost[1].what


def test_check_writes_nothing(base: Path, tmp_path: Path) -> None:
    store = damaged_copy(base, tmp_path / "store", "memories data file deleted")
    before = sorted(str(p.relative_to(store)) for p in store.rglob("*"))
    check_store(str(store), embedder=FakeEmbedder())
    assert sorted(str(p.relative_to(store)) for p in store.rglob("*")) == before


def test_a_folder_without_a_store_is_one_problem(tmp_path: Path) -> None:
    report = check_store(str(tmp_path / "nothing"), embedder=None)
    assert [p.line() for p in report.all_problems] == [
        f"memories  -  there is no memories table at {tmp_path / 'nothing'}: not a memlens "
        f"store"]
    assert not (tmp_path / "nothing").exists()
