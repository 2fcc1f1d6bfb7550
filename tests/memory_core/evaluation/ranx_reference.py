"""The ranx reference the evaluation's metrics and significance tests are checked against.

`python -m tests.memory_core.evaluation.ranx_reference` (with `pip install ranx`) writes
`data/ranx_reference.json`: for seeded random query sets and runs, every metric ranx's
`evaluate` gives each query, and ranx's paired t-test and Tukey HSD p-values for seeded score
lists. The file is committed, so the tests compare with ranx's numbers without running ranx
(its numba code compiles for a minute on a loaded 2-core machine, in every process).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

REFERENCE = Path(__file__).parent / "data" / "ranx_reference.json"
KS = (1, 3, 5, 10)
SEEDS = (0, 1, 2)
METRICS = tuple(f"{m}@{k}" for m in ("recall", "precision", "hit_rate", "ndcg") for k in KS) \
    + (f"mrr@{KS[-1]}", f"map@{KS[-1]}")


def random_set(seed: int, n: int = 60) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """qid -> {memory id: grade} (1-6 memories among 30, grades 1-3) and qid -> ranked ids
    (0-15 of them, some repeated, some relevant; a tenth of the queries ran nothing)."""
    rng = random.Random(seed)
    pool = [f"m{i}" for i in range(30)]
    relevant: dict[str, dict[str, int]] = {}
    ranked: dict[str, list[str]] = {}
    for i in range(n):
        relevant[f"q{i}"] = {m: rng.randint(1, 3) for m in rng.sample(pool, rng.randint(1, 6))}
        if rng.random() < 0.9:
            ranked[f"q{i}"] = [rng.choice(pool) for _ in range(rng.randint(0, 15))]
    return relevant, ranked


def score_lists(seed: int, n: int = 40) -> tuple[list[float], list[float]]:
    """Two paired score lists, the second the first plus noise."""
    rng = random.Random(seed)
    a = [rng.random() for _ in range(n)]
    return a, [x + rng.gauss(0.05, 0.2) for x in a]


def _ranx_metrics(relevant: dict[str, dict[str, int]], ranked: dict[str, list[str]]
                  ) -> dict[str, dict[str, float]]:
    from ranx import Qrels, Run, evaluate

    depth = KS[-1]
    run = {}
    for qid in relevant:
        ids = list(dict.fromkeys(ranked.get(qid, ())))[:depth]
        if ids:
            run[qid] = {m: float(depth - r) for r, m in enumerate(ids)}
    ranx_run = Run(run)
    evaluate(Qrels(relevant), ranx_run, list(METRICS), make_comparable=True)
    return {m: {q: float(ranx_run.scores[m][q]) for q in relevant} for m in METRICS}


def build() -> dict[str, Any]:
    from ranx.statistical_tests import paired_student_t_test, tukey_hsd_test

    p_values = []
    for seed in SEEDS:
        a, b = score_lists(seed)
        rows = tukey_hsd_test(["a", "b"], [a, b], max_p=0.05)
        p_values.append({
            "seed": seed, "student": float(paired_student_t_test(a, b)[0]),
            "tukey": float(next(r["p-value"] for r in rows
                                if (r["control"], r["treatment"]) == ("a", "b")))})
    return {"ks": list(KS), "metrics": {str(s): _ranx_metrics(*random_set(s)) for s in SEEDS},
            "p_values": p_values}


if __name__ == "__main__":
    from importlib.metadata import version

    REFERENCE.parent.mkdir(exist_ok=True)
    data = {"ranx": version("ranx"), **build()}
    REFERENCE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {REFERENCE}")
