"""memlens web app: a router over app_pages/, with the store and tenant picker in the sidebar."""

from __future__ import annotations

import os

import streamlit as st

from app_pages.widgets.markup import code
from app_pages.widgets.read_only import read_only_reason
from app_pages.widgets.state import (
    configured_store_missing,
    current_store,
    launch_settings,
    show_error,
)
from memory_core import MemlensError, prepare_in_background, visible

st.set_page_config(page_title="memlens", page_icon="🔎", layout="wide")
if os.environ.get("MEMLENS_MAP_PREWARM") == "1":  # set by `memlens serve`
    prepare_in_background()  # UMAP compiles for the Map page while the user looks elsewhere

STORE_HELP = ("A folder or an object-storage URI this deployment allows: MEMLENS_STORE or one "
              "listed in MEMLENS_STORES. Opening a store never creates one.")


def sidebar() -> None:
    """Store URI and tenant pickers; errors opening the store stop the page with a message."""
    settings = launch_settings()
    st.session_state.setdefault("store_uri", settings.store_uri)
    st.session_state.setdefault("tenant", settings.tenant)
    with st.sidebar:
        st.title("memlens")
        st.text_input("Store", key="store_uri", help=STORE_HELP)
        if configured_store_missing():
            st.caption("No store here yet; the Overview page can create it with the demo "
                       "corpus.")
            st.selectbox("Tenant", [st.session_state["tenant"]], key="tenant",
                         format_func=visible)
            return
        try:
            store = current_store()
            tenants = store.tenants() or [settings.tenant]
        except MemlensError as exc:
            show_error(exc)
            st.stop()
        if st.session_state["tenant"] not in tenants:
            tenants = [st.session_state["tenant"], *tenants]
        st.selectbox("Tenant", tenants, key="tenant", format_func=visible)
        if store.read_only:
            st.caption(f"read-only: {read_only_reason()}")
        st.caption(f"model {code(store.model_id)} · version {store.version}")


pages = [
    st.Page("app_pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
    st.Page("app_pages/search.py", title="Search", icon=":material/search:"),
    st.Page("app_pages/ranking_lab.py", title="Ranking Lab", icon=":material/science:"),
    st.Page("app_pages/export_diff.py", title="Export Diff", icon=":material/difference:"),
    st.Page("app_pages/curate.py", title="Curate", icon=":material/edit_note:"),
    st.Page("app_pages/graph.py", title="Graph", icon=":material/hub:"),
    st.Page("app_pages/map.py", title="Map", icon=":material/scatter_plot:"),
    st.Page("app_pages/decay.py", title="Decay", icon=":material/hourglass_bottom:"),
]
navigation = st.navigation(pages)
sidebar()
navigation.run()
