"""The web app's server process that `memlens serve` runs: `python app_server.py run app.py
[streamlit options]`. It starts importing the libraries the pages need in the background
(`memory_core.preload`: LanceDB, then scikit-learn for the Map page), then hands its
arguments to Streamlit's command line, as `python -m streamlit` would. Beside app.py because
it is the app's, not the engine's (which never imports Streamlit)."""

from __future__ import annotations

from memory_core import preload


def main() -> None:
    # Streamlit's command line imported before the preload starts: two threads must not
    # import at once (see memory_core/preload.py); the server it then boots imports none of
    # what the preload does
    from streamlit.web.cli import main as streamlit_main

    preload.start()
    streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    main()
