"""A search hit as a card, and the explanation of its score (Search page and Ranking Lab).

Memory data is never rendered as HTML: content goes through `st.text`, tables through
`st.dataframe`, and any memory-derived string placed in Markdown (badges, captions) is escaped
by `md` first, so `<script>` or `**x**` in a memory shows literally.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import streamlit as st

from memlens_app.widgets.common.markup import age, badges, md
from memlens_app.widgets.graph.link import graph_button
from memory_core import SHOWN_CHARS, Hit, render_tier, score_waterfall, visible

DETAIL_KEY = "search_detail"


def select_memory(memory_id: str | None) -> None:
    """Open `memory_id` in the detail view (None closes it)."""
    st.session_state[DETAIL_KEY] = memory_id


def field_rows(doc: Mapping[str, Any], skip: set[str]) -> list[dict[str, str]]:
    """A document's fields as (field, value) rows for a table, values as text with
    invisible characters written out."""
    def text(value: Any) -> str:
        if value is None:
            return "—"
        return visible(value if isinstance(value, str) else json.dumps(value, default=str,
                                                                        ensure_ascii=False))

    return [{"field": k, "value": text(v)} for k, v in doc.items() if k not in skip]


def result_card(hit: Hit, tier: str, now: datetime) -> None:
    """One hit in `tier`: rank, score, badges, content as text, 'Why this rank', Details,
    and Graph (opens the Graph page centred on it)."""
    m = hit.memory
    item = render_tier(m, tier, hit)
    with st.container(border=True):
        head, graph, button = st.columns([5, 2, 2], vertical_alignment="center")
        marks: list[tuple[str, object]] = [("blue", m.memory_type)]
        if tier != "minimal":
            marks += [("green", m.project), ("violet", m.agent), ("gray", age(m.created_at, now))]
        if m.status != "active":
            marks.append(("red", m.status))
        head.markdown(f"**#{hit.rank}** · score `{hit.score:.4f}` &nbsp; {badges(marks)}")
        button.button("Details", key=f"detail_{m.id}", on_click=select_memory, args=(m.id,))
        with graph:
            graph_button(m.id, key=f"graph_{m.id}")
        st.caption(f"id {md(m.id)}")
        whole = item.get("content_chars") and st.toggle(
            f"Show all {item['content_chars']:,} characters", key=f"all_{m.id}",
            help=f"The standard tier shows the first {SHOWN_CHARS:,} characters")
        st.text(visible(m.content if whole else item.get("line") or item.get("content") or ""))
        if tier in ("standard", "full") and m.why:
            st.text(visible(f"why: {m.why}"))
        if tier != "minimal" and m.tags:
            st.markdown(badges([("gray", f"#{t}") for t in m.tags]))
        if tier == "standard":
            st.caption(f"created {m.created_at.date().isoformat()}")
        if tier == "full":
            st.dataframe(field_rows(item, {"content", "explanation"}), hide_index=True,
                         key=f"fields_{m.id}")
        with st.expander("Why this rank", expanded=tier == "full"):
            explanation(hit)


def explanation(hit: Hit, key: str = "") -> None:
    """The parts of a hit's score: engines, bonus, decay, MMR, graph path, the chart.
    `key` tells apart two explanations of the same memory on one page."""
    cols = st.columns(3) + st.columns(3)  # two rows: a result card is narrow
    cols[0].metric("Final score", f"{hit.score:.4f}")
    cols[1].metric("Fused", f"{hit.fused_sum:.4f}",
                   help="The engines' contributions summed (RRF terms or weighted normalised "
                        "scores, by the config's fusion)")
    cols[2].metric("Bonus", f"×{hit.bonus:.2f}",
                   help="RRF's convergence bonus, CombMNZ's engine count; 1 for convex")
    cols[3].metric("Decay", f"×{hit.decay:.3f}")
    cols[4].metric("MMR", f"{hit.mmr_adjustment:+.4f}")
    st.dataframe([{"engine": e, "rank": ev.rank, "score": round(ev.score, 4),
                   "of it from context": round(ev.context, 4),
                   "context from": ev.context_from or "",
                   "contribution": round(ev.contribution, 5)} for e, ev in hit.engines.items()],
                 hide_index=True, key=f"{key}engines_{hit.memory.id}")
    f = hit.decay_factors
    if f is not None:
        st.caption(f"composite = R {f.retrievability:.3f} × usage {f.usage:.3f} × anchor "
                   f"{f.anchor:.2f} × pattern {f.pattern:.2f} × citation {f.citation:.2f} "
                   f"= {f.composite:.3f}; decay prior ×{hit.decay:.3f}")
    else:
        st.caption("decay prior off (factor 1)")
    if hit.graph is not None:
        relations = " → ".join(hit.graph.relations) or "none"
        st.caption(f"graph: from seed {md(hit.graph.seed_id)}, {hit.graph.hops} hop(s) via "
                   f"{md(relations)}")
    if hit.replaces:
        st.info(f"Stands in for superseded memory {md(hit.replaces)}")
    st.plotly_chart(score_waterfall(hit, title="Score parts"), key=f"{key}chart_{hit.memory.id}")
