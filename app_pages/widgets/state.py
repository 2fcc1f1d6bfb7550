"""The one non-page module holding cached handles and the current store/tenant choice.

Handles are built once per process (`st.cache_resource`), never on every rerun; derived
numbers are cached by (store, tenant, table version), so they refresh after any write.
"""

from __future__ import annotations

import argparse
import sys

import streamlit as st

from memory_core import (
    DiffResult,
    Embedder,
    MemlensError,
    MemoryStore,
    Settings,
    StoreStats,
    diff_sides,
    load_embedder,
    load_side,
    store_stats,
)


def launch_settings() -> Settings:
    """Settings from the environment, overridden by `--store`/`--tenant` after `--`."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--store")
    parser.add_argument("--tenant")
    args, _ = parser.parse_known_args(sys.argv[1:])
    return Settings.from_env(store_uri=args.store, tenant=args.tenant)


@st.cache_resource(show_spinner=False)
def get_embedder(model: str, cache: str) -> Embedder:
    """The embedder, loaded once per process."""
    return load_embedder(Settings.from_env(embed_model=model))


@st.cache_resource(show_spinner="Opening the store…")
def get_store(uri: str, tenant: str) -> MemoryStore:
    """The store handle for (uri, tenant), opened once per process."""
    settings = Settings.from_env(store_uri=uri, tenant=tenant)
    embedder = get_embedder(settings.embed_model, str(settings.model_cache))
    return MemoryStore.open(settings=settings, embedder=embedder)


@st.cache_data(show_spinner=False, max_entries=32)
def get_stats(uri: str, tenant: str, version: int) -> StoreStats:
    """Store stats, cached until the table version changes."""
    return store_stats(get_store(uri, tenant))


def current_store() -> MemoryStore:
    """The store and tenant chosen in the sidebar."""
    settings = launch_settings()
    uri = st.session_state.get("store_uri", settings.store_uri)
    tenant = st.session_state.get("tenant", settings.tenant)
    return get_store(uri, tenant)


@st.cache_data(show_spinner="Comparing…", max_entries=8)
def get_diff(uri: str, tenant: str, a: str, b: str, ignore: tuple[str, ...],
             stamps: tuple[str, str]) -> DiffResult:
    """The diff of sides `a` and `b`, cached until either side's `stamps` change."""
    store = get_store(uri, tenant)
    return diff_sides(load_side(a, store), load_side(b, store), ignore=ignore)


def store_and_stats() -> tuple[MemoryStore, StoreStats]:
    """The chosen store and its stats; an error opening it is shown and stops the page."""
    try:
        store = current_store()
        return store, get_stats(store.uri, store.tenant, store.version)
    except MemlensError as exc:
        st.error(str(exc))
        st.stop()
        raise  # st.stop() raises; this keeps type checkers sure the function never falls off
