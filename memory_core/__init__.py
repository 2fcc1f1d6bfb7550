"""memlens' engine: store, filters, embeddings, exchange, stats. No Streamlit in here.

Pages and notebooks import only these names. They are loaded on first use, so
`import memory_core` stays fast (heavy libraries load when needed).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "Settings": "memory_core.config",
    "MemlensError": "memory_core.errors",
    "InvalidRecordError": "memory_core.errors",
    "InvalidFilterError": "memory_core.errors",
    "StoreLocationError": "memory_core.errors",
    "StoreNotFoundError": "memory_core.errors",
    "SchemaVersionError": "memory_core.errors",
    "ModelMismatchError": "memory_core.errors",
    "TenantNotFoundError": "memory_core.errors",
    "MemoryNotFoundError": "memory_core.errors",
    "ReadOnlyError": "memory_core.errors",
    "EmbedderUnavailableError": "memory_core.errors",
    "ExportFormatError": "memory_core.errors",
    "SCHEMA_VERSION": "memory_core.schema",
    "MEMORY_TYPES": "memory_core.schema",
    "RELATIONS": "memory_core.schema",
    "IMPORTANCE_TIERS": "memory_core.schema",
    "STATUSES": "memory_core.schema",
    "Memory": "memory_core.records",
    "Edge": "memory_core.records",
    "AuditEntry": "memory_core.records",
    "content_hash": "memory_core.records",
    "memories_to_frame": "memory_core.records",
    "Filter": "memory_core.filters",
    "Embedder": "memory_core.embedding",
    "load_embedder": "memory_core.embedding",
    "MemoryStore": "memory_core.store",
    "AddReport": "memory_core.store",
    "UpsertReport": "memory_core.store",
    "StoreStats": "memory_core.stats",
    "store_stats": "memory_core.stats",
    "memories_over_time": "memory_core.stats",
    "fill_pending": "memory_core.reembed",
    "switch_model": "memory_core.reembed",
    "seed_from_export": "memory_core.seeding",
    "demo_store": "memory_core.seeding",
    "demo_dir": "memory_core.seeding",
    "DEMO_QUERIES": "memory_core.seeding",
    "write_export": "memory_core.exchange.ndjson",
    "read_export": "memory_core.exchange.ndjson",
    "memory_doc": "memory_core.exchange.canonical",
    "InvalidConfigError": "memory_core.errors",
    "RankingConfig": "memory_core.retrieval.config",
    "PRESETS": "memory_core.retrieval.config",
    "DEFAULT_PRESET": "memory_core.retrieval.config",
    "preset": "memory_core.retrieval.config",
    "DecayParams": "memory_core.decay",
    "search": "memory_core.retrieval.search",
    "Hit": "memory_core.retrieval.results",
    "SearchResults": "memory_core.retrieval.results",
    "recall": "memory_core.retrieval.recall",
    "RecallResult": "memory_core.retrieval.recall",
    "TIERS": "memory_core.retrieval.tiers",
    "render_tier": "memory_core.retrieval.tiers",
    "MAX_HOPS": "memory_core.retrieval.config",
    "MAX_FANOUT": "memory_core.retrieval.config",
    "MAX_BEAM": "memory_core.retrieval.config",
    "score_parts": "memory_core.viz.explain",
    "score_waterfall": "memory_core.viz.explain",
    "ensure_indexes": "memory_core.retrieval.indexes",
    "vector_index_recall": "memory_core.retrieval.indexes",
    "IndexReport": "memory_core.retrieval.indexes",
    "ImportConflictError": "memory_core.errors",
    "MigrationError": "memory_core.errors",
    "UnknownFormatError": "memory_core.errors",
    "DiffError": "memory_core.errors",
    "export_store": "memory_core.exchange.export",
    "default_exports_dir": "memory_core.exchange.export",
    "import_file": "memory_core.exchange.importer",
    "ImportReport": "memory_core.exchange.import_report",
    "run_drill": "memory_core.exchange.drill",
    "DrillReport": "memory_core.exchange.drill",
    "diff_sides": "memory_core.exchange.diff",
    "DiffResult": "memory_core.exchange.diff",
    "load_side": "memory_core.exchange.diff_sides",
    "ExportReader": "memory_core.exchange.readers",
    "register_reader": "memory_core.exchange.readers",
    "diff_breakdown_bar": "memory_core.viz.diff",
    "counts_bar": "memory_core.viz.overview",
    "QuerySetError": "memory_core.errors",
    "Query": "memory_core.evaluation",
    "load_queries": "memory_core.evaluation",
    "write_queries": "memory_core.evaluation",
    "select_tags": "memory_core.evaluation",
    "run_queries": "memory_core.evaluation",
    "RetrievalRun": "memory_core.evaluation",
    "check_reachable": "memory_core.evaluation",
    "evaluate_config": "memory_core.evaluation",
    "EvalResult": "memory_core.evaluation",
    "compare_configs": "memory_core.evaluation",
    "compare_results": "memory_core.evaluation",
    "Comparison": "memory_core.evaluation",
    "evaluate_embedders": "memory_core.evaluation",
    "metric_names": "memory_core.evaluation",
    "STAT_TESTS": "memory_core.evaluation",
    "metrics_bar": "memory_core.viz.evaluation",
    "per_query_delta": "memory_core.viz.evaluation",
    "win_tie_loss_bar": "memory_core.viz.evaluation",
    "tag_heatmap": "memory_core.viz.evaluation",
    "written_over_time": "memory_core.viz.overview",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memory_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
