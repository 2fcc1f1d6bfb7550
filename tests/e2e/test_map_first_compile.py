"""A fresh machine: nothing compiled (an empty numba cache), no map cached. Right after
`memlens serve` the Map page says the map engine is compiling, with the seconds it has run,
instead of sitting blank, and draws the demo map once the compile is done. The seconds from
starting `serve` to each are printed (the issue's target: the page's first render on the
demo store within 15 s, `FIRST_RENDER_S`; printed, not asserted: on shared cores Streamlit's
start alone varies by seconds)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memory_core.store import MemoryStore
from tests.e2e.browser import open_visit
from tests.e2e.server import serving

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

#: What the Map page's bar says during the compile (memlens_app/widgets/map/view.py).
COMPILING = "Compiling the map engine once for this machine"
#: The issue's target for the page's first render after `serve` on a fresh machine.
FIRST_RENDER_S = 15.0


def test_a_fresh_machine_sees_the_compile_then_the_map(
        demo_store: MemoryStore, context: BrowserContext, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    shutil.copytree(demo_store.uri, store)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # nothing compiled here
    began = time.monotonic()
    with serving(store, tmp_path / "cache", tmp_path / "serve.log") as url, \
            open_visit(context, url) as visit:
        healthy = time.monotonic() - began
        visit.page.goto(f"{url}/map")
        visit.page.get_by_role("heading", name="Map").first.wait_for(timeout=120_000)
        rendered = time.monotonic() - began
        status = visit.page.get_by_text(COMPILING)
        status.wait_for(timeout=120_000)
        shown = time.monotonic() - began
        assert "s so far" in (status.text_content() or "")
        chart = visit.page.locator('[data-testid="stPlotlyChart"] .main-svg')
        chart.first.wait_for(timeout=900_000)
        drawn = time.monotonic() - began
        visit.settle()
        visit.check()
        assert visit.page.get_by_text(COMPILING).count() == 0  # gone once drawn
    with capsys.disabled():
        print(f"\nfresh machine, after `memlens serve`: healthy {healthy:.1f} s, the Map "
              f"page rendered {rendered:.1f} s (target <= {FIRST_RENDER_S:.0f} s, ratio "
              f"{rendered / FIRST_RENDER_S:.2f}), says it is compiling {shown:.1f} s, the "
              f"map drawn {drawn:.1f} s")
    assert (tmp_path / "numba").is_dir() and any((tmp_path / "numba").rglob("*.nbi"))
