"""Ranking Lab: before a ranking change ships, measure it on a query set against this store,
with significance and per-query evidence."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.state import show_error, store_and_choices
from memlens_app.widgets.ranking_lab.inputs import KS, config_picker, query_set_picker
from memlens_app.widgets.ranking_lab.results import charts, metrics_table, query_inspector
from memlens_app.widgets.ranking_lab.tune import tune_panel
from memory_core import STAT_TESTS, MemlensError, check_reachable, compare_configs

#: Session key of the last comparison: (store uri, tenant), signature, Comparison.
RESULT_KEY = "lab_comparison"

st.header("Ranking Lab")
store, choices = store_and_choices()
owner = (store.uri, store.tenant)
saved = st.session_state.get(RESULT_KEY)
if saved is not None and saved[0] != owner:
    # Results belong to the store and tenant they were measured on: their ranked lists
    # quote that tenant's memories, which must not show once another one is picked.
    del st.session_state[RESULT_KEY]
    st.info("The last comparison ran on another store or tenant, so it is cleared.")
if choices.memories == 0:
    st.info(f"Tenant **{md(store.tenant)}** of {code(store.uri)} has no memories yet; seed "
            f"the demo corpus from the Overview page.")
    st.stop()

chosen = query_set_picker()
left, right = st.columns(2)
with left:
    label_a, config_a = config_picker("A", "hybrid")
with right:
    label_b, config_b = config_picker("B", "full")
k_col, test_col, clock_col = st.columns(3)
ks = k_col.multiselect("Cut-offs k", KS, default=[5, 10], key="lab_ks")
stat_test = test_col.selectbox("Significance test", STAT_TESTS, key="lab_stat_test")
day = clock_col.date_input("Decay clock", key="lab_as_of", format="YYYY-MM-DD",
                           help="The day decay and edge strength are computed for (midnight "
                                "UTC): both configs use it, and the same day gives the same "
                                "numbers later (memlens eval --as-of).")
as_of = datetime.combine(day or datetime.now(UTC).date(), time(), tzinfo=UTC)

if not ks:
    st.warning("Choose at least one cut-off k.")


def signature() -> str:
    """What a comparison depends on; the store's version is read when asked, because the
    first search of a store may build its full-text index (a new version)."""
    return json.dumps([chosen[0] if chosen else None, [q.qid for q in chosen[1]]
                       if chosen else [], config_a.to_dict() if config_a else None,
                       config_b.to_dict() if config_b else None, sorted(ks), stat_test,
                       as_of.isoformat(), store.uri, store.tenant, store.version], default=str)


tune_panel(store, chosen[1] if chosen else None, label_a, config_a, as_of)
pressed = st.button("Run comparison", type="primary", key="lab_run",
                    disabled=chosen is None or config_a is None or config_b is None or not ks)
if pressed and chosen is not None and config_a is not None and config_b is not None:
    queries = chosen[1]
    total = 2 * len(queries)
    bar = st.progress(0.0, text=f"Searching {len(queries)} queries under A and B…")
    done = [0]

    def advance(n: int) -> None:
        done[0] += n
        bar.progress(min(1.0, done[0] / max(total, 1)),
                     text=f"{done[0]} of {total} searches")

    try:
        check_reachable(store, queries)
        cmp = compare_configs(store, queries, config_a, config_b, names=(label_a, label_b),
                              ks=ks, stat_test=stat_test, progress=advance,
                              now=as_of)
    except MemlensError as exc:
        bar.empty()
        show_error(exc)
        st.stop()
    bar.empty()
    st.session_state[RESULT_KEY] = (owner, signature(), cmp)

saved = st.session_state.get(RESULT_KEY)
if saved is None:
    st.info("Pick a query set and two configs, then press **Run comparison**.")
    st.stop()
_, saved_signature, cmp = saved
if saved_signature != signature():
    st.warning("The inputs changed since this comparison ran; press **Run comparison** to "
               "measure the new ones.")
run_a, run_b = cmp.baseline.run, cmp.candidate.run
for note in dict.fromkeys((*run_a.reasons, *run_b.reasons)):
    st.warning(f"Search ran degraded: {md(note)}")
if cmp.warnings:  # every query that retrieved nothing, or whose relevant memories are absent
    named = len(dict.fromkeys(w.qid for w in cmp.warnings))
    with st.expander(f"{named} queries retrieved nothing or have no relevant memory in this "
                     f"tenant; they score 0", expanded=named <= 5):
        for w in cmp.warnings:
            only = f" (under {md(' and '.join(w.configs))} only)" if len(w.configs) < 2 else ""
            st.markdown(f"- {md(w.message)}{only}")
st.caption(f"{len(cmp.baseline.queries)} queries · A {run_a.elapsed_s:.1f} s · "
           f"B {run_b.elapsed_s:.1f} s")
metrics_table(cmp)
charts(cmp)
st.subheader("One query, side by side")
query_inspector(store, cmp)
