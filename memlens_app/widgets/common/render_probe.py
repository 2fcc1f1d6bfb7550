"""Time one page's first render in this process with Streamlit's AppTest, and print the
figures as one JSON line: what `memlens bench pages` runs in a fresh process per page.

Not a widget: it drives the app from outside, as the tests in tests/app do, and lives here
because every module of memlens_app/page_scripts/ is a page. Run it as
`python -m memlens_app.widgets.common.render_probe PAGE TIMEOUT` with MEMLENS_STORE, MEMLENS_TENANT
(and MEMLENS_READ_ONLY=1: the bench only reads) set. The libraries and the app's widget
modules are imported, and Streamlit started, before the clock starts (a server process pays
that once, whatever the store), so the first render counts what grows with the store:
opening it, the embedder, every read and chart of the page, with Streamlit's caches empty.
The page is then rendered again (what a visitor's later reruns cost) and the process's peak
resident set is read.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import sys
import time
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "main.py"


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str]) -> None:
    """Render `argv[0]` (a page script relative to memlens_app/, e.g. page_scripts/search.py)
    with a timeout of `argv[1]` seconds per run; print the figures as JSON."""
    page, timeout = argv[0], float(argv[1])
    began = time.perf_counter()
    import lancedb  # noqa: F401  (imported for its cost, see the module docstring)
    import plotly.graph_objects  # noqa: F401
    import polars  # noqa: F401
    from streamlit.testing.v1 import AppTest

    for widget in sorted((APP.parent / "widgets").rglob("*.py")):  # the app's own code
        parts = widget.relative_to(APP.parent.parent).with_suffix("").parts
        importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))

    # AppTest scans every installed package for Streamlit components before its first run
    # (seconds in an environment with hundreds of packages), where a server does it once at
    # start-up: a script of nothing pays it before the clock starts, and the app's test
    # reuses what it found
    warm_up = AppTest.from_string("import streamlit", default_timeout=600).run()
    imports_s = time.perf_counter() - began
    rss_start = _peak_rss_mib()
    app = AppTest.from_file(str(APP), default_timeout=timeout)
    app._bidi_component_manager = warm_up._bidi_component_manager
    app.switch_page(page)
    began = time.perf_counter()
    try:
        app.run()
    except RuntimeError as exc:  # AppTest's timeout: the page is too slow to wait for
        print(json.dumps({"page": page, "imports_s": imports_s,
                          "first_s": time.perf_counter() - began, "again_s": None,
                          "rss_start_mib": rss_start, "peak_rss_mib": _peak_rss_mib(),
                          "header": None, "problems": [str(exc)]}), flush=True)
        os._exit(0)  # the page's script thread still runs: do not wait for it
    first_s = time.perf_counter() - began
    problems = [str(e.value) for e in app.exception] + [str(e.value) for e in app.error]
    began = time.perf_counter()
    app.run()
    again_s = time.perf_counter() - began
    print(json.dumps({
        "page": page, "imports_s": imports_s, "first_s": first_s, "again_s": again_s,
        "rss_start_mib": rss_start, "peak_rss_mib": _peak_rss_mib(),
        "header": app.header[0].value if len(app.header) else None,
        "problems": problems,
    }))


if __name__ == "__main__":
    main(sys.argv[1:])
