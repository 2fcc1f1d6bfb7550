"""AppTest of the Ranking Lab on the demo store (real model), driven through its widgets."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from memory_core import compare_configs, load_queries, preset
from memory_core.seeding import DEMO_QUERIES, demo_dir
from memory_core.store import MemoryStore
from tests.app.inert import plain

PAGE = str(Path(__file__).resolve().parents[2] / "memlens_app" / "page_scripts" / "ranking_lab.py")
TAG = "costs"
AS_OF = datetime(2026, 10, 1, tzinfo=UTC)  # the decay clock the page is set to

pytestmark = pytest.mark.model


@pytest.fixture(autouse=True)
def on_demo(demo_store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMLENS_STORE", demo_store.uri)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield
    st.cache_resource.clear()


def _metrics_table(at: AppTest) -> Any:
    """The metrics table (a pandas frame): the one whose first column is `metric`."""
    [table] = [d.value for d in at.dataframe if list(d.value.columns[:1]) == ["metric"]]
    return table


def _lab(tag: str = TAG) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception
    at.multiselect(key="lab_tags").set_value([tag]).run()
    assert not at.exception
    return at


def test_compares_two_presets_with_significance_and_evidence(demo_store: MemoryStore) -> None:
    at = _lab()
    assert [i.value for i in at.info][-1].startswith("Pick a query set and two configs")
    at.date_input(key="lab_as_of").set_value(AS_OF.date()).run()
    at.button(key="lab_run").click().run()
    assert not at.exception
    table = _metrics_table(at)
    assert list(table.columns[:3]) == ["metric", "A: hybrid", "B: full"]
    assert {"recall@5", "recall@10", "ndcg@10", "mrr@10", "map@10"} <= set(table["metric"])
    assert "p_value" in table.columns and "sig." in table.columns
    # the page shows what the engine computes for the same queries and configs
    queries = [q for q in load_queries(demo_dir() / DEMO_QUERIES) if TAG in q.tags]
    cmp = compare_configs(demo_store, queries, preset("hybrid"), preset("full"), now=AS_OF)
    expected = {r["metric"]: r for r in cmp.summary.to_dicts()}
    for row in table.to_dict("records"):
        assert row["A: hybrid"] == round(expected[row["metric"]]["baseline"], 4)
        assert row["B: full"] == round(expected[row["metric"]]["candidate"], 4)
        assert row["wins"] + row["ties"] + row["losses"] == len(queries)
    assert len(at.get("plotly_chart")) >= 3  # metric bars, win/tie/loss, per-query deltas
    assert any(c.value.startswith(f"{len(queries)} queries · A ") for c in at.caption)
    # one query, side by side: both lists, relevant items marked, each hit explained
    query = at.selectbox(key="lab_query")
    assert len(query.options) == len(queries)
    names = [m.value for m in at.markdown if m.value in ("**A: hybrid**", "**B: full**")]
    assert names == ["**A: hybrid**", "**B: full**"]
    assert any("✅ grade" in m.value for m in at.markdown)
    assert len([e for e in at.expander if e.label == "Why this rank"]) >= 2
    assert any("(student test, paired by query)" in c.value for c in at.caption)


def test_the_caption_says_tukey_does_not_pair_queries(demo_store: MemoryStore) -> None:
    at = _lab()
    at.selectbox(key="lab_stat_test").select("tukey").run()
    at.button(key="lab_run").click().run()
    assert not at.exception
    [said] = [c.value for c in at.caption if "tukey test" in c.value]
    assert "(tukey test, the two score lists as independent groups)" in said
    assert "paired" not in said


def test_tuned_knobs_and_stale_results_are_said(demo_store: MemoryStore) -> None:
    at = _lab()
    at.button(key="lab_run").click().run()
    at.date_input(key="lab_as_of").set_value(AS_OF.date()).run()  # another decay clock
    assert any("inputs changed" in w.value for w in at.warning)
    at.button(key="lab_run").click().run()
    at.number_input(key="lab_B_full_rrf_k").set_value(30).run()
    assert not at.exception
    assert any("inputs changed" in w.value for w in at.warning)
    at.button(key="lab_run").click().run()
    table = _metrics_table(at)
    assert "B: full (tuned)" in table.columns
    assert not any("inputs changed" in w.value for w in at.warning)


def test_invalid_knobs_disable_the_run(demo_store: MemoryStore) -> None:
    at = _lab()
    for engine in ("use_vector", "use_bm25", "use_graph"):
        at.toggle(key=f"lab_A_hybrid_{engine}").set_value(False)
    at.run()
    assert any("Invalid ranking settings" in e.value for e in at.error)
    assert at.button(key="lab_run").disabled


def test_a_query_file_under_data_and_a_broken_one(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    import memlens_app.widgets.ranking_lab.inputs as lab_inputs

    (tmp_path / "sets").mkdir()
    good = (demo_dir() / DEMO_QUERIES).read_text().splitlines()[:3]
    (tmp_path / "sets" / "three.ndjson").write_text("\n".join(good) + "\n")
    (tmp_path / "broken.ndjson").write_text('{"qid": "q1", "query": "x", "relevant": '
                                            '{"m": 0}}\n')
    (tmp_path / "export.ndjson").write_text('{"memlens_export": 1}\n')  # not a query set
    (tmp_path / "other_store.ndjson").write_text('{"qid": "x", "query": "uv", "relevant": '
                                                 '{"not-here": 1}}\n')
    monkeypatch.setattr(lab_inputs, "data_dir", lambda: tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.radio(key="lab_source").set_value("File under data/").run()
    assert at.selectbox(key="lab_file").options == ["broken.ndjson", "other_store.ndjson",
                                                    "sets/three.ndjson"]
    at.selectbox(key="lab_file").select("sets/three.ndjson").run()
    assert any(c.value == "3 queries from `three.ndjson`" for c in at.caption)
    at.button(key="lab_run").click().run()
    assert not at.exception and len(at.selectbox(key="lab_query").options) == 3
    at.selectbox(key="lab_file").select("broken.ndjson").run()
    [error] = [plain(e.value) for e in at.error]  # shown escaped: it quotes the file
    assert error.startswith("Cannot use this query set:")
    assert error.endswith("broken.ndjson:1: grade of 'm' must be an integer >= 1 "
                          "(1 = relevant), got 0")
    assert at.button(key="lab_run").disabled
    # a set made for another store: refused with the fix, not a table of zeros
    at.selectbox(key="lab_file").select("other_store.ndjson").run()
    at.button(key="lab_run").click().run()
    assert not at.exception
    [error] = [e.value for e in at.error]
    assert error.startswith("none of the 1 queries has a relevant memory in tenant 'default'")


def test_other_presets_and_another_query(demo_store: MemoryStore) -> None:
    at = _lab()
    at.selectbox(key="lab_A_preset").select("vector").run()
    at.selectbox(key="lab_B_preset").select("bm25").run()
    at.button(key="lab_run").click().run()
    assert not at.exception
    table = _metrics_table(at)
    assert list(table.columns[:3]) == ["metric", "A: vector", "B: bm25"]
    assert table["p_value"].notna().all()  # two queries are enough for a paired test
    query = at.selectbox(key="lab_query")
    first = query.value
    query.set_value(query.options[1].split(" ")[0]).run()  # options read "qid (Δ ...) text"
    assert not at.exception
    assert at.selectbox(key="lab_query").value not in (None, first)
    names = [m.value for m in at.markdown if m.value in ("**A: vector**", "**B: bm25**")]
    assert names == ["**A: vector**", "**B: bm25**"]
    assert len([e for e in at.expander if e.label == "Why this rank"]) >= 2


def test_tune_shows_progress_then_results_and_loads_the_config_as_b(
        demo_store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.delta_generator import DeltaGenerator

    from memory_core import default_space, tune

    updates: list[tuple[float, str | None]] = []
    progress = DeltaGenerator.progress

    def recording(self: DeltaGenerator, value: float, text: str | None = None) -> Any:
        updates.append((value, text))
        return progress(self, value, text=text)

    monkeypatch.setattr(DeltaGenerator, "progress", recording)  # the bar's updates
    at = _lab("caching")
    at.date_input(key="lab_as_of").set_value(AS_OF.date()).run()
    assert at.number_input(key="lab_tune_folds_k").value == 5
    at.number_input(key="lab_tune_folds_k").set_value(3).run()
    at.button(key="lab_tune_run").click().run()
    assert not at.exception
    queries = [q for q in load_queries(demo_dir() / DEMO_QUERIES) if "caching" in q.tags]
    total = len(default_space(preset("hybrid")).expand(preset("hybrid")).candidates) * len(
        queries)
    assert len(updates) == total and updates[-1] == (1.0, f"{total} of {total} searches")
    assert [v for v, _ in updates] == sorted(v for v, _ in updates)
    assert not at.get("progress")  # the bar is gone once the results show
    # the page shows what the engine computes for the same queries, config and folds
    result = tune(demo_store, queries, base=preset("hybrid"), folds=3, now=AS_OF)
    [summary, folds, configs] = [d.value for d in at.dataframe]  # before any comparison
    summary = summary.to_dict("records")
    assert [r["config"] for r in summary] == ["A: hybrid", "tuned"]
    assert summary[0]["held-out ndcg@10"] == round(result.base_mean, 4)
    assert summary[1]["held-out ndcg@10"] == round(result.tuned_mean, 4)
    assert list(folds["config"]) == [f.chosen for f in result.folds]
    assert list(folds["held_out"]) == [f.score for f in result.folds]
    assert list(configs.columns[:4]) == ["config", "fusion", "weight_bm25", "context_window"]
    assert len(configs) == len(result.candidates)
    assert len(at.get("download_button")) == 1
    # the tuned config as side B, compared with A
    at.button(key="lab_tune_use").click().run()
    assert not at.exception
    assert any(m.value == "**Config B: tuned**" for m in at.markdown)
    at.button(key="lab_run").click().run()
    assert list(_metrics_table(at).columns[:3]) == ["metric", "A: hybrid", "B: tuned"]
    at.button(key="lab_B_unload").click().run()  # back to the presets
    assert at.selectbox(key="lab_B_preset").value == "full"
    assert any("inputs changed" in w.value for w in at.warning)  # the comparison was of B
