"""Read-only mode in the pages: whether the app may write, and the caption that says why not.

The demo-seeding button and the Consolidate tab ask `read_only_notice` first and hide the
control when it returns False (the Curate page's other actions check `store.read_only`
themselves); the engine refuses the write anyway (`ReadOnlyError`), this only keeps the page
from offering it.
"""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.state import launch_settings
from memory_core import MemoryStore, Settings


def read_only_reason() -> str:
    """Why the app is read-only, in a few words: which of the two switches is on."""
    if Settings.from_env().read_only:
        return "MEMLENS_READ_ONLY is set"
    if launch_settings().read_only:
        return "the app was started with --read-only"
    return "the store is open read-only"


def writes_allowed(store: MemoryStore | None) -> bool:
    """Whether the app may write to `store`; `None` is the configured store before it exists
    (which only the launch settings can say)."""
    return not (launch_settings().read_only if store is None else store.read_only)


def read_only_notice(store: MemoryStore | None, what: str = "change the store") -> bool:
    """Whether writes to `store` are allowed; when they are not, a caption saying so and why
    ("read-only: MEMLENS_READ_ONLY is set, so this app cannot seed the demo corpus").

    Call it where the page's write controls go and hide or disable them when it returns
    False.
    """
    if writes_allowed(store):
        return True
    st.caption(f"read-only: {read_only_reason()}, so this app cannot {what}.")
    return False
