"""`memlens bench pages`: the first render of the app's pages on a large store.

The command (memory_core/cli/bench.py) runs this module in a subprocess, as
`python -m memlens_app.bench_pages ARGS` (ARGS: `run_pages_bench`'s keyword arguments as one
JSON object): memory_core never imports the app (tests/test_layering.py), so the command
names this module and reads back the one JSON line `main` prints, the figures and their text
lines or the one-line error. Like every module of the app, this one uses only memory_core's
public names: the synthetic store comes from `build_bench_store`, the ratios and verdicts
from `target_line` and `target_figures`.

Target: the Overview and Search pages render first in <= 5 s on a store of a
million memories, on a 2-core machine. Each page is rendered in a fresh Python process by
Streamlit's AppTest (`memlens_app/widgets/common/render_probe.py`, by module name): the
libraries are imported before the clock starts (a server pays that once, whatever the
store) and Streamlit's caches are empty, so the first render counts opening the store,
loading the embedder and every read and chart of the page; a second render shows what
later reruns cost, and the process's peak resident set what the page holds. The store is
opened read-only (MEMLENS_READ_ONLY=1): the bench never writes to it. With `--n` it is the
search benchmark's synthetic store (demo texts recombined, clustered vectors, N/10 edges,
nothing embedded; `memory_core.build_bench_store`), written to a temporary folder and
indexed as `memlens index` leaves it unless `index=False`. The machine's load average is
reported beside the figures: other work on shared cores stretches every one of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memory_core import (
    STATUSES,
    Filter,
    MemlensError,
    MemoryStore,
    Settings,
    build_bench_store,
    index_fix_command,
    index_health,
    target_figures,
    target_line,
)

FIRST_RENDER_TARGET_S = 5.0
#: The pages the target is for; `--page` adds others (their times are reported, no target).
TARGET_PAGES = ("overview", "search")
#: Seconds one render of a page may take before the bench gives up on it.
RENDER_TIMEOUT_S = 900.0
#: Seconds a page's process gets beyond its render timeout (imports, the second render):
#: a page whose work holds Python's lock keeps AppTest from noticing its own timeout.
PROCESS_SLACK_S = 600.0
#: The app's module that renders one page, run in a fresh process per page.
RENDER_PROBE = "memlens_app.widgets.common.render_probe"


def page_names() -> tuple[str, ...]:
    """The app's pages by script name (every module of memlens_app/page_scripts/ is one)."""
    folder = Path(__file__).resolve().parent / "page_scripts"
    return tuple(sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__"))


@dataclass(frozen=True)
class PageRender:
    """One page rendered in a fresh process (seconds, MiB)."""

    page: str
    first_s: float
    #: None when the first render did not finish within the timeout.
    again_s: float | None
    imports_s: float
    rss_start_mib: float
    peak_rss_mib: float
    #: Exceptions and `st.error` lines the page showed (a broken page renders fast).
    problems: tuple[str, ...] = ()

    @property
    def targeted(self) -> bool:
        """Whether the first-render target applies to this page."""
        return self.page in TARGET_PAGES


@dataclass(frozen=True)
class PagesBench:
    """First renders of some pages of the app on one store."""

    uri: str
    tenant: str
    memories: int
    edges: int
    #: What `memlens stats` says of the indexes (None: nothing outgrown).
    index_warning: str | None
    #: 1-minute load average before and after the renders (other work on the cores).
    load_before: float
    load_after: float
    write_s: float | None
    index_s: float | None
    renders: tuple[PageRender, ...]

    def ratios(self) -> dict[str, float]:
        """The first render of each targeted page over the target (<= 1 meets it)."""
        return {r.page: r.first_s / FIRST_RENDER_TARGET_S for r in self.renders if r.targeted}

    def to_dict(self) -> dict[str, Any]:
        """Every figure, its ratio to the target and whether it meets it, as plain data."""
        ratios = self.ratios()
        return {**asdict(self), **target_figures(
            {page: FIRST_RENDER_TARGET_S for page in ratios}, ratios)}

    def lines(self) -> list[str]:
        """The figures as text lines, the targeted pages with their target and ratio."""
        ratios = self.ratios()
        built = ("" if self.write_s is None else
                 f"; written in {self.write_s:.1f} s"
                 + ("" if self.index_s is None else f", indexed in {self.index_s:.1f} s"))
        out = [f"store {self.uri} tenant {self.tenant}: {self.memories} memories, "
               f"{self.edges} edges{built}",
               f"indexes: {self.index_warning or 'current (nothing outgrown)'}",
               f"load average {self.load_before:.1f} before, {self.load_after:.1f} after "
               f"(2 cores here: above 2, other work stretches every figure)"]
        for r in self.renders:
            label = f"{r.page} first render"
            again = "-" if r.again_s is None else f"{r.again_s:.2f} s"
            extra = (f"  again {again}, peak RSS {r.peak_rss_mib:.0f} MiB "
                     f"(imports {r.imports_s:.1f} s, {r.rss_start_mib:.0f} MiB, before)")
            if r.targeted:
                out.append(target_line(label, r.first_s, ratios[r.page],
                                       FIRST_RENDER_TARGET_S, extra=extra))
            else:
                out.append(f"{label:<30}{r.first_s:7.2f} s  (no target){extra}")
            out.extend(f"  problem: {p}" for p in r.problems)
        return out


def render_page(uri: str, tenant: str, page: str, *,
                timeout: float = RENDER_TIMEOUT_S) -> PageRender:
    """Render `page` (a name from `page_names`) on the store in a fresh process. A page
    slower than `timeout` seconds, or whose process dies, is reported as that page's
    problem (the other pages are still rendered)."""
    env = {**os.environ, "MEMLENS_STORE": uri, "MEMLENS_TENANT": tenant,
           "MEMLENS_READ_ONLY": "1"}
    began = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", RENDER_PROBE, f"page_scripts/{page}.py", str(timeout)],
            env=env, capture_output=True, text=True, check=False,
            timeout=timeout + PROCESS_SLACK_S)
    except subprocess.TimeoutExpired:
        return _failed(page, time.perf_counter() - began,
                       f"its process did not end within {timeout + PROCESS_SLACK_S:.0f} s")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return _failed(page, time.perf_counter() - began,
                       f"its process failed: {done.stderr.strip()[-500:]}")
    figures = json.loads(lines[-1])
    return PageRender(page=page, first_s=figures["first_s"], again_s=figures["again_s"],
                      imports_s=figures["imports_s"], rss_start_mib=figures["rss_start_mib"],
                      peak_rss_mib=figures["peak_rss_mib"],
                      problems=tuple(figures["problems"]))


def _failed(page: str, seconds: float, problem: str) -> PageRender:
    """A page whose process gave no figures: the time it ran, and why."""
    return PageRender(page=page, first_s=seconds, again_s=None, imports_s=0.0,
                      rss_start_mib=0.0, peak_rss_mib=0.0, problems=(problem,))


def _store_figures(uri: str, tenant: str, settings: Settings) -> tuple[int, int, str | None]:
    """Memories (any status), active edges and the index warning of the store, read-only."""
    store = MemoryStore.open(uri, tenant=tenant, read_only=True, create=False,
                             check_vectors=False, settings=settings)
    return (store.count(Filter(status=STATUSES)), store.edges.count(),
            index_health(store).warning(index_fix_command(uri, tenant)))


def check_pages(pages: Sequence[str]) -> tuple[str, ...]:
    """`pages` (default: the targeted ones), each a page of the app, in the app's order."""
    known = page_names()
    unknown = [p for p in pages if p not in known]
    if unknown:
        raise ValueError(f"unknown page(s) {', '.join(unknown)}; the pages are: "
                         f"{', '.join(known)}")
    return tuple(pages) or TARGET_PAGES


def run_pages_bench(store_uri: str | None = None, *, tenant: str | None = None,
                    n: int | None = None, index: bool = True, pages: Sequence[str] = (),
                    timeout: float = RENDER_TIMEOUT_S,
                    settings: Settings | None = None) -> PagesBench:
    """Render `pages` once each in a fresh process on the store at `store_uri` (read-only),
    or on a synthetic store of `n` memories built in a temporary folder."""
    if (store_uri is None) == (n is None):
        raise ValueError("give either --store PATH or --n N")
    chosen = check_pages(pages)
    settings = settings or Settings.from_env()
    tenant = tenant or settings.tenant
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        write_s = index_s = None
        if store_uri is None:
            built = build_bench_store(tmp, n or 0, index=index, settings=settings)
            store_uri, write_s, index_s = built.uri, built.write_s, built.index_s
        memories, edges, warning = _store_figures(store_uri, tenant, settings)
        before = os.getloadavg()[0]
        renders = tuple(render_page(store_uri, tenant, page, timeout=timeout)
                        for page in chosen)
        after = os.getloadavg()[0]
    return PagesBench(uri=store_uri, tenant=tenant, memories=memories, edges=edges,
                      index_warning=warning, load_before=before, load_after=after,
                      write_s=write_s, index_s=index_s, renders=renders)


def main(argv: Sequence[str]) -> None:
    """Run the bench with `argv[0]` (a JSON object of `run_pages_bench`'s keyword arguments)
    and print one JSON line: `{"figures": ..., "lines": [...]}`, or `{"error": message,
    "param": the option at fault or null}` for a bad page or a store that cannot be read."""
    kwargs = json.loads(argv[0])
    try:
        check_pages(kwargs.get("pages", ()))
    except ValueError as exc:
        print(json.dumps({"error": str(exc), "param": "--page"}))
        return
    try:
        result = run_pages_bench(**kwargs)
    except (MemlensError, ValueError) as exc:
        print(json.dumps({"error": str(exc), "param": None}))
        return
    print(json.dumps({"figures": result.to_dict(), "lines": result.lines()}, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
