"""A hand-made comparison shared by the evaluation and figure tests: 4 queries, 2 runs.

Every query has one relevant memory "r". Where "r" ranks (k = 1, 2):

    qid  tags      baseline   candidate   mrr@2 baseline -> candidate
    q1   a         [r, x]     [r, y]      1   -> 1     tie
    q2   a, b      [x, r]     [r, x]      1/2 -> 1     win
    q3   b         [x, y]     [x, r]      0   -> 1/2   win
    q4   (none)    [r, y]     [x, r]      1   -> 1/2   loss
"""

from __future__ import annotations

from memory_core.evaluation import EvalResult, Query, RetrievalRun, result_from_run

QUERIES = [
    Query("q1", "alpha question", {"r": 1}, tags=("a",)),
    Query("q2", "beta question", {"r": 1}, tags=("a", "b")),
    Query("q3", "gamma question", {"r": 1}, tags=("b",)),
    Query("q4", "delta question", {"r": 1}),
]
BASELINE = {"q1": ["r", "x"], "q2": ["x", "r"], "q3": ["x", "y"], "q4": ["r", "y"]}
CANDIDATE = {"q1": ["r", "y"], "q2": ["r", "x"], "q3": ["x", "r"], "q4": ["x", "r"]}
KS = (1, 2)


def pair() -> tuple[EvalResult, EvalResult]:
    """(baseline, candidate) results of the table above."""
    return (result_from_run(QUERIES, RetrievalRun.from_ranked(BASELINE), ks=KS, name="base"),
            result_from_run(QUERIES, RetrievalRun.from_ranked(CANDIDATE), ks=KS, name="cand"))
