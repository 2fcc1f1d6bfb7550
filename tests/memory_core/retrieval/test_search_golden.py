"""Characterisation of `search()`: ranked ids and every part of every explanation, per preset.

The golden file was recorded before `search()` was split into stages; the stages must rank
exactly as the single function did. Regenerate it only when a ranking change is intended:
`python -m tests.memory_core.retrieval.test_search_golden` (and say why in the commit).
"""

from __future__ import annotations

import json
import math
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memory_core.embedding import UnavailableEmbedder
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.retrieval.config import PRESETS, RankingConfig, preset
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder

NOW = datetime(2026, 10, 1, tzinfo=UTC)
GOLDEN = Path(__file__).parent / "data" / "search_golden.json"

QUERIES = (
    "refresh token race",
    "cache eviction policy",
    "why a grace window for mobile clients",
    "deploy pipeline flaky tests",
    "lockfile",
)

# (content, extra fields): ids are m00, m01, ... in this order
CORPUS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("token refresh race logs users out in two tabs", {"project": "atlas", "tags": ["auth"]}),
    ("decision use long lived refresh tokens", {"memory_type": "decision", "project": "atlas",
                                                "status": "superseded"}),
    ("decision rotate refresh tokens with a grace window", {"memory_type": "decision",
                                                            "project": "atlas"}),
    ("grace window chosen because mobile clients retry", {"memory_type": "decision_context",
                                                          "project": "atlas"}),
    ("ci cache key includes lockfile hash", {"project": "herd", "tags": ["ci", "cache"]}),
    ("token refresh notes from an old spike", {"project": "atlas", "status": "archived"}),
    ("cache eviction policy uses lru", {"days": 400, "project": "herd"}),
    ("cache eviction policy uses lru now", {"days": 1, "access_count": 5, "project": "herd"}),
    ("cache warming on deploy", {"days": 1, "project": "herd", "tags": ["deploy"]}),
    ("deploy pipeline retries flaky integration tests twice", {"project": "herd",
                                                               "importance": "high"}),
    ("flaky tests quarantined in a separate ci job", {"memory_type": "decision",
                                                      "project": "herd", "days": 90}),
    ("prefer uv for python installs in ci", {"memory_type": "preference", "project": "herd",
                                             "tags": ["ci"]}),
    ("mobile clients retry token refresh on 401", {"project": "atlas", "days": 30,
                                                   "tags": ["mobile", "auth"]}),
    ("session cache stored in redis with a one hour ttl", {"project": "atlas", "days": 200}),
    ("lru cache sized by memory budget", {"project": "atlas", "days": 5,
                                          "importance": "critical"}),
    ("release notes written after every deploy", {"memory_type": "pattern", "project": "herd",
                                                  "tags": ["deploy"], "days": 60}),
    ("the race in two tabs came from a shared refresh lock", {"project": "atlas", "days": 2}),
    ("lockfile drift broke the nightly build", {"project": "herd", "days": 15,
                                                "access_count": 2}),
)

# (source, target, relation, strength)
EDGES = (
    (2, 1, "supersedes", 1.0),
    (0, 1, "caused", 0.9),
    (3, 2, "supports", 0.8),
    (16, 0, "supports", 0.7),
    (12, 3, "supports", 0.6),
    (7, 6, "improves", 0.9),
    (14, 6, "relates_to", 0.5),
    (9, 10, "caused", 0.8),
    (17, 4, "supports", 0.7),
    (15, 8, "supports", 0.4),
)

CONFIGS: dict[str, RankingConfig] = {
    **PRESETS,
    **{f"{name}+mmr": cfg.with_changes(use_mmr=True) for name, cfg in PRESETS.items()},
    "full+mmr0.8": preset("full").with_changes(use_mmr=True, mmr_lambda=0.8),
    "graph1hop": preset("hybrid_graph").with_changes(graph_hops=1, graph_seeds=2),
    "small_m": preset("full").with_changes(candidates=4, weight_bm25=0.5),
}

FILTERED_CONFIGS = ("bm25", "hybrid", "hybrid_graph", "full+mmr")
FILTERS: dict[str, Filter] = {
    "all": Filter(),
    "atlas": Filter(project="atlas"),
    "herd_or_archived": Filter(project="herd", status=["active", "archived"]),
}


def build(path: str, embedder: Any) -> MemoryStore:
    """The corpus and its edges in a new store at `path`."""
    store = MemoryStore.open(path, embedder=embedder, tenant="default")
    mems = []
    for i, (content, extra) in enumerate(CORPUS):
        fields = dict(extra)
        days = fields.pop("days", 10)
        mems.append(Memory.new(content, id=f"m{i:02d}",
                               created_at=NOW - timedelta(days=days), **fields))
    store.add(mems)
    store.edges.add([Edge.new(f"m{s:02d}", f"m{t:02d}", rel, id=f"e{n:02d}", created_at=NOW,
                              strength=strength)
                     for n, (s, t, rel, strength) in enumerate(EDGES)])
    return store


def observe(store: MemoryStore, query: str, flt: Filter, cfg: RankingConfig,
            limit: int) -> dict[str, Any]:
    """Everything `search()` says except timing."""
    results = search(store, query, flt, cfg, limit, now=NOW)
    return {"degraded": results.degraded, "reasons": list(results.reasons),
            "hits": [{"id": h.memory.id, "engine_order": list(h.engines), **h.explain()}
                     for h in results]}


def cases(store_path: str) -> dict[str, Any]:
    """Every (query, filter, config, limit) case plus the degraded modes."""
    out: dict[str, Any] = {}
    store = build(store_path, FakeEmbedder())
    for query in QUERIES:
        for cname, cfg in CONFIGS.items():
            out[f"{query} | all | {cname} | 10"] = observe(store, query, Filter(), cfg, 10)
        for fname, flt in FILTERS.items():
            for cname in FILTERED_CONFIGS:
                out[f"{query} | {fname} | {cname} | 3"] = observe(store, query, flt,
                                                                  CONFIGS[cname], 3)
    broken = MemoryStore.open(store_path, embedder=UnavailableEmbedder(
        FakeEmbedder.model_id, FAKE_DIM, "model files are missing"))
    for cname in ("vector", "hybrid", "full+mmr"):
        out[f"unavailable | {cname}"] = observe(broken, "refresh token", Filter(),
                                                CONFIGS[cname], 10)
    broken.add([Memory.new("token refresh pending note", id="p00",
                           created_at=NOW - timedelta(days=3))])
    for cname in ("vector", "hybrid_graph"):
        out[f"pending | {cname}"] = observe(store, "token refresh", Filter(), CONFIGS[cname], 10)
    return out


def read_only_cases(store_path: str) -> dict[str, Any]:
    """A read-only store whose table has no full-text index: BM25 is off."""
    built = build(store_path, FakeEmbedder())
    reader = MemoryStore(built.tables, tenant="default", embedder=FakeEmbedder(),
                         read_only=True)
    return {f"read_only | {c}": observe(reader, "refresh token race", Filter(), CONFIGS[c], 10)
            for c in ("hybrid", "bm25", "full")}


def everything(root: Path) -> dict[str, Any]:
    return {**cases(str(root / "a")), **read_only_cases(str(root / "b"))}


#: How far a recorded float may move: LanceDB computes vector distances in float32 with the
#: CPU's SIMD kernels, whose last bits differ between CPUs (AVX-512 and AVX2 machines differ
#: by ~1e-7), so float-for-float equality held only on the machine that recorded the file.
#: Orders, ids, ranks, texts and flags must still match exactly.
REL_TOL = 1e-6


def differences(observed: Any, expected: Any, where: str = "") -> list[str]:
    """Where `observed` departs from `expected`: floats beyond `REL_TOL`, anything else at all."""
    if isinstance(expected, float) and isinstance(observed, int | float) \
            and not isinstance(observed, bool):
        close = math.isclose(observed, expected, rel_tol=REL_TOL, abs_tol=1e-9)
        return [] if close else [f"{where}: {observed!r} != {expected!r}"]
    if isinstance(expected, dict) and isinstance(observed, dict):
        if sorted(observed) != sorted(expected):
            return [f"{where}: keys {sorted(observed)} != {sorted(expected)}"]
        return [d for k in expected for d in differences(observed[k], expected[k],
                                                         f"{where}.{k}")]
    if isinstance(expected, list) and isinstance(observed, list):
        if len(observed) != len(expected):
            return [f"{where}: {len(observed)} items != {len(expected)}"]
        return [d for i, (o, e) in enumerate(zip(observed, expected, strict=True))
                for d in differences(o, e, f"{where}[{i}]")]
    return [] if observed == expected else [f"{where}: {observed!r} != {expected!r}"]


def test_differences_allow_float32_noise_and_nothing_else() -> None:
    recorded = {"hits": [{"id": "m07", "score": 0.6113930940628052, "rank": 2}]}
    assert differences({"hits": [{"id": "m07", "score": 0.6113930344581604, "rank": 2}]},
                       recorded) == []
    assert differences({"hits": [{"id": "m07", "score": 0.6114, "rank": 2}]}, recorded)
    assert differences({"hits": [{"id": "m06", "score": 0.6113930940628052, "rank": 2}]},
                       recorded)
    assert differences({"hits": [{"id": "m07", "score": 0.6113930940628052, "rank": 3}]},
                       recorded)


def test_search_matches_the_recorded_rankings(tmp_path: Path) -> None:
    golden = json.loads(GOLDEN.read_text())
    observed = json.loads(json.dumps(everything(tmp_path), default=str))
    assert sorted(observed) == sorted(golden)
    for key, expected in golden.items():
        assert differences(observed[key], expected) == [], key


def test_the_golden_cases_exercise_every_part() -> None:
    golden = json.loads(GOLDEN.read_text())
    hits = [h for case in golden.values() for h in case["hits"]]
    assert any(h.get("replaces") for h in hits)
    assert any(h["mmr_adjustment"] < 0 for h in hits)
    assert any(h["decay"] < 1 for h in hits)
    assert any("graph" in h for h in hits)
    reasons = " ".join(r for case in golden.values() for r in case["reasons"])
    for part in ("embedder is unavailable", "have no vector yet", "no full-text index"):
        assert part in reasons


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        data = everything(Path(tmp))
    lines = [f"{json.dumps(k)}: {json.dumps(data[k], sort_keys=True, default=str)}"
             for k in sorted(data)]
    GOLDEN.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # one case a line: short diffs
    print(f"wrote {len(data)} cases to {GOLDEN}")
