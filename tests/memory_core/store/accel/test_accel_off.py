"""The speed-up layer (`memory_core.store.accel`) turned off answers exactly as it does on:
on an exact store (no vector index) every preset ranks the same ids in the same order with
the same scores and explanations, whether the rows are held in memory or read from LanceDB.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memory_core.model.config import Settings
from memory_core.model.errors import InvalidConfigError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.retrieval.config import preset
from memory_core.store import MemoryStore
from memory_core.store.accel.row_cache import RowCache
from tests.conftest import FakeEmbedder
from tests.memory_core.retrieval.test_search_golden import CORPUS, EDGES, NOW, QUERIES, observe

#: session context on (hybrid and hybrid_graph have it by default, full too), and windows
#: of BM25 over neighbours as well as the lift
CONFIGS = {
    "hybrid": preset("hybrid"),
    "hybrid_graph": preset("hybrid_graph"),
    "full": preset("full"),
    "full+lift+mmr": preset("full").with_changes(bm25_context="lift", use_mmr=True),
}
FILTERS = {"all": Filter(), "atlas": Filter(project="atlas"),
           "with_archived": Filter(status=["active", "archived"])}


def _build(path: Path, *, accel: bool) -> MemoryStore:
    """The golden corpus, its memories in three sessions a few minutes apart (so session
    context finds neighbours), in a new store at `path`."""
    store = MemoryStore.open(str(path), embedder=FakeEmbedder(), tenant="default",
                             accel=accel)
    mems = []
    for i, (content, extra) in enumerate(CORPUS):
        fields = dict(extra)
        fields.pop("days", None)
        mems.append(Memory.new(content, id=f"m{i:02d}", session_id=f"s{i % 3}",
                               created_at=NOW - timedelta(days=1, minutes=5 * i), **fields))
    store.add(mems)
    store.edges.add([Edge.new(f"m{s:02d}", f"m{t:02d}", rel, id=f"e{n:02d}", created_at=NOW,
                              strength=strength)
                     for n, (s, t, rel, strength) in enumerate(EDGES)])
    return store


def _answers(store: MemoryStore, configs: dict[str, Any] = CONFIGS) -> dict[str, Any]:
    return json.loads(json.dumps(
        {f"{q} | {f} | {c}": observe(store, q, flt, cfg, 5)
         for q in QUERIES[:3] for f, flt in FILTERS.items() for c, cfg in configs.items()},
        default=str))


@pytest.mark.slow
def test_rankings_are_identical_with_the_speed_up_layer_off(tmp_path: Path) -> None:
    plain = _build(tmp_path / "plain", accel=False)
    fast = _build(tmp_path / "fast", accel=True)
    # held from the first read on, scanned in this thread: the second pass searches the
    # rows (vectors included) held in memory
    fast.accel.row_cache = RowCache(fast.tenant, warm_reads=1, background=False)
    expected = _answers(plain)
    assert any(len(a["hits"]) == 5 for a in expected.values())
    no_context = {"hybrid": preset("hybrid").with_changes(context_window=0)}
    without = _answers(plain, no_context)  # session context took part:
    assert any(without[k] != expected[k] for k in without)
    assert _answers(fast) == expected  # cold: read from the Lance file
    assert "vector" in fast.queries.held_columns()
    assert _answers(fast) == expected  # warm: searched in memory
    assert plain.queries.held_columns() == frozenset()
    assert plain.accel.latest.current() is None  # off: LanceDB's own calls, no dataset shortcut


def test_the_setting_reads_memlens_accel() -> None:
    assert Settings.from_env({}).accel is True
    assert Settings.from_env({"MEMLENS_ACCEL": "1"}).accel is True
    assert Settings.from_env({"MEMLENS_ACCEL": "off"}).accel is False
    with pytest.raises(InvalidConfigError, match="MEMLENS_ACCEL"):
        Settings.from_env({"MEMLENS_ACCEL": "fast"})


def test_open_follows_the_setting_unless_told(tmp_path: Path) -> None:
    off = Settings.from_env({"MEMLENS_ACCEL": "0"})
    store = MemoryStore.open(str(tmp_path / "s"), embedder=FakeEmbedder(), settings=off)
    assert store.accel.enabled is False
    again = MemoryStore.open(str(tmp_path / "s"), embedder=FakeEmbedder(), settings=off,
                             accel=True)
    assert again.accel.enabled is True
