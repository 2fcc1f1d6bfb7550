"""A page of the app in Chromium, watched: console errors, uncaught page errors, dialogs.

`Visit.check()` is what every browser test asks of a page: it rendered, Streamlit shows no
exception box, the console logged no error but the allowed ones, and no dialog opened.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: without playwright the tests skip, not crash
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Dialog,
        Locator,
        Page,
    )

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
#: Sets `window.__memlensRan` once the app's script state turns "running" from now on.
WATCH_RUN = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__memlensRan = false;
  if (window.__memlensWatch) window.__memlensWatch.disconnect();
  window.__memlensWatch = new MutationObserver(() => {
    if (app.dataset.testScriptState === "running") window.__memlensRan = true;
  });
  window.__memlensWatch.observe(app, {attributes: true,
                                      attributeFilter: ["data-test-script-state"]});
}"""
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

    def act(self, action: Callable[[], object]) -> None:
        """Do `action` (a click, a key press) and wait for the rerun it starts to finish.

        Under load a rerun can start later than `settle`'s quiet half second, so the
        app's script state is watched from before the action until it has run."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        self.page.evaluate(WATCH_RUN)
        action()
        try:
            self.page.wait_for_function("window.__memlensRan === true", timeout=10_000)
        except PlaywrightTimeoutError:
            pass  # the action started no rerun: a widget that only changes the page
        self.settle()

    def reveal(self, action: Callable[[], object]) -> None:
        """Do `action`, one that changes the page without a rerun (opening an expander), and
        wait until the page has settled: `act` would wait for a rerun that never starts."""
        action()
        self.settle()

    def go_to(self, title: str) -> None:
        """Follow the sidebar's link to the page titled `title`."""
        link = self.page.locator('[data-testid="stSidebarNavLink"]', has_text=title).first
        self.act(link.click)

    def pick(self, label: str, option: str | None = None) -> None:
        """Choose `option` (default: the first) in the multiselect labelled `label`; its
        list is virtual, so the option is typed in to bring it into view."""
        box = self.page.locator('[data-testid="stMultiSelect"]', has_text=label)
        combobox = box.get_by_role("combobox")
        combobox.click()
        combobox.press("ArrowDown")  # a click alone does not open it near the window's bottom
        options = self.page.get_by_role("listbox", name=label).get_by_role("option")
        if option is None:
            choice = options.first
        else:
            combobox.fill(option)
            choice = options.filter(has_text=re.compile(f"^{re.escape(option)}$")).first
        self.act(choice.click)
        self.page.keyboard.press("Escape")

    def type_in(self, name: str, text: str, within: Locator | None = None) -> None:
        """Type `text` into the text input named `name` and submit it (Enter)."""
        box = (within or self.page).get_by_role("textbox", name=name)
        box.fill(text)
        self.act(lambda: box.press("Enter"))

    def check(self) -> None:
        """The page rendered: no exception box, no console error, no dialog."""
        from playwright.sync_api import expect

        expect(self.page.locator('[data-testid="stException"]')).to_have_count(0)
        expect(self.page.locator('[data-testid="stMain"]')).to_be_visible()
        assert self.errors == [], self.errors
        assert self.dialogs == [], self.dialogs

    def screenshot(self, name: str) -> Path:
        """A full-page screenshot in test-artifacts/."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


def new_context(browser: Browser) -> BrowserContext:
    """The browser context the tests open their pages in: one window size, and reduced
    motion (Streamlit's spinners and skeletons stop animating: measured, a third less of
    Chromium's CPU, none of it spent on what a test checks)."""
    return browser.new_context(viewport={"width": 1400, "height": 1000},
                               reduced_motion="reduce")


@contextmanager
def open_visit(context: BrowserContext, base: str) -> Iterator[Visit]:
    """A new page (a Streamlit session of its own) in `context` on `base`, closed after.
    Pages of one context share its HTTP cache: the app's JavaScript is fetched and compiled
    once, not on every visit."""
    page = context.new_page()
    try:
        yield Visit(page, base)
    finally:
        page.close()
