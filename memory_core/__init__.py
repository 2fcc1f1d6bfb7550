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
    from memory_core.agents.activity import Activity as Activity
    from memory_core.agents.activity import ActivityEntry as ActivityEntry
    from memory_core.agents.activity import SessionSummary as SessionSummary
    from memory_core.agents.activity import activity as activity
    from memory_core.agents.memory_use import MemoryUse as MemoryUse
    from memory_core.agents.memory_use import MemoryUseRow as MemoryUseRow
    from memory_core.agents.memory_use import memory_use as memory_use
    from memory_core.agents.recalls import PastRecall as PastRecall
    from memory_core.agents.recalls import find_recall as find_recall
    from memory_core.agents.recalls import past_recalls as past_recalls
    from memory_core.agents.replay import Difference as Difference
    from memory_core.agents.replay import Replay as Replay
    from memory_core.agents.replay import replay as replay
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
    from memory_core.consolidation import Candidate as Candidate
    from memory_core.consolidation import consolidation_candidates as consolidation_candidates
    from memory_core.consolidation import get_candidate as get_candidate
    from memory_core.consolidation import reject as reject
    from memory_core.consolidation.evidence import EvidenceChange as EvidenceChange
    from memory_core.consolidation.evidence import evidence_changes as evidence_changes
    from memory_core.consolidation.overlay import OVERLAY_CLASSES as OVERLAY_CLASSES
    from memory_core.consolidation.overlay import consolidation_overlay as consolidation_overlay
    from memory_core.consolidation.overlay import overlay_counts as overlay_counts
    from memory_core.curation import EDITABLE as EDITABLE
    from memory_core.curation import PURGE_NOTE as PURGE_NOTE
    from memory_core.curation import AuditBatch as AuditBatch
    from memory_core.curation import CurationReport as CurationReport
    from memory_core.curation import Verification as Verification
    from memory_core.curation import archive as archive
    from memory_core.curation import audit_batches as audit_batches
    from memory_core.curation import cite as cite
    from memory_core.curation import consolidate as consolidate
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
    from memory_core.curation.lineage import Derived as Derived
    from memory_core.curation.lineage import derived_closure as derived_closure
    from memory_core.curation.receipt import Receipt as Receipt
    from memory_core.curation.receipt import ReceiptCheck as ReceiptCheck
    from memory_core.curation.receipt import make_receipt as make_receipt
    from memory_core.curation.receipt import receipt_text as receipt_text
    from memory_core.curation.receipt import verify_receipt as verify_receipt
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
    from memory_core.errors import CandidateNotFoundError as CandidateNotFoundError
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
    from memory_core.errors import RecallNotFoundError as RecallNotFoundError
    from memory_core.errors import SchemaVersionError as SchemaVersionError
    from memory_core.errors import StoreDamagedError as StoreDamagedError
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
    from memory_core.frames import memories_to_frame as memories_to_frame
    from memory_core.impact_preview.measure import ImpactReport as ImpactReport
    from memory_core.impact_preview.measure import impact as impact
    from memory_core.impact_preview.measure import impact_queries as impact_queries
    from memory_core.impact_preview.measure import impact_steps as impact_steps
    from memory_core.integrity import CheckReport as CheckReport
    from memory_core.integrity import check_store as check_store
    from memory_core.integrity import store_damage as store_damage
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
    from memory_core.reembed import fill_pending as fill_pending
    from memory_core.reembed import switch_model as switch_model
    from memory_core.retrieval.budget import count_tokens as count_tokens
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
    from memory_core.retrieval.tiers import SHOWN_CHARS as SHOWN_CHARS
    from memory_core.retrieval.tiers import TIERS as TIERS
    from memory_core.retrieval.tiers import cut_content as cut_content
    from memory_core.retrieval.tiers import render_tier as render_tier
    from memory_core.schema import IMPORTANCE_TIERS as IMPORTANCE_TIERS
    from memory_core.schema import MEMORY_TYPES as MEMORY_TYPES
    from memory_core.schema import RELATIONS as RELATIONS
    from memory_core.schema import SCHEMA_VERSION as SCHEMA_VERSION
    from memory_core.schema import STATUSES as STATUSES
    from memory_core.seeding import DEMO_QUERIES as DEMO_QUERIES
    from memory_core.seeding import demo_dir as demo_dir
    from memory_core.seeding import demo_file as demo_file
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
    from memory_core.viz.agents import activity_chart as activity_chart
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

#: module -> the names it exports through `memory_core` (loaded on first use).
_BY_MODULE: dict[str, str] = {
    "memory_core.agents.activity": "Activity ActivityEntry activity SessionSummary",
    "memory_core.agents.memory_use": "memory_use MemoryUse MemoryUseRow",
    "memory_core.agents.recalls": "find_recall past_recalls PastRecall",
    "memory_core.agents.replay": "Difference replay Replay",
    "memory_core.canonical": "memory_doc",
    "memory_core.causal": (
        "CAUSAL Contradiction contradictions Finding Fork graph_health GraphEdge GraphHealth "
        "GraphNode Lineage lineage LineagePath link Neighbourhood neighbourhood Side Step "
        "supersession_chain SupersessionChain unlink write_graph"
    ),
    "memory_core.config": "Settings",
    "memory_core.consolidation": "Candidate consolidation_candidates get_candidate reject",
    "memory_core.consolidation.evidence": "evidence_changes EvidenceChange",
    "memory_core.consolidation.overlay": "consolidation_overlay overlay_counts OVERLAY_CLASSES",
    "memory_core.curation": (
        "archive audit_batches AuditBatch cite consolidate correct CurationReport delete edit "
        "EDITABLE merge merge_many preview PURGE_NOTE restore supersede undo Verification "
        "verify_deleted"
    ),
    "memory_core.impact_preview.measure": "impact impact_queries impact_steps ImpactReport",
    "memory_core.curation.lineage": "derived_closure Derived",
    "memory_core.curation.receipt": "make_receipt receipt_text Receipt ReceiptCheck "
                                    "verify_receipt",
    "memory_core.decay": "DecayParams usage_factor",
    "memory_core.decay_analysis": (
        "at_risk decay_frame decay_impact DecayImpact DEFAULT_HORIZONS DEFAULT_THRESHOLD "
        "FRAME_COLUMNS ImpactRow memory_timeline r_curves threshold_days Timeline TimelineEvent "
        "what_if WhatIf"
    ),
    "memory_core.embedding": "Embedder load_embedder",
    "memory_core.errors": (
        "BucketNotFoundError CandidateNotFoundError CurationConflictError CurationError DiffError "
        "EmbedderUnavailableError ExportFormatError GraphError ImportConflictError "
        "InvalidConfigError InvalidFilterError InvalidMapParamsError InvalidRecordError MapError "
        "MemlensError MemoryNotFoundError MigrationError ModelMismatchError RecallNotFoundError "
        "ObjectStorageAuthError ObjectStorageConfigError ObjectStorageError "
        "ObjectStorageUnreachableError QuerySetError ReadOnlyError SchemaVersionError "
        "StoreDamagedError StoreLocationError StoreNotAllowedError StoreNotFoundError "
        "TenantNotFoundError UnknownFormatError VersionGoneError"
    ),
    "memory_core.evaluation": (
        "check_reachable compare_configs compare_results Comparison default_space EvalResult "
        "evaluate_config evaluate_embedders load_queries metric_names Query RetrievalRun "
        "run_queries SearchSpace select_tags STAT_TESTS tune TuneResult write_queries"
    ),
    "memory_core.exchange.diff": "BREAKDOWNS CHANGES diff_sides DiffResult",
    "memory_core.exchange.diff_sides": "file_tenant load_side",
    "memory_core.exchange.drill": "DrillReport run_drill",
    "memory_core.exchange.export": "default_exports_dir export_store",
    "memory_core.exchange.import_report": "ImportReport",
    "memory_core.exchange.importer": "import_file",
    "memory_core.exchange.ndjson": "write_export",
    "memory_core.exchange.readers": "ExportReader register_reader",
    "memory_core.exchange.readers.memlens": "read_export",
    "memory_core.filters": "Filter",
    "memory_core.integrity": "check_store CheckReport store_damage",
    "memory_core.frames": "memories_to_frame",
    "memory_core.projection": (
        "cluster_labels cluster_layout Clusters MapParams near_duplicate_pairs near_duplicates "
        "place_query project Projection ProjectionCache QueryPlacement"
    ),
    "memory_core.records": "AuditEntry content_hash Edge Memory",
    "memory_core.reembed": "fill_pending switch_model",
    "memory_core.retrieval.config": (
        "BM25_CONTEXTS DEFAULT_PRESET FUSIONS MAX_BEAM MAX_CONTEXT_WINDOW MAX_FANOUT MAX_HOPS "
        "NORMALISATIONS preset PRESETS RankingConfig"
    ),
    "memory_core.retrieval.budget": "count_tokens",
    "memory_core.retrieval.recall": "recall RecallResult",
    "memory_core.retrieval.results": "Hit SearchResults",
    "memory_core.retrieval.search": "search",
    "memory_core.retrieval.tiers": "cut_content render_tier SHOWN_CHARS TIERS",
    "memory_core.schema": "IMPORTANCE_TIERS MEMORY_TYPES RELATIONS SCHEMA_VERSION STATUSES",
    "memory_core.seeding": "demo_dir demo_file DEMO_QUERIES demo_store seed_from_export",
    "memory_core.stability": "default_stability",
    "memory_core.stats": (
        "filter_choices FilterChoices memories_over_time store_stats StoreStats"
    ),
    "memory_core.store": "AddReport MemoryStore UpsertReport",
    "memory_core.store.index_health": "index_fix_command index_health IndexHealth",
    "memory_core.store.indexes": "ensure_indexes IndexReport vector_index_recall",
    "memory_core.untrusted": "for_html for_terminal shown visible",
    "memory_core.viz.agents": "activity_chart",
    "memory_core.viz.decay": (
        "age_scatter composite_histogram curves_chart rank_shift_chart timeline_chart"
    ),
    "memory_core.viz.diff": "diff_breakdown_bar",
    "memory_core.viz.evaluation": "metrics_bar per_query_delta tag_heatmap win_tie_loss_bar",
    "memory_core.viz.explain": "score_parts score_waterfall",
    "memory_core.viz.graph_html": "neighbourhood_html",
    "memory_core.viz.map": "MAP_COLOURS map_figure selected_ids with_colour_columns",
    "memory_core.viz.overview": "counts_bar written_over_time",
}

#: name -> the module it is loaded from
_EXPORTS: dict[str, str] = {
    name: module for module, names in _BY_MODULE.items() for name in names.split()}

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
