"""memlens web app: a router over page_scripts/, with the store and tenant picker in the sidebar.

Streamlit's entry script: `memlens serve` runs it from the installed package; the checkout's
app.py runs it for `streamlit run app.py`."""

from __future__ import annotations

# ruff: noqa: E402  (the app's imports wait for the preload, below)
from memlens_app.preload import wait_for_preload

# `memlens serve` imports LanceDB and scikit-learn in the background (memlens_app/preload.py):
# wait for them before importing anything else, so that two threads never import at once
wait_for_preload()

from pathlib import Path

import streamlit as st

from memlens_app.widgets.common.markup import code
from memlens_app.widgets.common.read_only import read_only_reason
from memlens_app.widgets.common.routes import APP_NAME, PAGES
from memlens_app.widgets.common.state import (
    configured_store_missing,
    current_store,
    get_tenants,
    launch_settings,
    show_error,
)
from memory_core import MemlensError, store_damage, visible

#: A file, not an emoji: Streamlit draws an emoji favicon as text in the visitor's fonts, which
#: without an emoji font is a box.
FAVICON = Path(__file__).resolve().parent / "favicon.png"
st.set_page_config(page_title=APP_NAME, page_icon=str(FAVICON), layout="wide")
TAB_TITLES = {spec.title: spec.tab_title for spec in PAGES}

STORE_HELP = ("A folder or an object-storage URI this deployment allows: MEMLENS_STORE or one "
              "listed in MEMLENS_STORES. Opening a store never creates one.")


def sidebar() -> None:
    """Store URI and tenant pickers; errors opening the store stop the page with a message."""
    try:
        settings = launch_settings()
    except MemlensError as exc:  # a setting refused (MEMLENS_READ_ONLY=ro): say which
        show_error(exc)
        st.stop()
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
            tenants = get_tenants(store.uri, store.tenant, store.version) or [settings.tenant]
        except MemlensError as exc:
            show_error(exc)
            st.stop()
        except (OSError, RuntimeError, ValueError) as exc:  # a damaged file, read mid-way
            show_damage(exc)
        if st.session_state["tenant"] not in tenants:
            tenants = [st.session_state["tenant"], *tenants]
        st.selectbox("Tenant", tenants, key="tenant", format_func=visible)
        if store.read_only:
            st.caption(f"read-only: {read_only_reason()}")
        st.caption(f"model {code(store.model_id)} · version {store.version}")


def show_damage(exc: BaseException) -> None:
    """A store file Lance cannot read, as the one line every command prints (`memlens
    check`), and the page stops; any other error is a bug and is raised (Streamlit shows
    no details of it: `client.showErrorDetails` in memlens_app/streamlit_config.toml)."""
    damage = store_damage(exc)
    if damage is None:
        raise exc
    show_error(damage)
    st.stop()


pages = [st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path,
                 default=spec.default) for spec in PAGES]
navigation = st.navigation(pages)
# the browser tab names the open page ("Search · memlens") beside memlens' own icon
st.set_page_config(page_title=TAB_TITLES[navigation.title])
sidebar()
try:
    navigation.run()
except (OSError, RuntimeError, ValueError) as exc:
    show_damage(exc)
