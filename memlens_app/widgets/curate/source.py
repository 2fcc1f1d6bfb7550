"""Where the Curate page's memories come from: a filter, a search, or a list of ids, which
another page can hand over in `st.session_state[CURATE_IDS]`.

The handover: a page sets `st.session_state["curate_ids"] = [id, ...]` (a list of memory ids
of the current tenant) and calls `st.switch_page` to the Curate page. The Curate page
takes the ids once (it removes the key), shows them as its id list and selects them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.search_filters import filter_panel, filter_summary
from memlens_app.widgets.common.state import get_store, show_error
from memlens_app.widgets.curate.table import select_all_rows
from memory_core import STATUSES, Filter, FilterChoices, MemlensError, Memory, MemoryStore, search

#: The handover key: a list of memory ids for the Curate page to load and select.
CURATE_IDS = "curate_ids"
SOURCES = {"filter": "Filter", "search": "Search", "ids": "Id list"}
_ID_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class Source:
    """The memories the table lists, and the filter "every match" would act on (None when
    the source is not a filter)."""

    memories: list[Memory]
    everything: Filter | None = None
    matching: int = 0


@st.cache_data(show_spinner=False, max_entries=16)
def listing(uri: str, tenant: str, version: int, flt: Filter,
            limit: int) -> tuple[list[Memory], int]:
    """The newest `limit` memories `flt` matches and how many match; cached until the
    memories table changes (every checkbox click reruns the page)."""
    store = get_store(uri, tenant)
    return store.list(flt, limit=limit), store.count(flt)


def take_handover() -> None:
    """Move ids handed over in `CURATE_IDS` into the id-list source, all selected."""
    ids = st.session_state.pop(CURATE_IDS, None)
    if ids is None:
        return
    st.session_state["curate_source"] = "ids"
    st.session_state["curate_id_text"] = "\n".join(str(i) for i in ids)
    select_all_rows(len(ids))


def parse_ids(text: str) -> list[str]:
    """Ids typed or pasted: separated by spaces, commas or new lines, duplicates dropped.

    >>> parse_ids("a, b\\nc a")
    ['a', 'b', 'c']
    """
    return list(dict.fromkeys(i for i in _ID_SEPARATORS.split(text) if i))


def _by_ids(store: MemoryStore, ids: Sequence[str]) -> list[Memory]:
    found = store.get_many(ids)
    missing = [i for i in ids if i not in found]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        st.warning(f"No memory {code(missing[0])}{more} in tenant **{md(store.tenant)}**; "
                   f"left out of the table.")
    return [found[i] for i in ids if i in found]


def source_panel(store: MemoryStore, choices: FilterChoices) -> Source:
    """The source picker and its inputs; returns the memories to list (errors shown)."""
    take_handover()
    st.session_state.setdefault("curate_source", "filter")  # set here: a handover sets it too
    pick, middle, rows = st.columns([2, 5, 1], vertical_alignment="bottom")
    kind = pick.segmented_control("Source", list(SOURCES), format_func=SOURCES.__getitem__,
                                  required=True, key="curate_source")
    try:
        if kind == "ids":
            text = middle.text_area("Memory ids", key="curate_id_text", height=68,
                                    placeholder="one id per line (or separated by commas)")
            return Source(_by_ids(store, parse_ids(text)))
        query = ""
        if kind == "search":
            query = middle.text_input("Query", key="curate_query",
                                      placeholder="e.g. session caching decisions")
        limit = int(rows.number_input("Rows", 1, 5000, 200, step=50, key="curate_limit"))
        flt = filter_panel(store, choices, key="curate", statuses=tuple(STATUSES))
        st.caption(f"Filter: {filter_summary(flt)}")
        if kind == "search":
            if not query.strip():
                st.info("Type a query to list the memories it finds.")
                return Source([])
            return Source([hit.memory for hit in search(store, query, flt, limit=limit)])
        memories, matching = listing(store.uri, store.tenant, store.version, flt, limit)
        return Source(memories, everything=flt, matching=matching)
    except MemlensError as exc:
        show_error(exc)
        return Source([])
