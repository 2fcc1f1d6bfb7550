"""The web app on a store in S3 (moto's server on 127.0.0.1): the Search page finds and
explains hits; a missing bucket is one line on the page, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.model.config import Settings
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.store.object_storage_server import S3Server

ROOT = Path(__file__).resolve().parents[2]
SEARCH = str(ROOT / "memlens_app" / "page_scripts" / "search.py")
APP = str(ROOT / "memlens_app" / "main.py")


@pytest.fixture
def s3_store(s3_uri: str, s3_env: S3Server, app_embedder: FakeEmbedder,
             monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    store = MemoryStore.open(settings=Settings.from_env(store_uri=s3_uri),
                             embedder=app_embedder)
    store.add([
        Memory.new("Sessions are cached in Postgres since Redis evicted them", "decision",
                   id="pg", project="atlas"),
        Memory.new("Redis evicted session keys under memory pressure", "observation",
                   id="evict", project="atlas"),
        Memory.new("Use uv to install Python tools in CI", "lesson", id="uv", project="herd"),
    ])
    store.fts.ensure()
    monkeypatch.setenv("MEMLENS_STORE", s3_uri)
    return store


def test_search_page_finds_and_explains_hits_on_s3(s3_store: MemoryStore) -> None:
    at = AppTest.from_file(SEARCH, default_timeout=60).run()
    at.text_input(key="search_query").input("where are sessions cached").run()
    assert not at.exception
    hits = [b.key.removeprefix("detail_") for b in at.button
            if b.key and b.key.startswith("detail_")]
    assert hits[:2] == ["pg", "evict"] and "uv" not in hits[:2]
    assert len([e for e in at.expander if e.label == "Why this rank"]) == len(hits)


def test_a_missing_bucket_is_one_line_on_the_page(
        s3_env: S3Server, app_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_STORE", "s3://no-such-bucket/memories")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    errors = [e.value for e in [*at.error, *at.sidebar.error]]
    assert any("does not exist" in e and "no\\-such\\-bucket" in e for e in errors), errors
