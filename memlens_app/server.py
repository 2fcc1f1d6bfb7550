"""The web app's server process that `memlens serve` runs: `python -m memlens_app.server
[streamlit options] [-- app options]`. It starts importing the libraries the pages need in
the background (`memlens_app.preload`: LanceDB, then scikit-learn for the Map page), then
runs Streamlit's command line on the app's entry script (`main.py` beside it), as
`streamlit run` would, with the app's settings (`streamlit_config.toml`) as flags before the
caller's, so the caller's win. Part of the app, not the engine (which never imports
Streamlit): `memlens serve` only names this module."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memlens_app import preload
from memlens_app.config import config_flags

APP_DIR = Path(__file__).resolve().parent
#: Streamlit's entry script: the router over the page scripts.
MAIN = APP_DIR / "main.py"
#: The app's Streamlit settings, passed as flags: Streamlit reads a config file only from
#: its working directory, and the server keeps the user's (a relative --store keeps its
#: meaning).
CONFIG = APP_DIR / "streamlit_config.toml"


def streamlit_args(args: Sequence[str]) -> list[str]:
    """The arguments of Streamlit's command line for `args` (this module's own)."""
    return ["run", str(MAIN), *config_flags(CONFIG), *args]


def main(argv: Sequence[str] | None = None) -> None:
    """Preload, then run Streamlit on the app with `argv` (default: this process's)."""
    # Streamlit's command line imported before the preload starts: two threads must not
    # import at once (see memlens_app/preload.py); the server it then boots imports none of
    # what the preload does
    from streamlit.web.cli import main as streamlit_main

    args = streamlit_args(sys.argv[1:] if argv is None else argv)
    preload.start()
    streamlit_main(args=args, prog_name="streamlit")


if __name__ == "__main__":
    main()
