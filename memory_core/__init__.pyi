"""memlens' public API: each name memlens exports, written once.

`memory_core/__init__.py` loads these lazily from this stub (`lazy_loader.attach_stub`), and
type checkers and editors read it as the package's interface.
"""

from .agents.activity import (
    Activity as Activity,
)
from .agents.activity import (
    ActivityEntry as ActivityEntry,
)
from .agents.activity import (
    SessionSummary as SessionSummary,
)
from .agents.activity import (
    activity as activity,
)
from .agents.memory_use import (
    MemoryUse as MemoryUse,
)
from .agents.memory_use import (
    MemoryUseRow as MemoryUseRow,
)
from .agents.memory_use import (
    memory_use as memory_use,
)
from .agents.recalls import (
    PastRecall as PastRecall,
)
from .agents.recalls import (
    find_recall as find_recall,
)
from .agents.recalls import (
    past_recalls as past_recalls,
)
from .agents.replay import (
    Difference as Difference,
)
from .agents.replay import (
    Replay as Replay,
)
from .agents.replay import (
    replay as replay,
)
from .bench.synthetic_store import (
    BenchStore as BenchStore,
)
from .bench.synthetic_store import (
    build_bench_store as build_bench_store,
)
from .bench.targets import (
    target_figures as target_figures,
)
from .bench.targets import (
    target_line as target_line,
)
from .causal import (
    CAUSAL as CAUSAL,
)
from .causal import (
    Contradiction as Contradiction,
)
from .causal import (
    ContradictionSide as ContradictionSide,
)
from .causal import (
    GraphEdge as GraphEdge,
)
from .causal import (
    GraphHealth as GraphHealth,
)
from .causal import (
    GraphNode as GraphNode,
)
from .causal import (
    HealthFinding as HealthFinding,
)
from .causal import (
    Lineage as Lineage,
)
from .causal import (
    LineageFork as LineageFork,
)
from .causal import (
    LineagePath as LineagePath,
)
from .causal import (
    LineageStep as LineageStep,
)
from .causal import (
    Neighbourhood as Neighbourhood,
)
from .causal import (
    SupersessionChain as SupersessionChain,
)
from .causal import (
    contradictions as contradictions,
)
from .causal import (
    graph_health as graph_health,
)
from .causal import (
    lineage as lineage,
)
from .causal import (
    link as link,
)
from .causal import (
    neighbourhood as neighbourhood,
)
from .causal import (
    supersession_chain as supersession_chain,
)
from .causal import (
    unlink as unlink,
)
from .causal import (
    write_graph as write_graph,
)
from .consolidation import (
    Candidate as Candidate,
)
from .consolidation import (
    consolidation_candidates as consolidation_candidates,
)
from .consolidation import (
    get_candidate as get_candidate,
)
from .consolidation import (
    reject as reject,
)
from .consolidation.evidence import (
    EvidenceChange as EvidenceChange,
)
from .consolidation.evidence import (
    evidence_changes as evidence_changes,
)
from .consolidation.overlay import (
    OVERLAY_CLASSES as OVERLAY_CLASSES,
)
from .consolidation.overlay import (
    consolidation_overlay as consolidation_overlay,
)
from .consolidation.overlay import (
    overlay_counts as overlay_counts,
)
from .curation import (
    EDITABLE as EDITABLE,
)
from .curation import (
    PURGE_NOTE as PURGE_NOTE,
)
from .curation import (
    AuditBatch as AuditBatch,
)
from .curation import (
    CurationReport as CurationReport,
)
from .curation import (
    Verification as Verification,
)
from .curation import (
    archive as archive,
)
from .curation import (
    audit_batches as audit_batches,
)
from .curation import (
    cite as cite,
)
from .curation import (
    consolidate as consolidate,
)
from .curation import (
    correct as correct,
)
from .curation import (
    delete as delete,
)
from .curation import (
    edit as edit,
)
from .curation import (
    merge as merge,
)
from .curation import (
    merge_many as merge_many,
)
from .curation import (
    preview as preview,
)
from .curation import (
    restore as restore,
)
from .curation import (
    supersede as supersede,
)
from .curation import (
    undo as undo,
)
from .curation import (
    verify_deleted as verify_deleted,
)
from .curation.lineage import (
    Derived as Derived,
)
from .curation.lineage import (
    derived_closure as derived_closure,
)
from .curation.receipt import (
    Receipt as Receipt,
)
from .curation.receipt import (
    ReceiptCheck as ReceiptCheck,
)
from .curation.receipt import (
    make_receipt as make_receipt,
)
from .curation.receipt import (
    receipt_text as receipt_text,
)
from .curation.receipt import (
    verify_receipt as verify_receipt,
)
from .decay import (
    DecayParams as DecayParams,
)
from .decay import (
    usage_factor as usage_factor,
)
from .decay.analysis import (
    DEFAULT_HORIZONS as DEFAULT_HORIZONS,
)
from .decay.analysis import (
    DEFAULT_THRESHOLD as DEFAULT_THRESHOLD,
)
from .decay.analysis import (
    FRAME_COLUMNS as FRAME_COLUMNS,
)
from .decay.analysis import (
    DecayImpact as DecayImpact,
)
from .decay.analysis import (
    ImpactRow as ImpactRow,
)
from .decay.analysis import (
    Timeline as Timeline,
)
from .decay.analysis import (
    TimelineEvent as TimelineEvent,
)
from .decay.analysis import (
    WhatIf as WhatIf,
)
from .decay.analysis import (
    at_risk as at_risk,
)
from .decay.analysis import (
    decay_frame as decay_frame,
)
from .decay.analysis import (
    decay_impact as decay_impact,
)
from .decay.analysis import (
    memory_timeline as memory_timeline,
)
from .decay.analysis import (
    r_curves as r_curves,
)
from .decay.analysis import (
    threshold_days as threshold_days,
)
from .decay.analysis import (
    what_if as what_if,
)
from .embedding import (
    Embedder as Embedder,
)
from .embedding import (
    load_embedder as load_embedder,
)
from .evaluation import (
    STAT_TESTS as STAT_TESTS,
)
from .evaluation import (
    Comparison as Comparison,
)
from .evaluation import (
    EvalResult as EvalResult,
)
from .evaluation import (
    Query as Query,
)
from .evaluation import (
    RetrievalRun as RetrievalRun,
)
from .evaluation import (
    SearchSpace as SearchSpace,
)
from .evaluation import (
    TuneResult as TuneResult,
)
from .evaluation import (
    check_reachable as check_reachable,
)
from .evaluation import (
    compare_configs as compare_configs,
)
from .evaluation import (
    compare_results as compare_results,
)
from .evaluation import (
    default_space as default_space,
)
from .evaluation import (
    evaluate_config as evaluate_config,
)
from .evaluation import (
    evaluate_embedders as evaluate_embedders,
)
from .evaluation import (
    load_queries as load_queries,
)
from .evaluation import (
    metric_names as metric_names,
)
from .evaluation import (
    run_queries as run_queries,
)
from .evaluation import (
    select_tags as select_tags,
)
from .evaluation import (
    tune as tune,
)
from .evaluation import (
    write_queries as write_queries,
)
from .exchange.diff import (
    BREAKDOWNS as BREAKDOWNS,
)
from .exchange.diff import (
    CHANGES as CHANGES,
)
from .exchange.diff import (
    DiffResult as DiffResult,
)
from .exchange.diff import (
    diff_sides as diff_sides,
)
from .exchange.diff_sides import (
    file_tenant as file_tenant,
)
from .exchange.diff_sides import (
    load_side as load_side,
)
from .exchange.drill import (
    DrillReport as DrillReport,
)
from .exchange.drill import (
    run_drill as run_drill,
)
from .exchange.export import (
    default_exports_dir as default_exports_dir,
)
from .exchange.export import (
    export_store as export_store,
)
from .exchange.import_report import (
    ImportReport as ImportReport,
)
from .exchange.importer import (
    import_file as import_file,
)
from .exchange.ndjson import (
    write_export as write_export,
)
from .exchange.readers import (
    ExportReader as ExportReader,
)
from .exchange.readers import (
    register_reader as register_reader,
)
from .exchange.readers.memlens import (
    read_export as read_export,
)
from .impact_preview.measure import (
    ImpactReport as ImpactReport,
)
from .impact_preview.measure import (
    impact as impact,
)
from .impact_preview.measure import (
    impact_queries as impact_queries,
)
from .impact_preview.measure import (
    impact_steps as impact_steps,
)
from .integrity import (
    CheckReport as CheckReport,
)
from .integrity import (
    check_store as check_store,
)
from .integrity import (
    store_damage as store_damage,
)
from .model.canonical import (
    memory_doc as memory_doc,
)
from .model.config import (
    Settings as Settings,
)
from .model.errors import (
    BucketNotFoundError as BucketNotFoundError,
)
from .model.errors import (
    CandidateNotFoundError as CandidateNotFoundError,
)
from .model.errors import (
    CurationConflictError as CurationConflictError,
)
from .model.errors import (
    CurationError as CurationError,
)
from .model.errors import (
    DiffError as DiffError,
)
from .model.errors import (
    EmbedderUnavailableError as EmbedderUnavailableError,
)
from .model.errors import (
    ExportFormatError as ExportFormatError,
)
from .model.errors import (
    GraphError as GraphError,
)
from .model.errors import (
    ImportConflictError as ImportConflictError,
)
from .model.errors import (
    InvalidConfigError as InvalidConfigError,
)
from .model.errors import (
    InvalidFilterError as InvalidFilterError,
)
from .model.errors import (
    InvalidMapParamsError as InvalidMapParamsError,
)
from .model.errors import (
    InvalidRecordError as InvalidRecordError,
)
from .model.errors import (
    MapError as MapError,
)
from .model.errors import (
    MemlensError as MemlensError,
)
from .model.errors import (
    MemoryNotFoundError as MemoryNotFoundError,
)
from .model.errors import (
    MigrationError as MigrationError,
)
from .model.errors import (
    ModelMismatchError as ModelMismatchError,
)
from .model.errors import (
    ObjectStorageAuthError as ObjectStorageAuthError,
)
from .model.errors import (
    ObjectStorageConfigError as ObjectStorageConfigError,
)
from .model.errors import (
    ObjectStorageError as ObjectStorageError,
)
from .model.errors import (
    ObjectStorageUnreachableError as ObjectStorageUnreachableError,
)
from .model.errors import (
    QuerySetError as QuerySetError,
)
from .model.errors import (
    ReadOnlyError as ReadOnlyError,
)
from .model.errors import (
    RecallNotFoundError as RecallNotFoundError,
)
from .model.errors import (
    SchemaVersionError as SchemaVersionError,
)
from .model.errors import (
    StoreDamagedError as StoreDamagedError,
)
from .model.errors import (
    StoreLocationError as StoreLocationError,
)
from .model.errors import (
    StoreNotAllowedError as StoreNotAllowedError,
)
from .model.errors import (
    StoreNotFoundError as StoreNotFoundError,
)
from .model.errors import (
    TenantNotFoundError as TenantNotFoundError,
)
from .model.errors import (
    UnknownFormatError as UnknownFormatError,
)
from .model.errors import (
    VersionGoneError as VersionGoneError,
)
from .model.filters import (
    Filter as Filter,
)
from .model.frames import (
    memories_to_frame as memories_to_frame,
)
from .model.records import (
    AuditEntry as AuditEntry,
)
from .model.records import (
    Edge as Edge,
)
from .model.records import (
    Memory as Memory,
)
from .model.schema import (
    IMPORTANCE_TIERS as IMPORTANCE_TIERS,
)
from .model.schema import (
    MEMORY_TYPES as MEMORY_TYPES,
)
from .model.schema import (
    RELATIONS as RELATIONS,
)
from .model.schema import (
    SCHEMA_VERSION as SCHEMA_VERSION,
)
from .model.schema import (
    STATUSES as STATUSES,
)
from .model.stability import (
    default_stability as default_stability,
)
from .model.untrusted import (
    for_html as for_html,
)
from .model.untrusted import (
    for_terminal as for_terminal,
)
from .model.untrusted import (
    shown as shown,
)
from .model.untrusted import (
    visible as visible,
)
from .model.values import (
    content_hash as content_hash,
)
from .projection import (
    Clusters as Clusters,
)
from .projection import (
    MapParams as MapParams,
)
from .projection import (
    Projection as Projection,
)
from .projection import (
    ProjectionCache as ProjectionCache,
)
from .projection import (
    QueryPlacement as QueryPlacement,
)
from .projection import (
    cluster_labels as cluster_labels,
)
from .projection import (
    cluster_layout as cluster_layout,
)
from .projection import (
    map_engine_state as map_engine_state,
)
from .projection import (
    near_duplicate_pairs as near_duplicate_pairs,
)
from .projection import (
    near_duplicates as near_duplicates,
)
from .projection import (
    place_query as place_query,
)
from .projection import (
    project as project,
)
from .reembed import (
    fill_pending as fill_pending,
)
from .reembed import (
    switch_model as switch_model,
)
from .retrieval.budget import (
    count_tokens as count_tokens,
)
from .retrieval.config import (
    BM25_CONTEXTS as BM25_CONTEXTS,
)
from .retrieval.config import (
    DEFAULT_PRESET as DEFAULT_PRESET,
)
from .retrieval.config import (
    FUSIONS as FUSIONS,
)
from .retrieval.config import (
    MAX_BEAM as MAX_BEAM,
)
from .retrieval.config import (
    MAX_CONTEXT_WINDOW as MAX_CONTEXT_WINDOW,
)
from .retrieval.config import (
    MAX_FANOUT as MAX_FANOUT,
)
from .retrieval.config import (
    MAX_HOPS as MAX_HOPS,
)
from .retrieval.config import (
    NORMALISATIONS as NORMALISATIONS,
)
from .retrieval.config import (
    PRESETS as PRESETS,
)
from .retrieval.config import (
    RankingConfig as RankingConfig,
)
from .retrieval.config import (
    preset as preset,
)
from .retrieval.recall import (
    RecallResult as RecallResult,
)
from .retrieval.recall import (
    recall as recall,
)
from .retrieval.results import (
    Hit as Hit,
)
from .retrieval.results import (
    SearchResults as SearchResults,
)
from .retrieval.search import (
    search as search,
)
from .retrieval.tiers import (
    SHOWN_CHARS as SHOWN_CHARS,
)
from .retrieval.tiers import (
    TIERS as TIERS,
)
from .retrieval.tiers import (
    cut_content as cut_content,
)
from .retrieval.tiers import (
    render_tier as render_tier,
)
from .seeding import (
    DEMO_QUERIES as DEMO_QUERIES,
)
from .seeding import (
    demo_dir as demo_dir,
)
from .seeding import (
    demo_file as demo_file,
)
from .seeding import (
    demo_store as demo_store,
)
from .seeding import (
    seed_from_export as seed_from_export,
)
from .stats import (
    FilterChoices as FilterChoices,
)
from .stats import (
    StoreStats as StoreStats,
)
from .stats import (
    filter_choices as filter_choices,
)
from .stats import (
    memories_over_time as memories_over_time,
)
from .stats import (
    store_stats as store_stats,
)
from .store import (
    AddReport as AddReport,
)
from .store import (
    MemoryStore as MemoryStore,
)
from .store import (
    UpsertReport as UpsertReport,
)
from .store.index_health import (
    IndexHealth as IndexHealth,
)
from .store.index_health import (
    index_fix_command as index_fix_command,
)
from .store.index_health import (
    index_health as index_health,
)
from .store.indexes import (
    IndexReport as IndexReport,
)
from .store.indexes import (
    ensure_indexes as ensure_indexes,
)
from .store.indexes import (
    vector_index_recall as vector_index_recall,
)
from .viz.agents import (
    activity_chart as activity_chart,
)
from .viz.decay import (
    age_scatter as age_scatter,
)
from .viz.decay import (
    composite_histogram as composite_histogram,
)
from .viz.decay import (
    curves_chart as curves_chart,
)
from .viz.decay import (
    rank_shift_chart as rank_shift_chart,
)
from .viz.decay import (
    timeline_chart as timeline_chart,
)
from .viz.diff import (
    diff_breakdown_bar as diff_breakdown_bar,
)
from .viz.evaluation import (
    metrics_bar as metrics_bar,
)
from .viz.evaluation import (
    per_query_delta as per_query_delta,
)
from .viz.evaluation import (
    tag_heatmap as tag_heatmap,
)
from .viz.evaluation import (
    win_tie_loss_bar as win_tie_loss_bar,
)
from .viz.explain import (
    score_parts as score_parts,
)
from .viz.explain import (
    score_waterfall as score_waterfall,
)
from .viz.graph_html import (
    neighbourhood_html as neighbourhood_html,
)
from .viz.map import (
    MAP_COLOURS as MAP_COLOURS,
)
from .viz.map import (
    map_figure as map_figure,
)
from .viz.map import (
    selected_ids as selected_ids,
)
from .viz.map import (
    with_colour_columns as with_colour_columns,
)
from .viz.overview import (
    counts_bar as counts_bar,
)
from .viz.overview import (
    written_over_time as written_over_time,
)
