"""The app's pages as data: the router (app.py) builds its navigation from `PAGES`, and the
browser tests visit each one, so adding a page here adds it to both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

#: The browser tab's name after a page's title: "Search · memlens".
APP_NAME = "memlens"


@dataclass(frozen=True)
class PageSpec:
    """One page: its script (relative to the checkout), navigation title and Material icon;
    `default` marks the page served at the app's root URL."""

    script: str
    title: str
    icon: str
    default: bool = False

    @property
    def url_path(self) -> str:
        """The page's name in URLs (its script's name): `search`."""
        return PurePosixPath(self.script).stem

    @property
    def link(self) -> str:
        """The path that opens the page: `/search`; `/` for the default page (Streamlit
        answers its own `url_path` with the default page and an error in the console)."""
        return "/" if self.default else f"/{self.url_path}"

    @property
    def tab_title(self) -> str:
        """What the browser tab shows while the page is open."""
        return f"{self.title} · {APP_NAME}"


PAGES: tuple[PageSpec, ...] = (
    PageSpec("app_pages/overview.py", "Overview", ":material/dashboard:", default=True),
    PageSpec("app_pages/search.py", "Search", ":material/search:"),
    PageSpec("app_pages/ranking_lab.py", "Ranking Lab", ":material/science:"),
    PageSpec("app_pages/export_diff.py", "Export Diff", ":material/difference:"),
    PageSpec("app_pages/curate.py", "Curate", ":material/edit_note:"),
    PageSpec("app_pages/graph.py", "Graph", ":material/hub:"),
    PageSpec("app_pages/map.py", "Map", ":material/scatter_plot:"),
    PageSpec("app_pages/decay.py", "Decay", ":material/hourglass_bottom:"),
    PageSpec("app_pages/agents.py", "Agents", ":material/smart_toy:"),
)
