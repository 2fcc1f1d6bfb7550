"""The Ranking Lab's "Tune" action: search knobs around config A by k-fold cross-validation on
the loaded query set, show what tuning is worth on held-out queries, and hand the tuned config
to side B (or download it for `memlens search/eval --config`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import code, frame_cells, md
from memlens_app.widgets.common.state import show_error
from memory_core import (
    MemlensError,
    MemoryStore,
    Query,
    RankingConfig,
    TuneResult,
    default_space,
    tune,
)

#: Session key of the last tuning: (store uri, tenant), signature, base label, TuneResult.
TUNE_KEY = "lab_tune_result"
#: Session key of a config loaded into a side instead of a preset: (label, RankingConfig).
LOADED_KEY = "lab_{side}_loaded"
METRICS = ("ndcg@10", "recall@5", "recall@10", "mrr@10", "map@10", "ndcg@5")


def _signature(store: MemoryStore, queries: Sequence[Query], base: RankingConfig, folds: int,
               seed: int, metric: str, as_of: datetime) -> str:
    """What a tuning depends on (the store's version: a write changes every search)."""
    return json.dumps([[q.qid for q in queries], base.to_dict(), folds, seed, metric,
                       as_of.isoformat(), store.uri, store.tenant, store.version])


def load_into(side: str, label: str, config: RankingConfig) -> None:
    """Make `config` side `side`'s config (a button callback: it runs before the rerun)."""
    st.session_state[LOADED_KEY.format(side=side)] = (label, config)


def _run(store: MemoryStore, queries: Sequence[Query], base: RankingConfig, folds: int,
         seed: int, metric: str, as_of: datetime) -> TuneResult | None:
    """Tune with a progress bar; None (after showing the error) when the engine refuses."""
    total = len(default_space(base).expand(base).candidates) * len(queries)
    bar = st.progress(0.0, text=f"Searching {len(queries)} queries under each config…")
    done = [0]

    def advance(n: int) -> None:
        done[0] += n
        bar.progress(min(1.0, done[0] / max(total, 1)), text=f"{done[0]} of {total} searches")

    try:
        result = tune(store, queries, base=base, folds=folds, seed=seed, metric=metric,
                      now=as_of, progress=advance)
    except MemlensError as exc:
        show_error(exc)
        return None
    finally:
        bar.empty()
    return result


def _show(result: TuneResult, base_label: str) -> None:
    """Held-out means next to A's, the folds, every config, and what to do with the winner."""
    m = result.metric
    (t_mean, t_sd), (b_mean, b_sd) = result.tuned, result.baseline
    st.dataframe(frame_cells(pl.DataFrame({
        "config": [base_label, "tuned"], f"held-out {m}": [round(b_mean, 4), round(t_mean, 4)],
        "sd": [round(b_sd, 4), round(t_sd, 4)], "Δ": [None, round(t_mean - b_mean, 4)]})),
        hide_index=True, key="lab_tune_summary")
    st.caption(f"Mean ± sd of {len(result.folds)} held-out folds: in each, the config best on "
               f"the other folds is scored on queries it was not chosen on. That is what "
               f"tuning is worth on new queries; the means of the table below are optimistic.")
    st.markdown("**Per fold**")
    st.dataframe(frame_cells(result.folds_frame()), hide_index=True, key="lab_tune_folds")
    st.markdown(f"**Every config** ({len(result.candidates)}; #0 is {md(base_label)}), by "
                f"mean {m} on all queries")
    st.dataframe(frame_cells(result.to_frame()), hide_index=True, key="lab_tune_configs")
    changed = result.base.diff(result.config)
    if changed:
        st.markdown(f"**Chosen: #{result.chosen}** (best on all queries; chosen in "
                    f"{result.chosen_in(result.chosen)} of {len(result.folds)} folds): "
                    + ", ".join(f"{code(k)} {md(a)} → {md(b)}" for k, a, b in changed))
    else:
        st.info(f"No config beat {md(base_label)} on all queries: it stays.")
    left, right = st.columns(2)
    left.button("Load as config B", key="lab_tune_use", on_click=load_into,
                args=("B", "tuned", result.config), type="primary")
    right.download_button("Download tuned.json", result.to_json() + "\n",
                          file_name="tuned.json", mime="application/json",
                          key="lab_tune_download")


def tune_panel(store: MemoryStore, queries: Sequence[Query] | None, base_label: str,
               base: RankingConfig | None, as_of: datetime) -> None:
    """The "Tune" expander: its inputs, the run, and the last result for these inputs."""
    owner = (store.uri, store.tenant)
    saved = st.session_state.get(TUNE_KEY)
    if saved is not None and saved[0] != owner:
        del st.session_state[TUNE_KEY]  # it quotes another tenant's numbers
        saved = None
    with st.expander("Tune ranking on this query set", expanded=saved is not None):
        st.caption(f"Searches the fusion method, the BM25 weight and session context (and "
                   f"the decay prior when decay is on) around {md(base_label)}, scoring "
                   f"each config once per query; then k-fold cross-validation says how "
                   f"much the best config gains on queries it was not chosen on.")
        n = len(queries or ())
        c1, c2, c3 = st.columns(3)
        folds = int(c1.number_input("Folds k", 2, max(2, min(10, n)), min(5, max(2, n)),
                                    key="lab_tune_folds_k"))
        seed = int(c2.number_input("Seed", 0, 2**31 - 1, 0, key="lab_tune_seed"))
        metric = str(c3.selectbox("Metric", METRICS, key="lab_tune_metric"))
        current = (_signature(store, queries, base, folds, seed, metric, as_of)
                   if queries is not None and base is not None and n >= 2 else None)
        pressed = st.button("Tune", key="lab_tune_run", type="primary", disabled=current is None)
        if pressed and current is not None and queries is not None and base is not None:
            result = _run(store, queries, base, folds, seed, metric, as_of)
            if result is not None:
                saved = (owner, current, base_label, result)
                st.session_state[TUNE_KEY] = saved
        if saved is None:
            return
        _, signature, label, result = saved
        if signature != current:
            st.warning("The inputs changed since this tuning ran; press **Tune** to tune "
                       "for the new ones.")
        _show(result, label)
