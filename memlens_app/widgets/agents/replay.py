"""The Agents page's recall replay: pick a past recall; what it sent then, what the same
query sends now, and every difference explained."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.agents.links import memory_links
from memlens_app.widgets.common.markup import cells, code, md
from memlens_app.widgets.common.state import show_error
from memory_core import MemlensError, MemoryStore, PastRecall, Replay, replay, visible


def _label(past: PastRecall) -> str:
    return visible(f"{past.at:%Y-%m-%d %H:%M} · {past.actor} · {past.query[:60]}")


def _side(title: str, ids: tuple[str, ...], rep: Replay) -> None:
    st.subheader(title, anchor=False)
    if not ids:
        st.caption("Nothing.")
        return
    st.dataframe(cells({"rank": n, "id": i, "content": rep.contents.get(i, "(purged)")[:120]}
                       for n, i in enumerate(ids, 1)), hide_index=True,
                 key=f"agents_{title[:4].lower()}")


def replay_panel(store: MemoryStore, recalls: list[PastRecall]) -> None:
    """The picker, then and now side by side, the config changes and the explanations."""
    known = [r for r in recalls if r.recall_id]
    if not known:
        st.info("No recall to replay yet: each recall an agent makes (with its id) is "
                "listed here.")
        return
    past = st.selectbox("Past recall", known, key="agents_recall", format_func=_label)
    if past is None or past.recall_id is None:
        return
    try:
        rep = replay(store, past.recall_id)
    except MemlensError as exc:
        show_error(exc)
        return
    st.caption(f"Recall {code(past.recall_id)} by **{md(past.actor)}**, session "
               f"{code(past.session_id or '-')}, tier {code(past.tier or '-')}, "
               f"{past.tokens or 0} tokens: {md(past.query)}")
    then, now = st.columns(2)
    with then:
        _side("Then", rep.then_ids, rep)
    with now:
        _side("Now", rep.now_ids, rep)
    for knob, before, after in rep.config_changes:
        st.caption(f"Ranking config: {code(knob)} {code(repr(before))} → {code(repr(after))}")
    st.subheader("Why they differ", anchor=False)
    if rep.same:
        st.success("The same memories, in the same order.")
    for d in rep.differences:
        ranks = f"#{d.rank_then or '–'} → #{d.rank_now or '–'}"
        st.markdown(f"{code(d.memory_id)} {ranks} **{md(d.change)}**: {md(d.explanation)}")
    memory_links(list(dict.fromkeys(rep.then_ids + rep.now_ids)), rep.contents,
                 key="agents_replay")
