"""The Decay page's engine calls, cached by everything their answer depends on: the store's
table versions (a recall, a cite or an edit changes them), the filter, the decay clock and
the parameters. The clock is a fixed instant, so a cached answer never goes stale."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import polars as pl
import streamlit as st

from memlens_app.widgets.common.state import get_store
from memory_core import (
    DEFAULT_HORIZONS,
    DecayImpact,
    DecayParams,
    Filter,
    MemoryStore,
    RankingConfig,
    Timeline,
    WhatIf,
    at_risk,
    decay_frame,
    decay_impact,
    memory_timeline,
    r_curves,
    what_if,
)

#: A store's table versions, (name, version) sorted: the cache key of everything here.
Stamp = tuple[tuple[str, int], ...]


def clipped(column: str, width: int) -> pl.Expr:
    """`column` on one line, cut to `width` characters (a table's content cell)."""
    text = pl.col(column).str.replace_all(r"\s+", " ").str.strip_chars()
    return (pl.when(text.str.len_chars() > width)
            .then(pl.concat_str(text.str.slice(0, width - 1), pl.lit("…")))
            .otherwise(text).alias(column))


def versions(store: MemoryStore) -> Stamp:
    """The store's table versions (memories, edges, audit, events)."""
    return tuple(sorted(store.table_versions().items()))


@st.cache_data(show_spinner="Computing decay…", max_entries=16)
def get_frame(uri: str, tenant: str, stamp: Stamp, flt: Filter, as_of: datetime,
              params: DecayParams, threshold: float) -> pl.DataFrame:
    return decay_frame(get_store(uri, tenant), flt, as_of=as_of, params=params,
                       threshold=threshold)


@st.cache_data(show_spinner="Comparing parameters…", max_entries=16)
def get_what_if(uri: str, tenant: str, stamp: Stamp, flt: Filter, as_of: datetime,
                current: DecayParams, changed: DecayParams, threshold: float) -> WhatIf:
    return what_if(get_store(uri, tenant), current, changed, threshold=threshold,
                   horizons=DEFAULT_HORIZONS, filter=flt, as_of=as_of)


@st.cache_data(show_spinner=False, max_entries=16)
def get_at_risk(uri: str, tenant: str, stamp: Stamp, flt: Filter, as_of: datetime,
                params: DecayParams, threshold: float, within_days: int) -> pl.DataFrame:
    return at_risk(get_store(uri, tenant), threshold=threshold, within_days=within_days,
                   filter=flt, as_of=as_of, params=params)


@st.cache_data(show_spinner="Reading its history…", max_entries=16)
def get_timeline(uri: str, tenant: str, stamp: Stamp, memory_id: str, as_of: datetime,
                 params: DecayParams, horizon_days: int) -> Timeline:
    return memory_timeline(get_store(uri, tenant), memory_id, as_of=as_of, params=params,
                           horizon_days=horizon_days)


@st.cache_data(show_spinner="Ranking with and without decay…", max_entries=16)
def get_impact(uri: str, tenant: str, stamp: Stamp, query: str, config: RankingConfig,
               flt: Filter, as_of: datetime, limit: int) -> DecayImpact:
    return decay_impact(get_store(uri, tenant), query, config, filter=flt, as_of=as_of,
                        limit=limit)


@st.cache_data(show_spinner=False, max_entries=32)
def get_curves(stabilities: Mapping[str, float], days: int, params: DecayParams
               ) -> pl.DataFrame:
    return r_curves(stabilities, days=days, params=params)
