"""Pages keep to the tenant picked in the sidebar: the Ranking Lab drops another tenant's
results, and Export Diff defaults to this tenant's export and says when the sides' tenants
differ (issue 20, items 12 and 13)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.exchange.export import default_exports_dir, export_store
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

APP = str(Path(__file__).resolve().parents[2] / "memlens_app" / "main.py")
SECRET = "acme payroll runs on the third friday"


@pytest.fixture
def two_tenants(tmp_path: Path, app_embedder: FakeEmbedder,
                monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """Tenant default and tenant acme in one store; the app opens on acme."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    store.add([Memory.new("default caching decision", "decision", id="d-1"),
               Memory.new("default payroll note", "fact", id="d-2")])
    acme = MemoryStore.open(store.uri, tenant="acme", embedder=app_embedder)
    acme.add([Memory.new(SECRET, "fact", id="a-1", tenant="acme"),
              Memory.new("acme caching decision", "decision", id="a-2", tenant="acme")])
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    monkeypatch.setenv("MEMLENS_TENANT", "acme")
    return store


def _shown(at: AppTest) -> str:
    texts = [e.value for e in at.text] + [e.value for e in at.markdown]
    frames = [d.value.to_string() for d in at.dataframe]
    options = [str(o) for s in at.selectbox for o in s.options]
    return "\n".join(texts + frames + options)


def test_ranking_lab_drops_another_tenants_results(two_tenants: MemoryStore, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import memlens_app.widgets.ranking_lab.inputs as lab_inputs

    sets = tmp_path / "data"
    sets.mkdir()
    (sets / "acme.ndjson").write_text(json.dumps(
        {"qid": "q1", "query": "payroll friday", "relevant": {"a-1": 1}}) + "\n")
    monkeypatch.setattr(lab_inputs, "data_dir", lambda: sets)
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("page_scripts/ranking_lab.py").run()
    at.radio(key="lab_source").set_value("File under data/").run()
    at.selectbox(key="lab_file").select("acme.ndjson").run()
    at.button(key="lab_run").click().run()
    assert not at.exception
    assert SECRET in _shown(at)  # acme's ranked lists quote its memory
    at.sidebar.selectbox[0].select("default").run()
    assert not at.exception
    assert SECRET not in _shown(at)
    assert not any(list(d.value.columns[:1]) == ["metric"] for d in at.dataframe)
    assert any("another store or tenant" in i.value for i in at.info)
    assert not any("inputs changed" in w.value for w in at.warning)
    at.sidebar.selectbox[0].select("acme").run()  # and they do not come back
    assert SECRET not in _shown(at)


def test_export_diff_defaults_to_this_tenants_export(two_tenants: MemoryStore,
                                                     app_embedder: FakeEmbedder) -> None:
    folder = default_exports_dir(two_tenants.uri)
    acme = MemoryStore.open(two_tenants.uri, tenant="acme", embedder=app_embedder)
    export_store(acme, folder / "acme.ndjson")
    export_store(two_tenants, folder / "default.ndjson")  # the newest export
    os.utime(folder / "acme.ndjson", (1, 1))
    os.utime(folder / "default.ndjson", (2, 2))
    at = AppTest.from_file(APP, default_timeout=60).run()  # tenant acme
    at.switch_page("page_scripts/export_diff.py").run()
    assert not at.exception
    picked = at.selectbox(key="diff_file_A")
    assert picked.value == folder / "acme.ndjson"
    assert picked.options == ["default.ndjson (tenant default)", "acme.ndjson (tenant acme)"]
    assert not at.warning
    assert "The two sides hold the same memories" in at.success[0].value
    picked.select(folder / "default.ndjson").run()
    assert not at.exception
    [warning] = [w.value for w in at.warning]
    assert "different tenants" in warning and "default" in warning and "acme" in warning
