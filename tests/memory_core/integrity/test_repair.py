"""`plan_repair` / `apply_repair` on damaged copies of a small store: the preview says what
is lost, the repair leaves a store `check_store` finds clean, every command reads it again,
and the repair is in the audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.integrity import apply_repair, check_store, plan_repair
from memory_core.model.config import Settings
from memory_core.model.filters import Filter
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.integrity.damaged import DAMAGE, build_base, damaged_copy

pytestmark = pytest.mark.slow  # a store built, damaged, repaired and checked twice per test

#: kinds a repair fixes whole (changed content is reported, not guessed at)
REPAIRED = sorted(DAMAGE)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    path = tmp_path_factory.mktemp("repair") / "base"
    return path, build_base(path)


def _repair(store: Path, tmp_path: Path) -> tuple[list[str], list[str]]:
    embedder = FakeEmbedder()
    report = check_store(str(store), embedder=embedder)
    assert not report.clean
    plan = plan_repair(report, model_id=embedder.model_id)
    settings = Settings.from_env(store_uri=str(store), model_cache=tmp_path / "cache")
    done = apply_repair(plan, settings=settings, embedder=embedder)
    return plan.preview(), list(done.lines)


@pytest.mark.parametrize("kind", REPAIRED)
def test_a_repaired_store_is_clean_and_reads(base: tuple[Path, dict[str, list[str]]],
                                             tmp_path: Path, kind: str) -> None:
    store = damaged_copy(base[0], tmp_path / "store", kind)
    _repair(store, tmp_path)
    after = check_store(str(store), embedder=FakeEmbedder())
    assert after.clean, [p.line() for p in after.all_problems]
    opened = MemoryStore.open(str(store), embedder=FakeEmbedder())
    assert opened.count(Filter(status=("active", "archived", "superseded"))) > 0
    assert opened.edges.list() is not None and opened.audit.entries(limit=1)[0].action == "repair"


def test_the_preview_lists_the_writes_undone(base: tuple[Path, dict[str, list[str]]],
                                             tmp_path: Path) -> None:
    store = damaged_copy(base[0], tmp_path / "store", "memories data file deleted")
    preview, done = _repair(store, tmp_path)
    assert preview[0] == ("restore memories from version 6 to version 5, the newest whose "
                          "files all read")
    assert preview[1] == "  writes recorded after it, undone: 1 audit rows, touching 24 records"
    assert "archive" in preview[2] and "24 records  tenant default" in preview[2]
    assert preview[3] == "  events recorded after it: 0"
    assert done == ["restored memories to version 5 (as a new version)"]
    # the archive's version is gone: its 24 memories are active again, and the audit says so
    opened = MemoryStore.open(str(store), embedder=FakeEmbedder())
    assert opened.count(Filter(status=("archived",))) == 0
    entry = opened.audit.entries(limit=1)[0]
    assert entry.action == "repair" and entry.after["versions"]["memories"] == 7
    assert "memlens check --repair: memories  data/" in (entry.reason or "")


def test_a_truncated_manifest_is_moved_aside(base: tuple[Path, dict[str, list[str]]],
                                            tmp_path: Path) -> None:
    store = damaged_copy(base[0], tmp_path / "store", "memories manifest truncated")
    _, done = _repair(store, tmp_path)
    assert done[0].startswith("moved the unreadable manifest aside: .memlens-damaged/")
    assert len(list((store / ".memlens-damaged").rglob("*.manifest"))) == 1


def test_a_lost_archive_is_applied_again(base: tuple[Path, dict[str, list[str]]],
                                         tmp_path: Path) -> None:
    path, ids = base
    store = damaged_copy(path, tmp_path / "store", "newest memories manifest deleted")
    silently = MemoryStore.open(str(store), embedder=FakeEmbedder())
    assert silently.count(Filter(status=("archived",))) == 0  # what issue 42 saw: back active
    preview, done = _repair(store, tmp_path)
    assert any(line.startswith("archive again the 24 memories of the lost batch")
               for line in preview)
    assert "archive applied again to 24 memories" in done
    archived = MemoryStore.open(str(store), embedder=FakeEmbedder()).list(
        Filter(status=("archived",)), limit=None)
    assert sorted(m.id for m in archived) == sorted(ids["archived"])


def test_vectors_are_not_embedded_again_by_another_model(
        base: tuple[Path, dict[str, list[str]]], tmp_path: Path) -> None:
    store = damaged_copy(base[0], tmp_path / "store", "vectors zeroed")
    plan = plan_repair(check_store(str(store), embedder=None), model_id="other/model")
    assert plan.reembed == () and plan.empty
    assert [p.kind for p in plan.unfixable] == ["vector"]


def test_zeroed_vectors_are_embedded_again(base: tuple[Path, dict[str, list[str]]],
                                           tmp_path: Path) -> None:
    store = damaged_copy(base[0], tmp_path / "store", "vectors zeroed")
    _, done = _repair(store, tmp_path)
    assert done[0].startswith("re-embedded ") and done[0].endswith(" memories")
    opened = MemoryStore.open(str(store), embedder=FakeEmbedder())
    memory = opened.list(limit=1, with_vectors=True)[0]
    assert memory.vector is not None
