"""A page of the app in Chromium, watched: console errors, uncaught page errors, dialogs.

`Visit.check()` is what every browser test asks of a page: it rendered, Streamlit shows no
exception box, the console logged no error but the allowed ones, and no dialog opened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import ConsoleMessage, Dialog, Page, expect

#: Folder of the screenshots (gitignored; CI keeps it as an artifact).
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
#: Console errors the server itself causes, each (what, resource URL pattern). Chromium logs
#: "Failed to load resource: ... 404" for any missing resource; these are the only allowed.
ALLOWED_404S: tuple[tuple[str, re.Pattern[str]], ...] = ()
#: Milliseconds to wait for a rerun to finish (the first search loads the model).
RUN_TIMEOUT = 60_000


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
        """Wait until the app is connected and its script finished running."""
        app = self.page.locator('[data-testid="stApp"]')
        expect(app).to_have_attribute("data-test-connection-state", "CONNECTED",
                                      timeout=RUN_TIMEOUT)
        # a click's rerun starts a moment after the click: give it that moment first
        self.page.wait_for_timeout(300)
        expect(app).to_have_attribute("data-test-script-state", "notRunning",
                                      timeout=RUN_TIMEOUT)
        # plotly draws after the run, from a lazily loaded bundle
        self.page.wait_for_function(
            "[...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
            ".every(chart => chart.querySelector('.main-svg'))", timeout=RUN_TIMEOUT)

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
