"""A reflection at the Graph page's focus: how it was made (method, source count, strength,
model, from its metadata), its sources (its `derived_from` targets, and the sources its
metadata recorded that are gone), each a click away from being the focus; and, when its
evidence changed, why it is flagged. Memory text is escaped by `md`/`badges`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from memlens_app.widgets.common.markup import badges, md
from memlens_app.widgets.consolidate.data import get_flags, stamp_of
from memlens_app.widgets.consolidate.evidence import flag_line
from memlens_app.widgets.graph.data import memories, short
from memlens_app.widgets.graph.focus import refocus
from memory_core import Memory, MemoryStore

REFLECTION = "reflection"
SHOWN = 30


def recorded_sources(memory: Memory) -> list[str]:
    """The source ids the reflection's metadata recorded when it was written (`sources`:
    [{"id", "content_hash"}]); none for a reflection made elsewhere."""
    listed = memory.metadata.get("sources") if isinstance(memory.metadata, Mapping) else None
    if not isinstance(listed, list):
        return []
    return [str(s["id"]) for s in listed if isinstance(s, Mapping) and s.get("id")]


def source_ids(store: MemoryStore, memory: Memory) -> list[str]:
    """Its `derived_from` targets (edge order), then recorded sources no edge leads to."""
    targets = [e.target_id for e in store.edges.list(memory_id=memory.id)
               if e.relation == "derived_from" and e.source_id == memory.id]
    return list(dict.fromkeys([*targets, *recorded_sources(memory)]))


def _figure(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.2f}"
    return md(value)


def how_made(memory: Memory, sources: int) -> str:
    """ "method rule_based · 3 sources · strength 0.48", from the metadata (— where it says
    nothing: a reflection imported from elsewhere), the sources counted when it has no
    `source_count`."""
    meta = memory.metadata if isinstance(memory.metadata, Mapping) else {}
    count = meta.get("source_count", sources)
    parts = [f"method {_figure(meta.get('method'))}", f"{_figure(count)} sources",
             f"strength {_figure(meta.get('strength'))}"]
    if meta.get("model"):
        parts.append(f"model {md(meta['model'])}")
    return " · ".join(parts)


def reflection_panel(store: MemoryStore, focus: str) -> None:
    """The panel, when `focus` is a reflection of this tenant (nothing otherwise)."""
    memory = memories(store, [focus]).get(focus)
    if memory is None or memory.memory_type != REFLECTION:
        return
    flags = get_flags(store.uri, store.tenant, stamp_of(store), focus)
    ids = source_ids(store, memory)
    known = memories(store, ids)
    with st.container(border=True):
        st.markdown(f"**Reflection** · {how_made(memory, len(ids))}")
        for change in flags:
            if change.reflection_id == focus:
                st.warning(flag_line(change))
        if not ids:
            st.caption("It names no source: no derived_from edge, none in its metadata.")
            return
        _sources(ids[:SHOWN], known)
        if len(ids) > SHOWN:
            st.caption(f"…and {len(ids) - SHOWN} more sources.")


def _sources(ids: list[str], known: Mapping[str, Memory]) -> None:
    st.markdown(f"**Its sources** ({len(ids)})")
    for n, memory_id in enumerate(ids, 1):
        text, button = st.columns([5, 1], vertical_alignment="center")
        source = known.get(memory_id)
        if source is None:
            text.markdown(f"{n}. {md(memory_id)} (no longer in the store: purged)")
            continue
        marks = [("gray", source.memory_type)]
        marks += [("red", source.status)] if source.status != "active" else []
        text.markdown(f"{n}. {badges(marks)} {md(short(source.content, 110))}")
        button.button("Focus", key=f"graph_source_{n}", on_click=refocus, args=(memory_id,),
                      icon=":material/center_focus_strong:",
                      help="Centre the graph on this source")
