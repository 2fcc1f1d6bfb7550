"""Widgets of the Search page: filters, ranking knobs, result cards, explanations, detail view.

Memory data is never rendered as HTML: content goes through `st.text`, tables through
`st.dataframe`, and any memory-derived string placed in Markdown (badges, captions) is escaped
by `md` first, so `<script>` or `**x**` in a memory shows literally.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, time
from typing import Any

import streamlit as st

from memory_core import (
    IMPORTANCE_TIERS,
    PRESETS,
    STATUSES,
    DecayParams,
    Filter,
    Hit,
    MemlensError,
    Memory,
    MemoryStore,
    RankingConfig,
    StoreStats,
    memory_doc,
    render_tier,
)
from memory_core.retrieval.config import MAX_BEAM, MAX_FANOUT, MAX_HOPS
from memory_core.viz.explain import score_waterfall
from pages.state import get_store
from pages.widgets import audit_table

DEFAULT_PRESET = "hybrid_graph"
DETAIL_KEY = "search_detail"

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&])")


def md(text: object) -> str:
    """`text` escaped for inline Markdown: every markup character backslashed, one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def age(when: datetime, now: datetime) -> str:
    """How long ago `when` was, coarsely: "5 min ago", "3 h ago", "12 d ago", "2 y ago"."""
    seconds = max(0.0, (now - when).total_seconds())
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def _badges(pairs: Sequence[tuple[str, object]]) -> str:
    return " ".join(f":{color}-badge[{md(label)}]" for color, label in pairs if label)


# ------------------------------------------------------------------------------ filters
@st.cache_data(show_spinner=False, max_entries=32)
def tag_options(uri: str, tenant: str, version: int) -> list[str]:
    """Every tag of the tenant (any status), most used first; cached per table version."""
    store = get_store(uri, tenant)
    counts = Counter(t for m in store.iter_memories(Filter(status=list(STATUSES))) for t in m.tags)
    return [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _named(counts: Mapping[str, int]) -> list[str]:
    return sorted(k for k in counts if k != "(none)")


def _day_bound(day: date | None, end: bool) -> datetime | None:
    if day is None:
        return None
    return datetime.combine(day, time.max if end else time.min, UTC)


def filter_panel(store: MemoryStore, stats: StoreStats) -> Filter:
    """The filter widgets (in an expander); returns the `Filter` they describe."""
    tags = tag_options(store.uri, store.tenant, store.version)
    with st.expander("Filters"):
        c1, c2, c3 = st.columns(3)
        project = c1.multiselect("Project", _named(stats.by_project), key="search_project")
        agent = c2.multiselect("Agent", _named(stats.by_agent), key="search_agent")
        memory_type = c3.multiselect("Type", _named(stats.by_type), key="search_type")
        chosen_tags = c1.multiselect("Tags", tags, key="search_tags")
        all_tags = c1.toggle("Match all tags", key="search_tags_all")
        status = c2.multiselect("Status", STATUSES, default=["active"], key="search_status",
                                help="Archived and superseded memories only when chosen here")
        importance = c3.multiselect("Importance", IMPORTANCE_TIERS, key="search_importance")
        after = c2.date_input("Created on or after", value=None, key="search_after")
        before = c3.date_input("Created on or before", value=None, key="search_before")
    return Filter(
        project=project or None, agent=agent or None, memory_type=memory_type or None,
        tags=chosen_tags or None, tags_mode="all" if all_tags else "any",
        status=status or None, importance=importance or None,
        created_after=_day_bound(after if isinstance(after, date) else None, end=False),
        created_before=_day_bound(before if isinstance(before, date) else None, end=True),
    )


def filter_summary(flt: Filter) -> str:
    """One escaped line naming the filter's fields, for a caption."""
    parts = [f"{k} = {', '.join(v) if isinstance(v, list) else v}"
             for k, v in flt.to_dict().items()]
    return md(" · ".join(parts) or "status = active")


# ------------------------------------------------------------------------------ ranking
def preset_picker() -> str:
    """The preset selectbox; hybrid_graph unless the user picks another."""
    names = list(PRESETS)
    return str(st.selectbox("Preset", names, index=names.index(DEFAULT_PRESET),
                            key="search_preset"))


def _knobs(base: RankingConfig, key: str) -> dict[str, Any]:
    """Every RankingConfig knob as a widget starting at `base`; keys are per preset, so
    picking another preset starts from that preset's values."""
    def k(name: str) -> str:
        return f"{key}_{name}"

    v: dict[str, Any] = {}
    st.markdown("**Engines**")
    c1, c2, c3, c4, c5 = st.columns(5)
    v["use_vector"] = c1.toggle("Vector", base.use_vector, key=k("use_vector"))
    v["use_bm25"] = c2.toggle("BM25", base.use_bm25, key=k("use_bm25"))
    v["use_graph"] = c3.toggle("Graph", base.use_graph, key=k("use_graph"))
    v["candidates"] = c4.number_input("Candidates m", 1, 1000, base.candidates,
                                      key=k("candidates"), help="Top-m per engine")
    v["rrf_k"] = c5.number_input("RRF k", 1, 1000, base.rrf_k, key=k("rrf_k"))
    st.markdown("**Fusion weights**")
    c1, c2, c3, c4 = st.columns(4)
    for col, name, label in ((c1, "weight_vector", "Vector weight"),
                             (c2, "weight_bm25", "BM25 weight"),
                             (c3, "weight_graph", "Graph weight")):
        v[name] = col.number_input(label, 0.0, 10.0, float(getattr(base, name)), 0.1,
                                   key=k(name))
    v["convergence_bonus"] = c4.number_input(
        "Convergence bonus", 1.0, 3.0, base.convergence_bonus, 0.05, key=k("convergence_bonus"),
        help="Multiplier for memories found by 2+ engines")
    st.markdown("**Graph (PathRAG)**")
    c1, c2, c3, c4 = st.columns(4)
    off = not v["use_graph"]
    v["graph_seeds"] = c1.number_input("Seeds", 1, 50, base.graph_seeds, key=k("graph_seeds"),
                                       disabled=off)
    v["graph_hops"] = c2.slider("Hops", 0, MAX_HOPS, base.graph_hops, key=k("graph_hops"),
                                disabled=off)
    v["graph_fanout"] = c3.slider("Fanout", 1, MAX_FANOUT, base.graph_fanout,
                                  key=k("graph_fanout"), disabled=off)
    v["graph_beam"] = c4.slider("Beam", 1, MAX_BEAM, base.graph_beam, key=k("graph_beam"),
                                disabled=off)
    st.markdown("**Decay rerank**")
    v["use_decay"] = st.toggle("Multiply by the decay composite", base.use_decay,
                               key=k("use_decay"))
    v["decay"] = _decay_knobs(base.decay, k, disabled=not v["use_decay"])
    st.markdown("**MMR diversity**")
    c1, c2 = st.columns(2)
    v["use_mmr"] = c1.toggle("Diversify with MMR", base.use_mmr, key=k("use_mmr"))
    v["mmr_lambda"] = c2.slider("MMR lambda", 0.0, 1.0, base.mmr_lambda, 0.05,
                                key=k("mmr_lambda"), disabled=not v["use_mmr"])
    return v


def _decay_knobs(base: DecayParams, k: Callable[[str], str], *, disabled: bool
                 ) -> dict[str, Any]:
    d: dict[str, Any] = {}
    specs = (("usage_coefficient", "Usage coefficient", 0.01), ("usage_cap", "Usage cap", 0.05),
             ("pattern_boost", "Pattern boost", 0.05),
             ("citation_boost", "Citation boost", 0.05),
             ("citation_days", "Citation window (days)", 1.0))
    for col, (name, label, step) in zip(st.columns(len(specs)), specs, strict=True):
        d[name] = col.number_input(label, 0.0, 1000.0, float(getattr(base, name)), step,
                                   key=k(f"decay.{name}"), disabled=disabled)
    st.caption("Tier anchors (multiplier by importance)")
    d["tier_anchor"] = {
        tier: col.number_input(tier, 0.0, 10.0, float(base.tier_anchor.get(tier, 1.0)), 0.05,
                               key=k(f"decay.tier_anchor.{tier}"), disabled=disabled)
        for col, tier in zip(st.columns(len(IMPORTANCE_TIERS)), IMPORTANCE_TIERS, strict=True)
    }
    return d


def ranking_panel(preset_name: str) -> RankingConfig | None:
    """The advanced expander: every knob, starting from the preset; shows what differs.

    Returns None (after showing the error) when the knobs make an invalid config.
    """
    base = PRESETS[preset_name]
    with st.expander("Advanced ranking"):
        values = _knobs(base, f"knob_{preset_name}")
        try:
            config = RankingConfig.from_dict(values)
        except MemlensError as exc:
            st.error(f"Invalid ranking settings: {exc}")
            return None
        changed = base.diff(config)
        if changed:
            st.caption(f"Differs from the {preset_name} preset:")
            st.dataframe([{"knob": n, "preset": str(a), "yours": str(b)} for n, a, b in changed],
                         hide_index=True, key="search_knob_diff")
        else:
            st.caption(f"Same as the {preset_name} preset.")
    if changed:
        st.caption(f"{len(changed)} knob(s) differ from {preset_name}: "
                   f"{md(', '.join(n for n, _, _ in changed))}")
    return config


# ------------------------------------------------------------------------------ results
def _select(memory_id: str | None) -> None:
    st.session_state[DETAIL_KEY] = memory_id


def _field_rows(doc: Mapping[str, Any], skip: set[str]) -> list[dict[str, str]]:
    def text(value: Any) -> str:
        if value is None:
            return "—"
        return value if isinstance(value, str) else json.dumps(value, default=str)

    return [{"field": k, "value": text(v)} for k, v in doc.items() if k not in skip]


def result_card(hit: Hit, tier: str, now: datetime) -> None:
    """One hit in `tier`: rank, score, badges, content as text, 'Why this rank', Details."""
    m = hit.memory
    item = render_tier(m, tier, hit)
    with st.container(border=True):
        head, button = st.columns([6, 1], vertical_alignment="center")
        badges: list[tuple[str, object]] = [("blue", m.memory_type)]
        if tier != "minimal":
            badges += [("green", m.project), ("violet", m.agent), ("gray", age(m.created_at, now))]
        if m.status != "active":
            badges.append(("red", m.status))
        head.markdown(f"**#{hit.rank}** · score `{hit.score:.4f}` &nbsp; {_badges(badges)}")
        button.button("Details", key=f"detail_{m.id}", on_click=_select, args=(m.id,))
        st.caption(f"id {md(m.id)}")
        st.text(item.get("line") or item.get("content") or "")
        if tier in ("standard", "full") and m.why:
            st.text(f"why: {m.why}")
        if tier != "minimal" and m.tags:
            st.markdown(_badges([("gray", f"#{t}") for t in m.tags]))
        if tier == "standard":
            st.caption(f"created {m.created_at.date().isoformat()}")
        if tier == "full":
            st.dataframe(_field_rows(item, {"content", "explanation"}), hide_index=True,
                         key=f"fields_{m.id}")
        with st.expander("Why this rank", expanded=tier == "full"):
            explanation(hit)


def explanation(hit: Hit) -> None:
    """The parts of a hit's score: engines, bonus, decay, MMR, graph path, the chart."""
    cols = st.columns(3) + st.columns(3)  # two rows: a result card is narrow
    cols[0].metric("Final score", f"{hit.score:.4f}")
    cols[1].metric("RRF", f"{hit.rrf:.4f}")
    cols[2].metric("Bonus", f"×{hit.bonus:.2f}")
    cols[3].metric("Decay", f"×{hit.decay:.3f}")
    cols[4].metric("MMR", f"{hit.mmr_adjustment:+.4f}")
    st.dataframe([{"engine": e, "rank": ev.rank, "raw score": round(ev.score, 4),
                   "contribution": round(ev.contribution, 5)} for e, ev in hit.engines.items()],
                 hide_index=True, key=f"engines_{hit.memory.id}")
    f = hit.decay_factors
    if f is not None:
        st.caption(f"decay = R {f.retrievability:.3f} × usage {f.usage:.3f} × anchor "
                   f"{f.anchor:.2f} × pattern {f.pattern:.2f} × citation {f.citation:.2f} "
                   f"= {f.composite:.3f}")
    else:
        st.caption("decay rerank off (factor 1)")
    if hit.graph is not None:
        relations = " → ".join(hit.graph.relations) or "none"
        st.caption(f"graph: from seed {md(hit.graph.seed_id)}, {hit.graph.hops} hop(s) via "
                   f"{md(relations)}")
    if hit.replaces:
        st.info(f"Stands in for superseded memory {md(hit.replaces)}")
    st.plotly_chart(score_waterfall(hit, title="Score parts"), key=f"chart_{hit.memory.id}")


# ------------------------------------------------------------------------------ detail
def _first_line(memory: Memory | None, width: int = 80) -> str:
    if memory is None:
        return "(not in this tenant)"
    line = memory.content.strip().splitlines()[0] if memory.content.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def detail_view(store: MemoryStore, memory_id: str | None) -> None:
    """Every field of one memory, its edges in and out, and its audit history."""
    if memory_id is None:
        st.caption("Press **Details** on a result to see all its fields, its edges in and "
                   "out, and its audit history here.")
        return
    try:
        memory = store.get(memory_id)
        edges = store.edges(memory_id=memory_id, include_inactive=True)
        others = store.get_many([e.target_id if e.source_id == memory_id else e.source_id
                                 for e in edges])
        history = store.audit_entries(memory_id=memory_id)
    except MemlensError as exc:
        st.error(str(exc))
        return
    head, close = st.columns([4, 1], vertical_alignment="center")
    head.subheader("Memory", anchor=False)
    close.button("Close", key="detail_close", on_click=_select, args=(None,))
    st.text(memory.content)
    st.dataframe(_field_rows(memory_doc(memory), {"kind", "content"}), hide_index=True,
                 key="detail_fields")
    st.markdown("**Edges**")
    if edges:
        rows = []
        for e in edges:
            out = e.source_id == memory_id
            other = e.target_id if out else e.source_id
            rows.append({"direction": "out →" if out else "← in", "relation": e.relation,
                         "other memory": _first_line(others.get(other)),
                         "strength": round(e.strength, 3), "status": e.status,
                         "other id": other})
        st.dataframe(rows, hide_index=True, key="detail_edges")
    else:
        st.caption("No edges.")
    st.markdown("**Audit history**")
    audit_table(history)
