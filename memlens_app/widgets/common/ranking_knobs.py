"""Ranking knobs shared by the Search page and the Ranking Lab: a preset picker and a panel
with every `RankingConfig` knob, starting from the preset and showing what differs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from memlens_app.widgets.common.markup import md
from memory_core import (
    BM25_CONTEXTS,
    DEFAULT_PRESET,
    FUSIONS,
    IMPORTANCE_TIERS,
    MAX_BEAM,
    MAX_CONTEXT_WINDOW,
    MAX_FANOUT,
    MAX_HOPS,
    NORMALISATIONS,
    PRESETS,
    DecayParams,
    MemlensError,
    RankingConfig,
)


def preset_picker(label: str = "Preset", *, key: str = "search_preset",
                  default: str = DEFAULT_PRESET) -> str:
    """A preset selectbox; `default` unless the user picks another."""
    names = list(PRESETS)
    return str(st.selectbox(label, names, index=names.index(default), key=key))


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
    st.markdown("**Fusion**")
    c1, c2, c3, c4, c5 = st.columns(5)
    v["fusion"] = c1.selectbox(
        "Method", FUSIONS, index=FUSIONS.index(base.fusion), key=k("fusion"),
        help="rrf: weighted reciprocal ranks; convex: weighted normalised scores; "
             "combmnz: the sum times how many engines found the memory")
    v["normalisation"] = c2.selectbox(
        "Score normalisation", NORMALISATIONS, index=NORMALISATIONS.index(base.normalisation),
        key=k("normalisation"), disabled=v["fusion"] == "rrf",
        help="How convex and CombMNZ put engine scores on one scale")
    v["context_window"] = c3.number_input(
        "Session context window", 0, MAX_CONTEXT_WINDOW, base.context_window,
        key=k("context_window"),
        help="Neighbours each side (same session and type, in a dialogue of two or more "
             "agents) a memory is scored with; 0 = off")
    v["context_weight"] = c4.slider(
        "Context weight", 0.0, 1.0, float(base.context_weight), 0.05, key=k("context_weight"),
        disabled=not v["context_window"],
        help="Share of the best neighbour's score a memory gains; in a BM25 window, how "
             "many times a neighbour's words count")
    v["bm25_context"] = c5.selectbox(
        "BM25 context", BM25_CONTEXTS, index=BM25_CONTEXTS.index(base.bm25_context),
        key=k("bm25_context"), disabled=not v["context_window"] or not v["use_bm25"],
        help="window: BM25 over the text of a memory and its neighbours; lift: a share of "
             "the best neighbour's BM25 score, as for the vector engine")
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
    c1, c2 = st.columns(2)
    v["use_decay"] = c1.toggle("Decay as a prior", base.use_decay, key=k("use_decay"),
                               help="Multiply by (1 - beta) + beta x the decay composite")
    v["decay_weight"] = c2.slider(
        "Decay weight (beta)", 0.0, 1.0, float(base.decay_weight), 0.05, key=k("decay_weight"),
        disabled=not v["use_decay"],
        help="1 multiplies by the composite itself; lower values only reorder "
             "near-ties")
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
    # what-if knobs of the Decay page; ranking keeps the preset's values
    d["fsrs_factor"], d["stability_scale"] = base.fsrs_factor, base.stability_scale
    d["tier_anchor"] = {
        tier: col.number_input(tier, 0.0, 10.0, float(base.tier_anchor.get(tier, 1.0)), 0.05,
                               key=k(f"decay.tier_anchor.{tier}"), disabled=disabled)
        for col, tier in zip(st.columns(len(IMPORTANCE_TIERS)), IMPORTANCE_TIERS, strict=True)
    }
    return d


def ranking_panel(preset_name: str, *, key: str = "knob", title: str = "Advanced ranking"
                  ) -> RankingConfig | None:
    """An expander with every knob, starting from the preset; shows what differs. `key`
    keeps two panels on one page (the Ranking Lab's A and B) apart.

    Returns None (after showing the error) when the knobs make an invalid config.
    """
    base = PRESETS[preset_name]
    with st.expander(title):
        values = _knobs(base, f"{key}_{preset_name}")
        try:
            # a knob without a widget here (none today; a field added to RankingConfig)
            # keeps the preset's value instead of falling back to the default
            config = RankingConfig.from_dict({**base.to_dict(), **values})
        except MemlensError as exc:
            st.error(f"Invalid ranking settings: {md(exc)}")
            return None
        changed = base.diff(config)
        if changed:
            st.caption(f"Differs from the {preset_name} preset:")
            st.dataframe([{"knob": n, "preset": str(a), "yours": str(b)} for n, a, b in changed],
                         hide_index=True, key=f"{key}_diff")
        else:
            st.caption(f"Same as the {preset_name} preset.")
    if changed:
        st.caption(f"{len(changed)} knob(s) differ from {preset_name}: "
                   f"{md(', '.join(n for n, _, _ in changed))}")
    return config
