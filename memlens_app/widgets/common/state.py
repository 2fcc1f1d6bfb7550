"""The one non-page module holding cached handles and the current store/tenant choice.

Handles are built once per process (`st.cache_resource`), never on every rerun; derived
numbers are cached by (store, tenant, table version), so they refresh after any write.

A visitor types the store in the sidebar, so opening one is guarded: only the stores the
deployment allows (`Settings.allowed_stores`: MEMLENS_STORE and MEMLENS_STORES), never
created on the way (only the Overview's seed button creates the configured store), and a
failure is one line naming what the visitor typed, the details going to the server log.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import streamlit as st

from memlens_app.widgets.common.markup import md
from memory_core import (
    DiffResult,
    Embedder,
    FilterChoices,
    MemlensError,
    MemoryStore,
    Settings,
    StoreLocationError,
    StoreNotFoundError,
    StoreStats,
    diff_sides,
    filter_choices,
    load_embedder,
    load_side,
    memories_over_time,
    shown,
    store_stats,
)

if TYPE_CHECKING:
    import polars as pl

log = logging.getLogger(__name__)
T = TypeVar("T")


def launch_settings() -> Settings:
    """Settings from the environment, overridden by `--store`/`--tenant`/`--read-only` after
    `--` (`--read-only` can only add the restriction, never lift MEMLENS_READ_ONLY)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--store")
    parser.add_argument("--tenant")
    parser.add_argument("--read-only", action="store_true")
    args, _ = parser.parse_known_args(sys.argv[1:])
    return Settings.from_env(store_uri=args.store, tenant=args.tenant,
                             read_only=True if args.read_only else None)


@st.cache_resource(show_spinner=False)
def get_embedder(model: str, cache: str) -> Embedder:
    """The embedder, loaded once per process."""
    return load_embedder(Settings.from_env(embed_model=model))


@st.cache_resource(show_spinner="Opening the store…")
def get_store(uri: str, tenant: str) -> MemoryStore:
    """The store handle for (uri, tenant), opened once per process; never creates one.
    Read-only when the app is (MEMLENS_READ_ONLY or `--read-only`)."""
    settings = Settings.from_env(store_uri=uri, tenant=tenant,
                                 read_only=launch_settings().read_only or None)
    embedder = get_embedder(settings.embed_model, str(settings.model_cache))
    try:
        return MemoryStore.open(settings=settings, embedder=embedder, create=False)
    except StoreLocationError as exc:
        if exc.__cause__ is None:  # memlens' own message: it names only `uri`
            raise
        failure: BaseException = exc.__cause__
    except MemlensError:
        raise
    except (OSError, RuntimeError, ValueError) as exc:  # LanceDB's, with server paths
        failure = exc
    log.warning("cannot open the store %r: %s", uri, failure, exc_info=failure)
    raise StoreLocationError(f"cannot open the store {shown(uri)}: it is not a folder "
                             f"holding a memlens store this server can read (the server "
                             f"log says why)") from None


@st.cache_data(show_spinner=False, max_entries=32)
def get_stats(uri: str, tenant: str, version: int) -> StoreStats:
    """Store stats, cached until the table version changes."""
    return store_stats(get_store(uri, tenant))


@st.cache_data(show_spinner=False, max_entries=32)
def get_choices(uri: str, tenant: str, version: int) -> FilterChoices:
    """What the filter panels offer, cached until the table version changes."""
    return filter_choices(get_store(uri, tenant))


@st.cache_data(show_spinner=False, max_entries=32)
def get_over_time(uri: str, tenant: str, version: int) -> pl.DataFrame:
    """Memories written per week and type, cached until the table version changes."""
    return memories_over_time(get_store(uri, tenant))


@st.cache_data(show_spinner=False, max_entries=32)
def get_tenants(uri: str, tenant: str, version: int) -> list[str]:
    """The store's tenants (read from every row), cached until the table version changes;
    `tenant` only names the handle to read them with."""
    return get_store(uri, tenant).tenants()


def chosen() -> tuple[str, str]:
    """The store URI and tenant chosen in the sidebar (the launch settings' until then)."""
    settings = launch_settings()
    return (st.session_state.get("store_uri", settings.store_uri),
            st.session_state.get("tenant", settings.tenant))


def current_store() -> MemoryStore:
    """The store and tenant chosen in the sidebar, if the deployment allows that store
    (`StoreNotAllowedError` otherwise) and it exists (`StoreNotFoundError`)."""
    uri, tenant = chosen()
    launch_settings().check_store_allowed(uri)
    return get_store(uri, tenant)


def configured_store_missing() -> bool:
    """True when the sidebar names the configured store and nothing is there yet: the one
    store the app may create (the Overview's seed button)."""
    uri, _ = chosen()
    if not launch_settings().is_configured_store(uri):
        return False
    try:
        current_store()
    except StoreNotFoundError:
        return True
    except MemlensError:
        return False
    return False


def create_configured_store() -> MemoryStore:
    """Create the configured store (MEMLENS_STORE or `--store`) for the chosen tenant."""
    settings = launch_settings()
    _, tenant = chosen()
    embedder = get_embedder(settings.embed_model, str(settings.model_cache))
    return MemoryStore.open(settings=settings, tenant=tenant, embedder=embedder)


def show_error(exc: MemlensError) -> None:
    """An error as one escaped line (messages quote values users and agents chose)."""
    st.error(md(str(exc)))


@st.cache_data(show_spinner="Comparing…", max_entries=8)
def get_diff(uri: str, tenant: str, a: str, b: str, ignore: tuple[str, ...],
             stamps: tuple[str, str]) -> DiffResult:
    """The diff of sides `a` and `b`, cached until either side's `stamps` change."""
    store = get_store(uri, tenant)
    return diff_sides(load_side(a, store), load_side(b, store), ignore=ignore)


def _store_and(read: Callable[[str, str, int], T]) -> tuple[MemoryStore, T]:
    """The chosen store and `read(uri, tenant, version)` of it; an error opening it is shown
    and stops the page."""
    try:
        store = current_store()
        return store, read(store.uri, store.tenant, store.version)
    except MemlensError as exc:
        show_error(exc)
        st.stop()
        raise  # st.stop() raises; this keeps type checkers sure the function never falls off


def store_and_stats() -> tuple[MemoryStore, StoreStats]:
    """The chosen store and its stats (the Overview's: every count and health figure)."""
    return _store_and(get_stats)


def store_and_choices() -> tuple[MemoryStore, FilterChoices]:
    """The chosen store and what its filters offer (the other pages': a lighter read than
    the stats)."""
    return _store_and(get_choices)
