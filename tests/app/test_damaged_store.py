"""A damaged store in the app: the page shows the one line every command prints (the table,
the problem, `memlens check`), never a traceback or server paths (issue 42 item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import FakeEmbedder
from tests.memory_core.integrity.damaged import TABLE_OF, build_base, damaged_copy

APP = str(Path(__file__).resolve().parents[2] / "memlens_app" / "main.py")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("app-damage") / "base"
    build_base(path)
    return path


@pytest.mark.parametrize("kind", ["memories manifest truncated", "memories data file deleted",
                                  "audit manifest truncated", "edges data file deleted"])
def test_the_page_shows_the_one_damage_line(base: Path, tmp_path: Path, kind: str,
                                            app_embedder: FakeEmbedder,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    store = damaged_copy(base, tmp_path / "store", kind)
    monkeypatch.setenv("MEMLENS_STORE", str(store))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    errors = [e.value.replace("\\", "") for e in at.error]  # markdown escapes dropped
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"the store's {TABLE_OF[kind]} table is damaged (")
    assert errors[0].endswith(f"run `memlens check --store {store}` (`--repair` fixes it)")
    for leak in ("Traceback", ".cargo", "/root/", "lance error"):
        assert leak not in errors[0]
