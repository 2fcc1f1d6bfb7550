"""Inputs of the Ranking Lab: which query set (the demo set, a file under `data/`, an upload)
and which two ranking configs, each a preset with every knob open."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.ranking_knobs import preset_picker, ranking_panel
from memlens_app.widgets.common.uploads import save_upload
from memlens_app.widgets.ranking_lab.tune import LOADED_KEY
from memory_core import (
    DEFAULT_PRESET,
    DEMO_QUERIES,
    PRESETS,
    MemlensError,
    Query,
    RankingConfig,
    demo_file,
    load_queries,
    visible,
)

QUERY_SOURCES = ("Demo query set", "File under data/", "Upload")
KS = (1, 3, 5, 10, 20)


def data_dir() -> Path:
    """`data/` of the folder `memlens serve` was started from (where `./data/store`, the
    default store, lives too): the query sets a user keeps beside their stores."""
    return Path.cwd() / "data"


def query_files(folder: Path) -> list[Path]:
    """NDJSON files under `folder` whose first line is a query (has "qid"), sorted."""
    found = []
    for path in sorted(folder.rglob("*.ndjson")) if folder.is_dir() else []:
        with path.open("rb") as handle:
            if b'"qid"' in handle.readline(1 << 16):
                found.append(path)
    return found


@st.cache_data(show_spinner="Reading the query set…", max_entries=8)
def cached_queries(path: str, stamp: float) -> list[Query]:
    """The query set at `path`, read again when its modification time changes."""
    return load_queries(Path(path))


def query_set_picker() -> tuple[str, list[Query]] | None:
    """The chosen query set as (label, queries), narrowed to the chosen tags; None (with a
    message) when nothing usable is chosen."""
    source = st.radio("Query set", QUERY_SOURCES, horizontal=True, key="lab_source")
    path: Path | None = None
    label = ""
    if source == QUERY_SOURCES[0]:
        path = demo_file(DEMO_QUERIES)
    elif source == QUERY_SOURCES[1]:
        files = query_files(data_dir())
        names = [str(p.relative_to(data_dir())) for p in files]
        chosen = st.selectbox("File", names, key="lab_file", index=None, format_func=visible,
                              placeholder="a query-set NDJSON under data/")
        path = data_dir() / chosen if chosen else None
    else:
        upload = st.file_uploader("Query set (NDJSON)", type=["ndjson", "jsonl"],
                                  key="lab_upload")
        path = save_upload(upload.name, upload.getvalue()) if upload is not None else None
        label = upload.name if upload is not None else ""
    if path is None:
        st.info("Choose a query set to evaluate.")
        return None
    try:
        queries = cached_queries(str(path), path.stat().st_mtime)
    except (MemlensError, OSError) as exc:
        st.error(f"Cannot use this query set: {md(exc)}")
        return None
    tags = sorted({t for q in queries for t in q.tags})
    chosen_tags = st.multiselect("Only queries tagged", tags, key="lab_tags",
                                 format_func=visible, help="Empty: every query of the set")
    if chosen_tags:
        queries = [q for q in queries if set(q.tags) & set(chosen_tags)]
    label = label or path.name  # an upload is named as the user's file, not its saved copy
    st.caption(f"{len(queries)} queries from {code(label)}")
    return label, queries


def _loaded(side: str) -> tuple[str, RankingConfig] | None:
    """The config loaded into `side` (the Tune action's "Load as config B"), shown with what
    it changes from the default preset and a way back to the presets; None if there is none."""
    key = LOADED_KEY.format(side=side)
    loaded = st.session_state.get(key)
    if loaded is None:
        return None
    label, config = loaded
    st.markdown(f"**Config {side}: {md(label)}**")
    changed = PRESETS[DEFAULT_PRESET].diff(config)
    st.caption(f"Loaded; differs from {DEFAULT_PRESET} in "
               + (", ".join(f"{code(k)} {md(b)}" for k, _, b in changed) or "nothing"))
    st.button("Back to presets", key=f"lab_{side}_unload",
              on_click=lambda: st.session_state.pop(key, None))
    return f"{side}: {label}", config


def config_picker(side: str, default: str) -> tuple[str, RankingConfig | None]:
    """One side's preset and knobs, or a config loaded into it: (label, config or None when
    the knobs are invalid)."""
    loaded = _loaded(side)
    if loaded is not None:
        return loaded
    name = preset_picker(f"Config {side}", key=f"lab_{side}_preset", default=default)
    config = ranking_panel(name, key=f"lab_{side}", title=f"Config {side} knobs")
    tuned = config is not None and bool(PRESETS[name].diff(config))
    return f"{side}: {name}{' (tuned)' if tuned else ''}", config
