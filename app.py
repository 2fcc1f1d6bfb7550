"""memlens web app: a router over app_pages/, with the store and tenant picker in the sidebar."""

from __future__ import annotations

import streamlit as st

from app_pages.widgets.state import current_store, launch_settings
from memory_core import MemlensError

st.set_page_config(page_title="memlens", page_icon="🔎", layout="wide")


def sidebar() -> None:
    """Store URI and tenant pickers; errors opening the store stop the page with a message."""
    settings = launch_settings()
    st.session_state.setdefault("store_uri", settings.store_uri)
    st.session_state.setdefault("tenant", settings.tenant)
    with st.sidebar:
        st.title("memlens")
        st.text_input("Store", key="store_uri", help="A folder or an object-storage URI")
        try:
            store = current_store()
            tenants = store.tenants() or [settings.tenant]
        except MemlensError as exc:
            st.error(str(exc))
            st.stop()
        if st.session_state["tenant"] not in tenants:
            tenants = [st.session_state["tenant"], *tenants]
        st.selectbox("Tenant", tenants, key="tenant")
        if store.read_only:
            st.caption("read-only")
        st.caption(f"model {store.model_id} · version {store.version}")


pages = [
    st.Page("app_pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
    st.Page("app_pages/search.py", title="Search", icon=":material/search:"),
    st.Page("app_pages/ranking_lab.py", title="Ranking Lab", icon=":material/science:"),
    st.Page("app_pages/export_diff.py", title="Export Diff", icon=":material/difference:"),
]
navigation = st.navigation(pages)
sidebar()
navigation.run()
