"""`config_flags`: the app's Streamlit settings as the flags its server process passes, and
the server's command line (the settings first, so the caller's flags win)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlens_app.config import config_flags
from memlens_app.server import CONFIG, MAIN, streamlit_args
from memory_core import MemlensError


def test_the_checkout_hides_the_developer_toolbar() -> None:
    """What a user of `memlens serve` gets: no Deploy button, no developer menu."""
    flags = config_flags(CONFIG)
    assert flags[flags.index("--client.toolbarMode") + 1] == "viewer"


def test_the_checkout_shows_no_error_details_to_a_viewer() -> None:
    """Issue 42: an unexpected error showed its traceback, code and paths to anyone with the
    page open; "none" (a value Streamlit 1.5x+ accepts) shows a generic message only."""
    import streamlit.config as streamlit_config

    flags = config_flags(CONFIG)
    value = flags[flags.index("--client.showErrorDetails") + 1]
    assert value == "none"
    before = streamlit_config.get_option("client.showErrorDetails")
    try:
        streamlit_config.set_option("client.showErrorDetails", value)
        assert streamlit_config.get_option("client.showErrorDetails") == "none"
    finally:
        streamlit_config.set_option("client.showErrorDetails", before)


def test_every_option_becomes_a_flag_spelt_as_streamlit_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[client]\ntoolbarMode = "minimal"\nshowErrorDetails = false\n'
                    "[server]\nmaxUploadSize = 50\n")
    assert config_flags(path) == ["--client.toolbarMode", "minimal",
                                  "--client.showErrorDetails", "false",
                                  "--server.maxUploadSize", "50"]
    assert config_flags(tmp_path / "missing.toml") == []


@pytest.mark.parametrize("text, says", [
    ("[client\n", "not valid TOML"),
    ('toolbarMode = "viewer"\n', r"'toolbarMode' outside a \[section\]"),
])
def test_a_bad_file_is_one_error_naming_it(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(MemlensError, match=says) as caught:
        config_flags(path)
    assert str(path) in str(caught.value)


def test_the_server_runs_the_app_with_its_settings_before_the_callers() -> None:
    """`memlens serve --port 8600` runs `streamlit run memlens_app/main.py` with the app's
    settings, then the caller's flags (the last of a repeated flag wins)."""
    args = streamlit_args(["--server.port", "8600", "--", "--store", "s"])
    assert args[:2] == ["run", str(MAIN)] and MAIN.is_file()
    assert args[args.index("--client.showErrorDetails") + 1] == "none"
    assert args.index("--client.toolbarMode") < args.index("--server.port")
    assert args[-5:] == ["--server.port", "8600", "--", "--store", "s"]


def test_streamlit_run_app_py_in_a_checkout_reads_the_same_settings() -> None:
    """The checkout's `.streamlit/config.toml` (what `streamlit run app.py` reads) is the
    package's settings file, not a copy that could drift."""
    checkout = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"
    assert checkout.resolve() == CONFIG.resolve()
