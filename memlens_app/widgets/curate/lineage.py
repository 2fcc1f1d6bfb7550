"""The Curate page's purge that follows lineage: a "with derived memories" choice on delete
and purge listing every memory derived from the selection with its path and a tick each
(unticked: it stays), and the purge's deletion receipt as a download.

Each tick's key is a digest of the memory's id, so a tick stays with its memory when the
closure grows or shrinks between reruns.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.curate.report import snippet
from memory_core import (
    CurationReport,
    Derived,
    Filter,
    Memory,
    MemoryStore,
    derived_closure,
    make_receipt,
    receipt_text,
)

#: Session-state key of the last purge's receipt: (batch id, file name, JSON text).
RECEIPT = "curate_receipt"
#: How many derived memories get a tick each; more are taken along or left as a whole.
TICKS = 200


def tick_key(memory_id: str) -> str:
    """The session-state key of a derived memory's tick."""
    return "curate_derived_" + hashlib.sha256(memory_id.encode("utf-8")).hexdigest()[:20]


def _path(path: Sequence[str]) -> str:
    return " ← ".join(code(i) for i in path)


def _ids(store: MemoryStore, target: Sequence[str] | Filter) -> list[str]:
    return sorted(store.ids(target)) if isinstance(target, Filter) else list(target)


def derived_picker(store: MemoryStore, target: Sequence[str] | Filter
                   ) -> tuple[str, ...] | None:
    """The "with derived memories" checkbox; when ticked, the derived memories of `target`,
    each with its path and a tick, and the ticked ones' ids (None: the choice is off)."""
    if not st.checkbox("With derived memories", key="curate_with_derived",
                       help="Also remove what was derived from the selection (reflections, "
                            "summaries, insights: the closure over derived_from), in the "
                            "same batch. Untick a memory to keep it."):
        return None
    closure = derived_closure(store, _ids(store, target))
    if not closure:
        st.caption("No memory is derived from the selection.")
        return ()
    rows = store.get_many([d.id for d in closure[:TICKS]])
    st.caption(f"{len(closure)} derived from the selection (a ← b: b is derived from a); "
               f"untick those that should stay.")
    ticked = [d.id for d in closure[:TICKS] if _tick(d, rows.get(d.id))]
    rest = closure[TICKS:]
    if rest and st.checkbox(f"and the other {len(rest)} derived memories",
                            value=True, key="curate_derived_rest"):
        ticked += [d.id for d in rest]
    return tuple(ticked)


def _tick(derived: Derived, row: Memory | None) -> bool:
    kind = f" · {md(row.memory_type)}" if row is not None else ""
    label = f"{md(derived.id)}{kind} · {md(snippet(row))}"
    value = st.checkbox(label, value=True, key=tick_key(derived.id))
    st.caption(f"path: {_path(derived.path)}")
    return value


def paths_of(store: MemoryStore, target: Sequence[str] | Filter,
             ticked: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The paths of the ticked derived memories (read before the purge removes the edges
    that make them)."""
    wanted = set(ticked)
    return {d.id: d.path for d in derived_closure(store, _ids(store, target))
            if d.id in wanted}


def keep_receipt(store: MemoryStore, report: CurationReport,
                 paths: Mapping[str, Sequence[str]] | None) -> None:
    """Make the purge's receipt now and keep it for `receipt_download`."""
    if not report.purged or report.batch_id is None:
        return
    receipt = make_receipt(store, report, paths)
    st.session_state[RECEIPT] = (report.batch_id, f"memlens-receipt-{report.batch_id}.json",
                                 receipt_text(receipt))


def receipt_download(report: CurationReport) -> None:
    """The download of the receipt of the purge `report` (ids, content hashes, checks,
    times; no content), when the page made one."""
    kept = st.session_state.get(RECEIPT)
    if not isinstance(kept, tuple) or kept[0] != report.batch_id:
        return
    _, name, text = kept
    st.download_button("Download the deletion receipt", text, file_name=name,
                       mime="application/json", key="curate_receipt_download",
                       icon=":material/receipt_long:",
                       help="What was erased and how it was verified, without content; "
                            "`memlens verify-deleted --receipt FILE` checks it again later")
