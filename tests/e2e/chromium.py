"""What the browser tests need, and how to get it: Debian's Chromium (never a download) and
the `playwright` package. Importable without either, so the tests can skip saying so."""

from __future__ import annotations

import importlib.util
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
PLAYWRIGHT_MISSING = ("the `playwright` package is missing: `pip install -e '.[dev]'` (only "
                      "the package; Chromium comes from `apt-get install -y chromium`)")


def missing_browser(chromium: Path = CHROMIUM) -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not chromium.is_file():
        return (f"no Chromium at {chromium}: the browser tests need Debian's (`apt-get "
                f"install -y chromium`, which .ci/run does); no browser is ever downloaded")
    if importlib.util.find_spec("playwright") is None:
        return PLAYWRIGHT_MISSING
    return None
