"""A page of the app in Chromium, watched: console errors, uncaught page errors, dialogs.

`Visit.check()` is what every browser test asks of a page: it rendered, Streamlit shows no
exception box, the console logged no error but the allowed ones, and no dialog opened.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, expect

#: Folder of the screenshots (gitignored; CI keeps it as an artifact).
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
#: The only console errors allowed: 404s the server itself causes, as (why, URL pattern).
#: Chromium logs "Failed to load resource: ... 404" for every missing resource.
ALLOWED_404S: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("opened at a page's URL (/search), Streamlit's front end looks for its server under "
     "that path first (/search/_stcore/health), then at the root",
     re.compile(r"/[a-z_]+/_stcore/health$")),
    ("the same probe, for the host configuration", re.compile(r"/[a-z_]+/_stcore/host-config$")),
)
#: Milliseconds to wait for a rerun to finish (the first search loads the model, the first
#: map runs UMAP).
RUN_TIMEOUT = 120_000
#: True once the app has been idle and fully drawn for 500 ms (polled by the browser).
SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const idle = app !== null && app.dataset.testConnectionState === "CONNECTED"
    && app.dataset.testScriptState === "notRunning"
    && !document.querySelector('[data-testid^="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
         .every(chart => chart.querySelector(".main-svg"));
  if (!idle) { window.__idleSince = null; return false; }
  window.__idleSince = window.__idleSince || performance.now();
  return performance.now() - window.__idleSince > 500;
}"""


@dataclass
class Visit:
    """One browser page on a server at `base`, and what it reported since it opened."""

    page: Page
    base: str
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("dialog", self._dialog)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        url = message.location.get("url", "")
        if "404" in message.text and any(p.search(url) for _, p in ALLOWED_404S):
            return
        self.errors.append(f"console error: {message.text} ({url})")

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def open(self, path: str = "/") -> None:
        """Go to `path` on the server and wait until the app has run."""
        self.page.goto(f"{self.base}{path}")
        self.settle()

    def settle(self) -> None:
        """Wait until the app is connected, its script has finished, nothing is still a
        placeholder (skeletons, charts plotly has not drawn), and that held for 0.5 s (a
        click's rerun starts a moment after the click)."""
        self.page.wait_for_function(SETTLED, polling=100, timeout=RUN_TIMEOUT)

    def go_to(self, title: str) -> None:
        """Follow the sidebar's link to the page titled `title`."""
        self.page.locator('[data-testid="stSidebarNavLink"]', has_text=title).first.click()
        self.settle()

    def check(self) -> None:
        """The page rendered: no exception box, no console error, no dialog."""
        expect(self.page.locator('[data-testid="stException"]')).to_have_count(0)
        expect(self.page.locator('[data-testid="stMain"]')).to_be_visible()
        assert self.errors == []
        assert self.dialogs == []

    def screenshot(self, name: str) -> Path:
        """A full-page screenshot in test-artifacts/."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@contextmanager
def open_visit(browser: Browser, base: str) -> Iterator[Visit]:
    """A page in a new browser context (no cookies, no Streamlit session) on `base`."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        yield Visit(context.new_page(), base)
    finally:
        context.close()
