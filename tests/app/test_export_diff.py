"""AppTest of the Export Diff page (run as its own script: the router registers it later)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memlens_app.widgets.common.uploads import save_upload
from memory_core.exchange.export import export_store
from memory_core.model.config import Settings
from memory_core.model.records import Memory
from memory_core.store import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "memlens_app" / "page_scripts" / "export_diff.py")
HOSTILE = "<script>alert('x')</script> **bold** [link](http://evil)"

pytestmark = pytest.mark.model  # the stores here are embedded by the real model


@pytest.fixture
def edited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """A store exported to exports/before.ndjson, then edited: 1 changed, 1 removed, 1 added."""
    uri = str(tmp_path / "store")
    monkeypatch.setenv("MEMLENS_STORE", uri)
    store = MemoryStore.open(settings=Settings.from_env())
    store.add([
        Memory.new("Auth refresh race fixed with a mutex", "decision", id="m-1",
                   project="atlas", agent="mason"),
        Memory.new(HOSTILE, "preference", id="m-2", project="herd", agent="steve"),
        Memory.new("Old caching decision", "decision", id="m-3", project="herd"),
    ])
    export_store(store, tmp_path / "exports" / "before.ndjson")
    store.upsert([store.get("m-2").with_changes(content=HOSTILE + " (edited)",
                                                tags=("security",))])
    store.tables.memories.delete("id = 'm-3'")
    store.add([Memory.new("A new lesson about retries", "lesson", id="m-4", project="atlas")])
    return store


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_export_against_live_shows_counts_chart_table_and_record(edited: MemoryStore) -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert at.header[0].value == "Export Diff"
    metrics = _metrics(at)
    assert (metrics["Memories added"], metrics["Memories removed"],
            metrics["Memories changed"], metrics["Memories unchanged"]) == ("1", "1", "1", "1")
    assert metrics["Edges unchanged"] == "0"
    assert len(at.get("plotly_chart")) == 1
    changes = at.dataframe[0].value
    assert list(changes["id"]) == ["m-2", "m-3", "m-4"]
    assert list(changes["change"]) == ["changed", "removed", "added"]
    side = at.dataframe[1].value  # the first record: m-2, changed
    changed = dict(zip(side["field"], side["changed"], strict=True))
    assert changed["content"] and changed["tags"] and not changed["agent"]
    content = side[side["field"] == "content"].iloc[0]
    assert HOSTILE in content["A: before.ndjson"]  # shown as text, escaped JSON
    full = [c.value for c in at.code]  # changed fields in full, as plain text
    assert HOSTILE in full and HOSTILE + " (edited)" in full and '["security"]' in full
    assert all("<script>" not in m.value for m in at.markdown)


def test_filters_narrow_the_table_and_pick_the_record(edited: MemoryStore) -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.multiselect(key="diff_changes").set_value(["added"]).run()
    assert list(at.dataframe[0].value["id"]) == ["m-4"]
    side = at.dataframe[1].value
    assert side.columns[1] == "A: before.ndjson" and side["changed"].all()
    at.multiselect(key="diff_changes").set_value(["added", "removed", "changed"])
    at.text_input(key="diff_needle").input("tags").run()
    assert list(at.dataframe[0].value["id"]) == ["m-2"]
    at.radio(key="diff_breakdown").set_value("project").run()
    assert not at.exception and len(at.get("plotly_chart")) == 1


def test_ignoring_fields_and_comparing_table_versions(edited: MemoryStore) -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.multiselect(key="diff_ignore").set_value(["updated_at"]).run()
    assert _metrics(at)["Memories changed"] == "1"
    at.radio(key="diff_source_A").set_value("Table version").run()
    versions = at.selectbox(key="diff_version_A").options
    at.selectbox(key="diff_version_A").set_value(versions[-1]).run()  # the empty first version
    assert not at.exception
    assert _metrics(at)["Memories added"] == "3"
    assert any("its edges are the current ones" in t.value for t in at.text)


def test_identical_sides_and_missing_exports(edited: MemoryStore, tmp_path: Path) -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.radio(key="diff_source_A").set_value("Live store").run()
    assert "same memories and edges" in at.success[0].value
    (tmp_path / "exports" / "before.ndjson").unlink()
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert "Pick both sides" in at.info[0].value


def test_a_broken_export_is_an_error_not_a_crash(edited: MemoryStore, tmp_path: Path) -> None:
    path = tmp_path / "exports" / "before.ndjson"
    path.write_bytes(path.read_bytes().replace(b"mutex", b"mutax"))
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception and "does not match" in at.error[0].value


def test_uploads_are_saved_by_content(tmp_path: Path) -> None:
    first = save_upload("a.ndjson", b"{}\n", tmp_path)
    assert save_upload("other-name.ndjson", b"{}\n", tmp_path) == first
    assert first.read_bytes() == b"{}\n" and first.suffix == ".ndjson"


def test_pages_never_render_html() -> None:
    for path in (ROOT / "memlens_app").rglob("*.py"):
        assert "unsafe_allow_html" not in path.read_text(), path.name
