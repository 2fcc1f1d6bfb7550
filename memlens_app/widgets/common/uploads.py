"""Uploaded files saved by content, so cached results keyed by their path are found again."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path


def save_upload(name: str, data: bytes, folder: Path | None = None) -> Path:
    """An uploaded file saved under a name derived from its bytes (the same upload, the same
    path, so the cached diff or query set is reused); `name` only lends its suffix."""
    folder = folder or Path(tempfile.gettempdir()) / "memlens-uploads"
    folder.mkdir(parents=True, exist_ok=True)
    suffix = Path(name).suffix or ".ndjson"
    path = folder / f"{hashlib.sha256(data).hexdigest()[:24]}{suffix}"
    if not path.exists():
        path.write_bytes(data)
    return path
