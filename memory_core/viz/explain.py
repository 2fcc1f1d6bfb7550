"""Figures that explain one search hit: how its final score is built (no Streamlit here).

A hit's score is `fused_sum * bonus * decay + mmr_adjustment` (docs/design/retrieval.md), and
its `fused_sum` is the sum of the engines' contributions. Written as a sum of parts,

    score = sum(contributions) + fused_sum * (bonus - 1) + fused_sum * bonus * (decay - 1)
            + mmr_adjustment

so each engine, the fusion bonus, the decay rerank and MMR get one bar whose length is
what it added to (or took from) the score. Works from pages and notebooks alike:

>>> from memory_core.viz.explain import score_parts                        # doctest: +SKIP
>>> hits = search(demo_store(), "retry policy", config=preset("full")).hits  # doctest: +SKIP
>>> score_parts(hits[0])                                                    # doctest: +SKIP
[('bm25', 0.4827), ('graph', 1.4359), ('decay', -0.0645)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from memory_core.retrieval.search import Hit

#: Engines in the order their bars are drawn; engines not listed follow in name order.
ENGINE_ORDER: tuple[str, ...] = ("vector", "bm25", "graph")


def score_parts(hit: Hit) -> list[tuple[str, float]]:
    """(label, amount) parts of `hit.score`, engines first; the amounts sum to the score.

    The bonus, decay and MMR parts are left out when they change nothing (bonus 1, decay 1,
    no MMR adjustment), so a hit of the default convex fusion (bonus 1) without decay or MMR
    shows only its engines.
    """
    engines = sorted(hit.engines, key=lambda e: (
        ENGINE_ORDER.index(e) if e in ENGINE_ORDER else len(ENGINE_ORDER), e))
    parts = [(e, hit.engines[e].contribution) for e in engines]
    if hit.bonus != 1.0:
        parts.append(("fusion bonus", hit.fused_sum * (hit.bonus - 1.0)))
    if hit.decay != 1.0:
        parts.append(("decay", hit.fused_sum * hit.bonus * (hit.decay - 1.0)))
    if hit.mmr_adjustment != 0.0:
        parts.append(("MMR", hit.mmr_adjustment))
    return parts


def score_waterfall(hit: Hit, *, title: str | None = None, height: int | None = None
                    ) -> go.Figure:
    """A small horizontal waterfall: one bar per part of `score_parts`, then the final score.

    Gains are green, losses red, the total blue; the engines' bars are their contributions
    (`w_e * n_e / sum_e w_e` under convex fusion, the default; `w_e / (k + rank_e)` under
    RRF).
    """
    import plotly.graph_objects as go

    parts = score_parts(hit)
    labels = [label for label, _ in parts] + ["score"]
    values = [value for _, value in parts] + [hit.score]
    fig = go.Figure(go.Waterfall(
        orientation="h",
        y=labels,
        x=values,
        measure=["relative"] * len(parts) + ["total"],
        text=[f"{v:+.4f}" for v, _ in zip(values[:-1], parts, strict=True)]
        + [f"{hit.score:.4f}"],
        textposition="outside",
        cliponaxis=False,
        connector={"line": {"width": 1, "color": "#bbb"}},
        increasing={"marker": {"color": "#2ca02c"}},
        decreasing={"marker": {"color": "#d62728"}},
        totals={"marker": {"color": "#1f77b4"}},
    ))
    fig.update_layout(
        title=title or f"How rank {hit.rank} scores {hit.score:.4f}",
        height=height or 60 + 32 * len(labels),
        margin={"l": 10, "r": 40, "t": 40, "b": 10},
        xaxis_title="score",
        yaxis={"autorange": "reversed"},  # parts top to bottom, the total last
        showlegend=False,
    )
    return fig
