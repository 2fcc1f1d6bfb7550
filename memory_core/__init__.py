"""memlens' engine: store, filters, embeddings, exchange, stats. No Streamlit in here.

Pages and notebooks import only these names. They are loaded on first use, so
`import memory_core` stays fast (heavy libraries load when needed).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # What `__getattr__` loads lazily, spelled out for mypy and editors (`X as X` marks a
    # re-export); a test keeps this block and `_EXPORTS` naming the same names from the
    # same modules.
    from memory_core.canonical import memory_doc as memory_doc
    from memory_core.causal import CAUSAL as CAUSAL
    from memory_core.causal import Contradiction as Contradiction
    from memory_core.causal import Finding as Finding
    from memory_core.causal import Fork as Fork
    from memory_core.causal import GraphEdge as GraphEdge
    from memory_core.causal import GraphHealth as GraphHealth
    from memory_core.causal import GraphNode as GraphNode
    from memory_core.causal import Lineage as Lineage
    from memory_core.causal import LineagePath as LineagePath
    from memory_core.causal import Neighbourhood as Neighbourhood
    from memory_core.causal import Side as Side
    from memory_core.causal import Step as Step
    from memory_core.causal import SupersessionChain as SupersessionChain
    from memory_core.causal import contradictions as contradictions
    from memory_core.causal import graph_health as graph_health
    from memory_core.causal import lineage as lineage
    from memory_core.causal import link as link
    from memory_core.causal import neighbourhood as neighbourhood
    from memory_core.causal import supersession_chain as supersession_chain
    from memory_core.causal import unlink as unlink
    from memory_core.causal import write_graph as write_graph
    from memory_core.config import Settings as Settings
    from memory_core.curation import EDITABLE as EDITABLE
    from memory_core.curation import PURGE_NOTE as PURGE_NOTE
    from memory_core.curation import AuditBatch as AuditBatch
    from memory_core.curation import CurationReport as CurationReport
    from memory_core.curation import Verification as Verification
    from memory_core.curation import archive as archive
    from memory_core.curation import audit_batches as audit_batches
    from memory_core.curation import cite as cite
    from memory_core.curation import correct as correct
    from memory_core.curation import delete as delete
    from memory_core.curation import edit as edit
    from memory_core.curation import merge as merge
    from memory_core.curation import merge_many as merge_many
    from memory_core.curation import preview as preview
    from memory_core.curation import restore as restore
    from memory_core.curation import supersede as supersede
    from memory_core.curation import undo as undo
    from memory_core.curation import verify_deleted as verify_deleted
    from memory_core.decay import DecayParams as DecayParams
    from memory_core.decay import usage_factor as usage_factor
    from memory_core.decay_analysis import DEFAULT_HORIZONS as DEFAULT_HORIZONS
    from memory_core.decay_analysis import DEFAULT_THRESHOLD as DEFAULT_THRESHOLD
    from memory_core.decay_analysis import FRAME_COLUMNS as FRAME_COLUMNS
    from memory_core.decay_analysis import DecayImpact as DecayImpact
    from memory_core.decay_analysis import ImpactRow as ImpactRow
    from memory_core.decay_analysis import Timeline as Timeline
    from memory_core.decay_analysis import TimelineEvent as TimelineEvent
    from memory_core.decay_analysis import WhatIf as WhatIf
    from memory_core.decay_analysis import at_risk as at_risk
    from memory_core.decay_analysis import decay_frame as decay_frame
    from memory_core.decay_analysis import decay_impact as decay_impact
    from memory_core.decay_analysis import memory_timeline as memory_timeline
    from memory_core.decay_analysis import r_curves as r_curves
    from memory_core.decay_analysis import threshold_days as threshold_days
    from memory_core.decay_analysis import what_if as what_if
    from memory_core.embedding import Embedder as Embedder
    from memory_core.embedding import load_embedder as load_embedder
    from memory_core.errors import BucketNotFoundError as BucketNotFoundError
    from memory_core.errors import CurationConflictError as CurationConflictError
    from memory_core.errors import CurationError as CurationError
    from memory_core.errors import DiffError as DiffError
    from memory_core.errors import EmbedderUnavailableError as EmbedderUnavailableError
    from memory_core.errors import ExportFormatError as ExportFormatError
    from memory_core.errors import GraphError as GraphError
    from memory_core.errors import ImportConflictError as ImportConflictError
    from memory_core.errors import InvalidConfigError as InvalidConfigError
    from memory_core.errors import InvalidFilterError as InvalidFilterError
    from memory_core.errors import InvalidMapParamsError as InvalidMapParamsError
    from memory_core.errors import InvalidRecordError as InvalidRecordError
    from memory_core.errors import MapError as MapError
    from memory_core.errors import MemlensError as MemlensError
    from memory_core.errors import MemoryNotFoundError as MemoryNotFoundError
    from memory_core.errors import MigrationError as MigrationError
    from memory_core.errors import ModelMismatchError as ModelMismatchError
    from memory_core.errors import ObjectStorageAuthError as ObjectStorageAuthError
    from memory_core.errors import ObjectStorageConfigError as ObjectStorageConfigError
    from memory_core.errors import ObjectStorageError as ObjectStorageError
    from memory_core.errors import ObjectStorageUnreachableError as ObjectStorageUnreachableError
    from memory_core.errors import QuerySetError as QuerySetError
    from memory_core.errors import ReadOnlyError as ReadOnlyError
    from memory_core.errors import SchemaVersionError as SchemaVersionError
    from memory_core.errors import StoreLocationError as StoreLocationError
    from memory_core.errors import StoreNotAllowedError as StoreNotAllowedError
    from memory_core.errors import StoreNotFoundError as StoreNotFoundError
    from memory_core.errors import TenantNotFoundError as TenantNotFoundError
    from memory_core.errors import UnknownFormatError as UnknownFormatError
    from memory_core.errors import VersionGoneError as VersionGoneError
    from memory_core.evaluation import STAT_TESTS as STAT_TESTS
    from memory_core.evaluation import Comparison as Comparison
    from memory_core.evaluation import EvalResult as EvalResult
    from memory_core.evaluation import Query as Query
    from memory_core.evaluation import RetrievalRun as RetrievalRun
    from memory_core.evaluation import SearchSpace as SearchSpace
    from memory_core.evaluation import TuneResult as TuneResult
    from memory_core.evaluation import check_reachable as check_reachable
    from memory_core.evaluation import compare_configs as compare_configs
    from memory_core.evaluation import compare_results as compare_results
    from memory_core.evaluation import default_space as default_space
    from memory_core.evaluation import evaluate_config as evaluate_config
    from memory_core.evaluation import evaluate_embedders as evaluate_embedders
    from memory_core.evaluation import load_queries as load_queries
    from memory_core.evaluation import metric_names as metric_names
    from memory_core.evaluation import run_queries as run_queries
    from memory_core.evaluation import select_tags as select_tags
    from memory_core.evaluation import tune as tune
    from memory_core.evaluation import write_queries as write_queries
    from memory_core.exchange.diff import BREAKDOWNS as BREAKDOWNS
    from memory_core.exchange.diff import CHANGES as CHANGES
    from memory_core.exchange.diff import DiffResult as DiffResult
    from memory_core.exchange.diff import diff_sides as diff_sides
    from memory_core.exchange.diff_sides import file_tenant as file_tenant
    from memory_core.exchange.diff_sides import load_side as load_side
    from memory_core.exchange.drill import DrillReport as DrillReport
    from memory_core.exchange.drill import run_drill as run_drill
    from memory_core.exchange.export import default_exports_dir as default_exports_dir
    from memory_core.exchange.export import export_store as export_store
    from memory_core.exchange.import_report import ImportReport as ImportReport
    from memory_core.exchange.importer import import_file as import_file
    from memory_core.exchange.ndjson import write_export as write_export
    from memory_core.exchange.readers import ExportReader as ExportReader
    from memory_core.exchange.readers import register_reader as register_reader
    from memory_core.exchange.readers.memlens import read_export as read_export
    from memory_core.filters import Filter as Filter
    from memory_core.preload import wait_for_preload as wait_for_preload
    from memory_core.projection import Clusters as Clusters
    from memory_core.projection import MapParams as MapParams
    from memory_core.projection import Projection as Projection
    from memory_core.projection import ProjectionCache as ProjectionCache
    from memory_core.projection import QueryPlacement as QueryPlacement
    from memory_core.projection import cluster_labels as cluster_labels
    from memory_core.projection import cluster_layout as cluster_layout
    from memory_core.projection import near_duplicate_pairs as near_duplicate_pairs
    from memory_core.projection import near_duplicates as near_duplicates
    from memory_core.projection import place_query as place_query
    from memory_core.projection import project as project
    from memory_core.records import AuditEntry as AuditEntry
    from memory_core.records import Edge as Edge
    from memory_core.records import Memory as Memory
    from memory_core.records import content_hash as content_hash
    from memory_core.records import memories_to_frame as memories_to_frame
    from memory_core.reembed import fill_pending as fill_pending
    from memory_core.reembed import switch_model as switch_model
    from memory_core.retrieval.config import BM25_CONTEXTS as BM25_CONTEXTS
    from memory_core.retrieval.config import DEFAULT_PRESET as DEFAULT_PRESET
    from memory_core.retrieval.config import FUSIONS as FUSIONS
    from memory_core.retrieval.config import MAX_BEAM as MAX_BEAM
    from memory_core.retrieval.config import MAX_CONTEXT_WINDOW as MAX_CONTEXT_WINDOW
    from memory_core.retrieval.config import MAX_FANOUT as MAX_FANOUT
    from memory_core.retrieval.config import MAX_HOPS as MAX_HOPS
    from memory_core.retrieval.config import NORMALISATIONS as NORMALISATIONS
    from memory_core.retrieval.config import PRESETS as PRESETS
    from memory_core.retrieval.config import RankingConfig as RankingConfig
    from memory_core.retrieval.config import preset as preset
    from memory_core.retrieval.recall import RecallResult as RecallResult
    from memory_core.retrieval.recall import recall as recall
    from memory_core.retrieval.results import Hit as Hit
    from memory_core.retrieval.results import SearchResults as SearchResults
    from memory_core.retrieval.search import search as search
    from memory_core.retrieval.tiers import TIERS as TIERS
    from memory_core.retrieval.tiers import render_tier as render_tier
    from memory_core.schema import IMPORTANCE_TIERS as IMPORTANCE_TIERS
    from memory_core.schema import MEMORY_TYPES as MEMORY_TYPES
    from memory_core.schema import RELATIONS as RELATIONS
    from memory_core.schema import SCHEMA_VERSION as SCHEMA_VERSION
    from memory_core.schema import STATUSES as STATUSES
    from memory_core.seeding import DEMO_QUERIES as DEMO_QUERIES
    from memory_core.seeding import demo_dir as demo_dir
    from memory_core.seeding import demo_store as demo_store
    from memory_core.seeding import seed_from_export as seed_from_export
    from memory_core.stability import default_stability as default_stability
    from memory_core.stats import FilterChoices as FilterChoices
    from memory_core.stats import StoreStats as StoreStats
    from memory_core.stats import filter_choices as filter_choices
    from memory_core.stats import memories_over_time as memories_over_time
    from memory_core.stats import store_stats as store_stats
    from memory_core.store import AddReport as AddReport
    from memory_core.store import MemoryStore as MemoryStore
    from memory_core.store import UpsertReport as UpsertReport
    from memory_core.store.index_health import IndexHealth as IndexHealth
    from memory_core.store.index_health import index_fix_command as index_fix_command
    from memory_core.store.index_health import index_health as index_health
    from memory_core.store.indexes import IndexReport as IndexReport
    from memory_core.store.indexes import ensure_indexes as ensure_indexes
    from memory_core.store.indexes import vector_index_recall as vector_index_recall
    from memory_core.untrusted import for_html as for_html
    from memory_core.untrusted import for_terminal as for_terminal
    from memory_core.untrusted import shown as shown
    from memory_core.untrusted import visible as visible
    from memory_core.viz.decay import age_scatter as age_scatter
    from memory_core.viz.decay import composite_histogram as composite_histogram
    from memory_core.viz.decay import curves_chart as curves_chart
    from memory_core.viz.decay import rank_shift_chart as rank_shift_chart
    from memory_core.viz.decay import timeline_chart as timeline_chart
    from memory_core.viz.diff import diff_breakdown_bar as diff_breakdown_bar
    from memory_core.viz.evaluation import metrics_bar as metrics_bar
    from memory_core.viz.evaluation import per_query_delta as per_query_delta
    from memory_core.viz.evaluation import tag_heatmap as tag_heatmap
    from memory_core.viz.evaluation import win_tie_loss_bar as win_tie_loss_bar
    from memory_core.viz.explain import score_parts as score_parts
    from memory_core.viz.explain import score_waterfall as score_waterfall
    from memory_core.viz.graph_html import neighbourhood_html as neighbourhood_html
    from memory_core.viz.map import MAP_COLOURS as MAP_COLOURS
    from memory_core.viz.map import map_figure as map_figure
    from memory_core.viz.map import selected_ids as selected_ids
    from memory_core.viz.map import with_colour_columns as with_colour_columns
    from memory_core.viz.overview import counts_bar as counts_bar
    from memory_core.viz.overview import written_over_time as written_over_time

_EXPORTS: dict[str, str] = {
    "archive": "memory_core.curation",
    "delete": "memory_core.curation",
    "edit": "memory_core.curation",
    "merge": "memory_core.curation",
    "merge_many": "memory_core.curation",
    "restore": "memory_core.curation",
    "supersede": "memory_core.curation",
    "undo": "memory_core.curation",
    "preview": "memory_core.curation",
    "verify_deleted": "memory_core.curation",
    "audit_batches": "memory_core.curation",
    "AuditBatch": "memory_core.curation",
    "CurationReport": "memory_core.curation",
    "Verification": "memory_core.curation",
    "PURGE_NOTE": "memory_core.curation",
    "EDITABLE": "memory_core.curation",
    "correct": "memory_core.curation",
    "cite": "memory_core.curation",
    "CurationError": "memory_core.errors",
    "CurationConflictError": "memory_core.errors",
    "VersionGoneError": "memory_core.errors",
    "Settings": "memory_core.config",
    "visible": "memory_core.untrusted",
    "wait_for_preload": "memory_core.preload",
    "for_terminal": "memory_core.untrusted",
    "for_html": "memory_core.untrusted",
    "shown": "memory_core.untrusted",
    "MemlensError": "memory_core.errors",
    "InvalidRecordError": "memory_core.errors",
    "InvalidFilterError": "memory_core.errors",
    "InvalidMapParamsError": "memory_core.errors",
    "StoreLocationError": "memory_core.errors",
    "StoreNotFoundError": "memory_core.errors",
    "StoreNotAllowedError": "memory_core.errors",
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
    "FilterChoices": "memory_core.stats",
    "filter_choices": "memory_core.stats",
    "fill_pending": "memory_core.reembed",
    "switch_model": "memory_core.reembed",
    "seed_from_export": "memory_core.seeding",
    "demo_store": "memory_core.seeding",
    "demo_dir": "memory_core.seeding",
    "DEMO_QUERIES": "memory_core.seeding",
    "write_export": "memory_core.exchange.ndjson",
    "read_export": "memory_core.exchange.readers.memlens",
    "memory_doc": "memory_core.canonical",
    "InvalidConfigError": "memory_core.errors",
    "RankingConfig": "memory_core.retrieval.config",
    "PRESETS": "memory_core.retrieval.config",
    "DEFAULT_PRESET": "memory_core.retrieval.config",
    "preset": "memory_core.retrieval.config",
    "DecayParams": "memory_core.decay",
    "DEFAULT_HORIZONS": "memory_core.decay_analysis",
    "DEFAULT_THRESHOLD": "memory_core.decay_analysis",
    "FRAME_COLUMNS": "memory_core.decay_analysis",
    "DecayImpact": "memory_core.decay_analysis",
    "ImpactRow": "memory_core.decay_analysis",
    "Timeline": "memory_core.decay_analysis",
    "TimelineEvent": "memory_core.decay_analysis",
    "WhatIf": "memory_core.decay_analysis",
    "at_risk": "memory_core.decay_analysis",
    "decay_frame": "memory_core.decay_analysis",
    "decay_impact": "memory_core.decay_analysis",
    "memory_timeline": "memory_core.decay_analysis",
    "r_curves": "memory_core.decay_analysis",
    "threshold_days": "memory_core.decay_analysis",
    "what_if": "memory_core.decay_analysis",
    "search": "memory_core.retrieval.search",
    "Hit": "memory_core.retrieval.results",
    "SearchResults": "memory_core.retrieval.results",
    "recall": "memory_core.retrieval.recall",
    "RecallResult": "memory_core.retrieval.recall",
    "TIERS": "memory_core.retrieval.tiers",
    "render_tier": "memory_core.retrieval.tiers",
    "MAX_HOPS": "memory_core.retrieval.config",
    "FUSIONS": "memory_core.retrieval.config",
    "BM25_CONTEXTS": "memory_core.retrieval.config",
    "MAX_CONTEXT_WINDOW": "memory_core.retrieval.config",
    "NORMALISATIONS": "memory_core.retrieval.config",
    "MAX_FANOUT": "memory_core.retrieval.config",
    "MAX_BEAM": "memory_core.retrieval.config",
    "score_parts": "memory_core.viz.explain",
    "score_waterfall": "memory_core.viz.explain",
    "ensure_indexes": "memory_core.store.indexes",
    "vector_index_recall": "memory_core.store.indexes",
    "IndexReport": "memory_core.store.indexes",
    "IndexHealth": "memory_core.store.index_health",
    "index_health": "memory_core.store.index_health",
    "index_fix_command": "memory_core.store.index_health",
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
    "BREAKDOWNS": "memory_core.exchange.diff",
    "CHANGES": "memory_core.exchange.diff",
    "load_side": "memory_core.exchange.diff_sides",
    "file_tenant": "memory_core.exchange.diff_sides",
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
    "tune": "memory_core.evaluation",
    "SearchSpace": "memory_core.evaluation",
    "TuneResult": "memory_core.evaluation",
    "default_space": "memory_core.evaluation",
    "metrics_bar": "memory_core.viz.evaluation",
    "per_query_delta": "memory_core.viz.evaluation",
    "win_tie_loss_bar": "memory_core.viz.evaluation",
    "tag_heatmap": "memory_core.viz.evaluation",
    "written_over_time": "memory_core.viz.overview",
    "CAUSAL": "memory_core.causal",
    "lineage": "memory_core.causal",
    "link": "memory_core.causal",
    "unlink": "memory_core.causal",
    "write_graph": "memory_core.causal",
    "Contradiction": "memory_core.causal",
    "Finding": "memory_core.causal",
    "Fork": "memory_core.causal",
    "GraphEdge": "memory_core.causal",
    "GraphHealth": "memory_core.causal",
    "GraphNode": "memory_core.causal",
    "Lineage": "memory_core.causal",
    "LineagePath": "memory_core.causal",
    "Neighbourhood": "memory_core.causal",
    "Side": "memory_core.causal",
    "Step": "memory_core.causal",
    "SupersessionChain": "memory_core.causal",
    "contradictions": "memory_core.causal",
    "graph_health": "memory_core.causal",
    "neighbourhood": "memory_core.causal",
    "supersession_chain": "memory_core.causal",
    "GraphError": "memory_core.errors",
    "neighbourhood_html": "memory_core.viz.graph_html",
    "usage_factor": "memory_core.decay",
    "default_stability": "memory_core.stability",
    "curves_chart": "memory_core.viz.decay",
    "composite_histogram": "memory_core.viz.decay",
    "age_scatter": "memory_core.viz.decay",
    "timeline_chart": "memory_core.viz.decay",
    "rank_shift_chart": "memory_core.viz.decay",
    "MAP_COLOURS": "memory_core.viz.map",
    "map_figure": "memory_core.viz.map",
    "selected_ids": "memory_core.viz.map",
    "with_colour_columns": "memory_core.viz.map",
    "MapError": "memory_core.errors",
    "MapParams": "memory_core.projection",
    "Projection": "memory_core.projection",
    "ProjectionCache": "memory_core.projection",
    "QueryPlacement": "memory_core.projection",
    "place_query": "memory_core.projection",
    "project": "memory_core.projection",
    "cluster_layout": "memory_core.projection",
    "Clusters": "memory_core.projection",
    "cluster_labels": "memory_core.projection",
    "near_duplicates": "memory_core.projection",
    "near_duplicate_pairs": "memory_core.projection",
    "BucketNotFoundError": "memory_core.errors",
    "ObjectStorageAuthError": "memory_core.errors",
    "ObjectStorageConfigError": "memory_core.errors",
    "ObjectStorageError": "memory_core.errors",
    "ObjectStorageUnreachableError": "memory_core.errors",
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
