"""The app's pages as data: the router (memlens_app/main.py) builds its navigation from
`PAGES`, and the browser tests visit each one, so adding a page here adds it to both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: The browser tab's name after a page's title: "Search · memlens".
APP_NAME = "memlens"
#: The app's folder (the installed `memlens_app` package): page scripts are found from here,
#: wherever Streamlit's entry script is (`memlens_app/main.py`, or the checkout's app.py).
APP_DIR = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PageSpec:
    """One page: its script (relative to `APP_DIR`), navigation title and Material icon;
    `default` marks the page served at the app's root URL."""

    script: str
    title: str
    icon: str
    default: bool = False

    @property
    def path(self) -> Path:
        """The page script's file, absolute: what `st.Page` and `st.switch_page` are given,
        so neither depends on which entry script Streamlit runs."""
        return APP_DIR / self.script

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
    PageSpec("page_scripts/overview.py", "Overview", ":material/dashboard:", default=True),
    PageSpec("page_scripts/search.py", "Search", ":material/search:"),
    PageSpec("page_scripts/ranking_lab.py", "Ranking Lab", ":material/science:"),
    PageSpec("page_scripts/export_diff.py", "Export Diff", ":material/difference:"),
    PageSpec("page_scripts/curate.py", "Curate", ":material/edit_note:"),
    PageSpec("page_scripts/graph.py", "Graph", ":material/hub:"),
    PageSpec("page_scripts/map.py", "Map", ":material/scatter_plot:"),
    PageSpec("page_scripts/decay.py", "Decay", ":material/hourglass_bottom:"),
    PageSpec("page_scripts/agents.py", "Agents", ":material/smart_toy:"),
)


def page_path(name: str) -> str:
    """The script of the page named `name` (`"curate"`), for `st.switch_page`."""
    for spec in PAGES:
        if spec.url_path == name:
            return str(spec.path)
    raise ValueError(f"no page {name!r}; the pages are {[s.url_path for s in PAGES]}")
