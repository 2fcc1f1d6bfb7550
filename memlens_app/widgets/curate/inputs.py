"""The Curate page's action picker and each action's inputs, read into a `Request`: which
engine action to run, on what, with which arguments (compared to tell a stale preview)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import streamlit as st

from memlens_app.widgets.common.state import get_choices
from memlens_app.widgets.curate.lineage import derived_picker, paths_of
from memlens_app.widgets.curate.report import snippet
from memory_core import (
    IMPORTANCE_TIERS,
    MEMORY_TYPES,
    CurationReport,
    Filter,
    Memory,
    MemoryStore,
    archive,
    delete,
    edit,
    merge,
    restore,
    supersede,
    visible,
)

ACTIONS: dict[str, Callable[..., CurationReport]] = {
    "archive": archive, "restore": restore, "edit": edit, "supersede": supersede,
    "merge": merge, "delete": delete, "purge": partial(delete, purge=True),
}
LABELS = {"archive": "Archive", "restore": "Restore", "edit": "Edit", "supersede": "Supersede",
          "merge": "Merge", "delete": "Delete", "purge": "Purge (hard delete)"}
#: Actions over any number of memories, which may also take every match of the filter.
BULK = ("archive", "restore", "delete", "purge")
#: Text fields an edit offers; empty text clears the field.
_OPTIONAL_TEXT = {"why": "Why", "project": "Project", "agent": "Agent"}


@dataclass(frozen=True)
class Request:
    """One curation action as the inputs describe it, for the store and tenant `where`."""

    where: tuple[str, str]
    action: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()

    def call(self, store: MemoryStore, **extra: Any) -> CurationReport:
        """Run the action (`dry_run=True`: its preview; `expect=`: the confirmation)."""
        return ACTIONS[self.action](store, *self.args, **dict(self.kwargs), **extra)

    def derived_paths(self, store: MemoryStore) -> dict[str, tuple[str, ...]] | None:
        """The paths of the derived memories a delete takes along (None: it takes none)."""
        ticked = dict(self.kwargs).get("with_derived")
        return paths_of(store, self.args[0], ticked) if ticked else None


def _edit_changes(store: MemoryStore, memory: Memory) -> dict[str, Any]:
    """The edit form, prefilled with `memory`; the fields the user changed."""
    key = f"curate_edit_{memory.id}_"
    content = st.text_area("Content", memory.content, key=key + "content", height=110)
    c1, c2 = st.columns(2)
    types = sorted({*MEMORY_TYPES, memory.memory_type})
    memory_type = c1.selectbox("Type", types, index=types.index(memory.memory_type),
                               key=key + "type", format_func=visible)
    tiers = list(dict.fromkeys([*IMPORTANCE_TIERS, memory.importance]))
    importance = c2.selectbox("Importance", tiers, index=tiers.index(memory.importance),
                              key=key + "importance", format_func=visible)
    known = get_choices(store.uri, store.tenant, store.version).tags
    tags = st.multiselect("Tags", list(dict.fromkeys([*memory.tags, *known])),
                          default=list(memory.tags), accept_new_options=True,
                          key=key + "tags", format_func=visible)
    cols = st.columns(len(_OPTIONAL_TEXT))
    texts = {name: col.text_input(label, getattr(memory, name) or "", key=key + name).strip()
             for col, (name, label) in zip(cols, _OPTIONAL_TEXT.items(), strict=True)}
    values: dict[str, Any] = {"content": content, "memory_type": memory_type,
                              "importance": importance, "tags": tuple(tags),
                              **{name: text or None for name, text in texts.items()}}
    return {name: value for name, value in values.items()
            if value != getattr(memory, name)}


def _one(ids: Sequence[str], action: str) -> str | None:
    if len(ids) != 1:
        st.caption(f"{LABELS[action]} works on one memory: select exactly one row "
                   f"({len(ids)} selected).")
        return None
    return ids[0]


def _supersede_kwargs() -> dict[str, Any] | None:
    mode = st.radio("Replace it with", ["content", "by"], horizontal=True,
                    key="curate_supersede_mode",
                    format_func={"content": "New content", "by": "An existing memory"}.get)
    if mode == "content":
        text = st.text_area("New content", key="curate_supersede_content", height=90)
        return {"content": text} if text.strip() else None
    by = st.text_input("Id of the memory that replaces it", key="curate_supersede_by").strip()
    return {"by": by} if by else None


def read_request(store: MemoryStore, action: str, ids: Sequence[str],
                 listed: Mapping[str, Memory], everything: Filter | None,
                 matching: int) -> Request | None:
    """The inputs of `action` over the selected `ids` (or every memory `everything`
    matches); None, with a caption saying what is missing, when it cannot run yet."""
    where = (store.uri, store.tenant)
    kwargs: dict[str, Any] = {}
    args: tuple[Any, ...]
    if action in BULK:
        target: Sequence[str] | Filter = tuple(ids)
        if everything is not None and st.toggle(
                f"All {matching} matching the filter", key="curate_everything",
                help="Act on every memory the filter matches (not only the rows listed and "
                     "selected in the table)"):
            target = everything
        elif not ids:
            st.caption("Select memories in the table (the checkbox left of each row).")
            return None
        args = (target,)
        if action in ("delete", "purge"):
            ticked = derived_picker(store, target)
            if ticked is not None:
                kwargs["with_derived"] = ticked
    elif action in ("edit", "supersede"):
        one = _one(ids, action)
        if one is None:
            return None
        args = (one,)
        found = (_edit_changes(store, listed[one]) if action == "edit"
                 else _supersede_kwargs())
        if not found:
            st.caption("Change a field to preview the edit." if action == "edit" else
                       "Give the new content, or the id of the memory that replaces it.")
            return None
        kwargs.update(found)
        if action == "edit" and "content" in found:
            kwargs["allow_duplicate"] = st.checkbox(
                "Allow content another memory already holds", key="curate_allow_duplicate")
    else:  # merge
        if len(ids) < 2:
            st.caption(f"Merge needs two or more memories ({len(ids)} selected).")
            return None
        survivor = st.selectbox("Survivor (the others are folded into it and superseded)",
                                list(ids), key="curate_survivor",
                                format_func=lambda i: f"{visible(i)} · {snippet(listed.get(i))}")
        args = (tuple(ids), survivor)
    reason = st.text_input("Reason (kept in the audit log)", key="curate_reason").strip()
    if reason:
        kwargs["reason"] = reason
    return Request(where, action, args, tuple(sorted(kwargs.items())))
