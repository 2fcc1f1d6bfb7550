"""Ranking knobs shared by the Search page and the Ranking Lab: a preset picker and a panel
with every `RankingConfig` knob, starting from the preset and showing what differs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from app_pages.widgets.markup import md
from memory_core import (
    DEFAULT_PRESET,
    IMPORTANCE_TIERS,
    MAX_BEAM,
    MAX_FANOUT,
    MAX_HOPS,
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
            # knobs without a widget here (fusion, session context, the decay prior's
            # weight) keep the preset's values instead of falling back to the defaults
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
