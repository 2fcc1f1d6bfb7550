"""memlens' metrics and significance tests give ranx's values: compared with ranx's own
numbers for seeded random query sets, stored by `ranx_reference.py` (ranx is not run here:
its numba code compiles for a minute per process on a loaded 2-core machine)."""

from __future__ import annotations

import itertools
import json

import pytest

from memory_core.evaluation import Query, score_queries
from memory_core.evaluation.compare import _p_value, fisher_randomisation
from tests.memory_core.evaluation.ranx_reference import (
    KS,
    METRICS,
    REFERENCE,
    SEEDS,
    random_set,
    score_lists,
)

STORED = json.loads(REFERENCE.read_text(encoding="utf-8"))


def test_the_reference_covers_every_metric_and_seed() -> None:
    assert tuple(STORED["ks"]) == KS
    assert set(STORED["metrics"]) == {str(s) for s in SEEDS}
    for per_seed in STORED["metrics"].values():
        assert set(per_seed) == set(METRICS)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_metric_is_ranx_s(seed: int) -> None:
    relevant, ranked = random_set(seed)
    queries = [Query(qid, "x", grades) for qid, grades in relevant.items()]
    ours = score_queries(queries, ranked, KS)
    theirs = STORED["metrics"][str(seed)]
    assert set(ours) == set(METRICS)
    for metric in METRICS:
        for qid in relevant:
            assert ours[metric][qid] == pytest.approx(theirs[metric][qid], abs=1e-12), \
                (metric, qid)


@pytest.mark.parametrize("stat_test", ["student", "tukey"])
def test_p_values_are_ranx_s(stat_test: str) -> None:
    for row in STORED["p_values"]:
        a, b = score_lists(row["seed"])
        assert _p_value(stat_test, a, b) == pytest.approx(row[stat_test], rel=1e-9)


def test_fisher_is_the_exact_randomisation_p_within_sampling_error() -> None:
    # 8 queries: all 256 relabellings enumerated give the exact p; 1000 random ones land
    # within 4 standard errors of it, and the same seed gives the same p every time
    a = [0.9, 0.8, 0.7, 0.75, 0.6, 0.65, 0.5, 0.3]
    b = [0.7, 0.85, 0.5, 0.7, 0.65, 0.4, 0.45, 0.35]
    d = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(d))
    exact = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12
                for signs in itertools.product((-1, 1), repeat=len(d))) / 2 ** len(d)
    p = fisher_randomisation(a, b)
    assert abs(p - exact) <= 4 * (exact * (1 - exact) / 1000) ** 0.5
    assert fisher_randomisation(a, b) == p
