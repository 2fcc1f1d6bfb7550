"""Choosing a side of a diff: an export file, an upload, the live store, or a table version."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from memlens_app.widgets.common.uploads import save_upload
from memory_core import MemoryStore, file_tenant, visible

SOURCES = ("Export file", "Upload", "Live store", "Table version")


@dataclass(frozen=True)
class SidePick:
    """A chosen side: its spec for `load_side`, a label, and a stamp that changes with it."""

    spec: str
    label: str
    stamp: str


def export_files(folder: Path) -> list[Path]:
    """NDJSON exports in `folder`, newest first."""
    if not folder.is_dir():
        return []
    files = [p for p in folder.iterdir() if p.suffix in (".ndjson", ".jsonl") and p.is_file()]
    return sorted(files, key=lambda p: (-p.stat().st_mtime, p.name))


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{stat.st_mtime_ns}/{stat.st_size}"


def side_picker(side: str, store: MemoryStore, folder: Path, default: str) -> SidePick | None:
    """Pick one side of the diff; None until the choice is complete."""
    source = st.radio(f"Side {side}", SOURCES, index=SOURCES.index(default),
                      key=f"diff_source_{side}", horizontal=True)
    if source == "Export file":
        files = export_files(folder)
        if not files:
            st.caption("No exports in this folder yet; create one with `memlens export`:")
            st.text(visible(str(folder)))
            return None
        tenants = {path: file_tenant(path) for path in files}
        # the newest export of this tenant: another tenant's would differ in every record
        own = next((i for i, path in enumerate(files) if tenants[path] == store.tenant), 0)
        chosen = st.selectbox("Export", files, index=own, key=f"diff_file_{side}",
                              format_func=lambda p: visible(f"{p.name} (tenant "
                                                            f"{tenants[p] or '?'})"))
        return SidePick(str(chosen), chosen.name, _stamp(chosen))
    if source == "Upload":
        upload = st.file_uploader("Export file", type=["ndjson", "jsonl"],
                                  key=f"diff_upload_{side}")
        if upload is None:
            return None
        path = save_upload(upload.name, upload.getvalue())
        return SidePick(str(path), upload.name, _stamp(path))
    # The edges table's version is part of the stamp: a side reads both tables.
    edges_version = store.table_versions()["edges"]
    if source == "Live store":
        return SidePick("live", "live store", f"{store.version}/{edges_version}")
    versions = [v.version for v in reversed(store.changes.history())]
    version = st.selectbox("Memories table version", versions, key=f"diff_version_{side}")
    return SidePick(f"version:{version}", f"version {version}", f"{version}/{edges_version}")
