"""Fixtures of the app tests: the app embedding with the deterministic fake embedder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import streamlit as st

from tests.conftest import FakeEmbedder


@pytest.fixture
def app_embedder(fake_embedder: FakeEmbedder,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEmbedder]:
    """The app's stores open with `fake_embedder` (stores the test made with it match), so
    a test that searches needs no real model; cached handles are dropped before and after."""
    import memlens_app.widgets.common.state as state

    monkeypatch.setattr(state, "load_embedder", lambda settings=None: fake_embedder)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield fake_embedder
    st.cache_resource.clear()
    st.cache_data.clear()
