"""memlens' metrics and significance tests give ranx's values (ranx stays a test tool: its
numba code compiles for seconds in every process, so memlens computes them itself)."""

from __future__ import annotations

import random

import pytest

from memory_core.evaluation import Query, metric_names, score_queries
from memory_core.evaluation.compare import _p_value, fisher_randomisation

pytestmark = pytest.mark.slow  # ranx's first evaluation compiles its numba kernels

KS = (1, 3, 5, 10)


def _random_set(seed: int, n: int = 60) -> tuple[list[Query], dict[str, list[str]]]:
    """Queries with 1-6 graded relevant memories among 30, and runs of 0-15 ids that find
    some of them, repeat some, and skip some queries altogether."""
    rng = random.Random(seed)
    pool = [f"m{i}" for i in range(30)]
    queries, ranked = [], {}
    for i in range(n):
        relevant = {m: rng.randint(1, 3) for m in rng.sample(pool, rng.randint(1, 6))}
        queries.append(Query(f"q{i}", "x", relevant))
        if rng.random() < 0.9:
            ranked[f"q{i}"] = [rng.choice(pool) for _ in range(rng.randint(0, 15))]
    return queries, ranked


def _ranx_scores(queries: list[Query], ranked: dict[str, list[str]]
                 ) -> dict[str, dict[str, float]]:
    from ranx import Qrels, Run, evaluate

    depth = KS[-1]
    run = {}
    for q in queries:
        ids = list(dict.fromkeys(ranked.get(q.qid, ())))[:depth]
        run[q.qid] = {m: float(depth - r) for r, m in enumerate(ids)}
    run = {q: r for q, r in run.items() if r} or {queries[0].qid: {"none": 0.0}}
    ranx_run = Run(run)
    evaluate(Qrels({q.qid: dict(q.relevant) for q in queries}), ranx_run,
             list(metric_names(KS)), make_comparable=True)
    return {m: {q.qid: float(ranx_run.scores[m][q.qid]) for q in queries}
            for m in metric_names(KS)}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_metric_is_ranx_s(seed: int) -> None:
    queries, ranked = _random_set(seed)
    ours, theirs = score_queries(queries, ranked, KS), _ranx_scores(queries, ranked)
    for metric in metric_names(KS):
        for q in queries:
            assert ours[metric][q.qid] == pytest.approx(theirs[metric][q.qid], abs=1e-12), \
                (metric, q.qid)


@pytest.mark.parametrize("stat_test", ["student", "tukey"])
def test_p_values_are_ranx_s(stat_test: str) -> None:
    from ranx.statistical_tests import paired_student_t_test, tukey_hsd_test

    rng = random.Random(7)
    for _ in range(5):
        a = [rng.random() for _ in range(40)]
        b = [x + rng.gauss(0.05, 0.2) for x in a]
        if stat_test == "student":
            expected = float(paired_student_t_test(a, b)[0])
        else:
            rows = tukey_hsd_test(["a", "b"], [a, b], max_p=0.05)
            expected = float(next(r["p-value"] for r in rows
                                  if (r["control"], r["treatment"]) == ("a", "b")))
        assert _p_value(stat_test, a, b) == pytest.approx(expected, rel=1e-9)


def test_fisher_is_the_exact_randomisation_p_within_sampling_error() -> None:
    # 8 queries: all 256 relabellings enumerated give the exact p; 1000 random ones land
    # within 4 standard errors of it, and the same seed gives the same p every time
    import itertools

    a = [0.9, 0.8, 0.7, 0.75, 0.6, 0.65, 0.5, 0.3]
    b = [0.7, 0.85, 0.5, 0.7, 0.65, 0.4, 0.45, 0.35]
    d = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(d))
    exact = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12
                for signs in itertools.product((-1, 1), repeat=len(d))) / 2 ** len(d)
    p = fisher_randomisation(a, b)
    assert abs(p - exact) <= 4 * (exact * (1 - exact) / 1000) ** 0.5
    assert fisher_randomisation(a, b) == p
