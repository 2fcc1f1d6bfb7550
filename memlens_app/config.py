"""The web app's Streamlit settings (`memlens_app/streamlit_config.toml`) as the
`--section.option value` flags its server process (`memlens_app/server.py`) passes to
`streamlit run`.

Streamlit reads that file only from its working directory, and `serve` keeps the user's
(a relative `--store`, MEMLENS_STORES or MEMLENS_MODEL_CACHE keeps its meaning), so the
settings travel as flags instead.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from memory_core import MemlensError


def _flag_value(value: Any) -> str:
    """A TOML value as Streamlit's command line spells it (`true`, not `True`)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def config_flags(path: Path) -> list[str]:
    """`--section.option value` for every option of the Streamlit config file at `path`;
    none when there is no file.

    >>> config_flags(Path("/nonexistent/config.toml"))
    []
    """
    if not path.is_file():
        return []
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MemlensError(f"the web app's settings {path} are not valid TOML ({exc}); fix "
                           f"or delete the file") from None
    flags: list[str] = []
    for section, options in config.items():
        if not isinstance(options, dict):
            raise MemlensError(f"the web app's settings {path} set {section!r} outside a "
                               f"[section]; Streamlit options are `[section]` then "
                               f"`option = value`")
        for option, value in options.items():
            flags += [f"--{section}.{option}", _flag_value(value)]
    return flags
