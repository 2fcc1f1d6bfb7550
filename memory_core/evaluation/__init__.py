"""Retrieval-quality evaluation: query sets, metrics, config comparison, embedder drift.

    queries = load_queries(demo_dir() / "queries.ndjson")
    result = evaluate_config(store, queries, preset("hybrid"), name="hybrid")
    cmp = compare_configs(store, queries, preset("hybrid"), preset("full"),
                          names=("hybrid", "full"))
    cmp.summary        # metric, baseline, candidate, delta, p_value, marker, wins/ties/losses
    cmp.worst(5)       # the queries that regressed most on nDCG@10
    cmp.warnings       # queries that retrieved nothing (and why) or have no relevant memory
    tuned = tune(store, queries, folds=5, seed=0)  # k-fold cross-validated knob search
    tuned.tuned_mean, tuned.base_mean, tuned.to_json()

Metrics are ranx's, computed here (metrics.py); polars loads on first use, not on import.
"""

from __future__ import annotations

from memory_core.evaluation.compare import (
    DEFAULT_ALPHA,
    STAT_TESTS,
    Comparison,
    compare_configs,
    compare_results,
    p_values,
)
from memory_core.evaluation.drift import copy_with_embedder, evaluate_embedders
from memory_core.evaluation.metrics import (
    AT_K,
    DEFAULT_KS,
    OVER_LIST,
    check_ks,
    metric_names,
    score_queries,
)
from memory_core.evaluation.query_warnings import QueryWarning, filter_reason
from memory_core.evaluation.queryset import (
    Query,
    QuerySetError,
    load_queries,
    parse_query,
    select_tags,
    write_queries,
)
from memory_core.evaluation.results import EvalResult, evaluate_config, result_from_run
from memory_core.evaluation.runner import (
    RetrievalRun,
    check_reachable,
    run_queries,
    unreachable_queries,
)
from memory_core.evaluation.tune import TuneResult, tune
from memory_core.evaluation.tune_space import SearchSpace, default_space

__all__ = [
    "AT_K",
    "DEFAULT_ALPHA",
    "DEFAULT_KS",
    "OVER_LIST",
    "STAT_TESTS",
    "Comparison",
    "EvalResult",
    "Query",
    "QuerySetError",
    "QueryWarning",
    "RetrievalRun",
    "SearchSpace",
    "TuneResult",
    "check_ks",
    "check_reachable",
    "compare_configs",
    "compare_results",
    "copy_with_embedder",
    "evaluate_config",
    "evaluate_embedders",
    "filter_reason",
    "load_queries",
    "metric_names",
    "p_values",
    "parse_query",
    "result_from_run",
    "run_queries",
    "score_queries",
    "default_space",
    "select_tags",
    "tune",
    "unreachable_queries",
    "write_queries",
]
