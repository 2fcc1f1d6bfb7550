"""The memories' rows against what they must satisfy: content against its `content_hash`,
vectors against their norm and against a re-embedding of a sample.

Lance keeps no checksum of a page, so bytes zeroed inside a data file can decode into other
values without an error. Two checks catch that in the columns that matter:

- **content**: every row's `content_hash` is `records.content_hash(content)`;
- **vectors**: an embedder that normalises (the median stored norm is 1) gives every vector
  norm 1, so a vector whose norm is off by more than `NORM_TOLERANCE` was changed; and a
  seeded sample of `sample` memories is embedded again, and a stored vector whose cosine to
  its re-embedding is below `COSINE_TOLERANCE` was changed (any embedder).
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_core.model.schema import MEMORIES
from memory_core.model.values import content_hash
from memory_core.store.files.findings import Problem

if TYPE_CHECKING:
    from memory_core.embedding import Embedder

log = logging.getLogger(__name__)

NORM_TOLERANCE = 1e-3
#: A re-embedding of the same text by the same model gives cosine 1 up to float noise
#: (ONNX on another CPU: about 1e-6); changed bytes give far less.
COSINE_TOLERANCE = 0.999
#: Memories re-embedded by default.
DEFAULT_SAMPLE = 64
COLUMNS = ["id", "content", "content_hash", "vector", "embedding_status"]
#: Ids named in a problem line (the rest are counted).
SHOWN_IDS = 3


@dataclass
class _Rows:
    """What one pass over the memories collected, by data file."""

    bad_hash: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    norms: list[tuple[str, str, float]] = field(default_factory=list)  # file, id, norm
    sample: list[tuple[str, str, str, np.ndarray]] = field(default_factory=list)
    seen: int = 0


def _ids(ids: list[str]) -> str:
    head = ", ".join(ids[:SHOWN_IDS])
    return head + (f" and {len(ids) - SHOWN_IDS:,} more" if len(ids) > SHOWN_IDS else "")


def _collect(ds: Any, sample: int, seed: int) -> _Rows:
    rows = _Rows()
    rng = random.Random(seed)
    for fragment in ds.get_fragments():
        files = [f"data/{d.path}" for d in fragment.data_files()]
        # a column added later (a re-embedding's vectors) is in a file after the first
        file, vector_file = files[0], files[-1]
        columns = [c for c in COLUMNS if c in ds.schema.names]
        for batch in fragment.to_batches(columns=columns, batch_size=4096):
            data = batch.to_pydict()
            vectors = data.get("vector") or [None] * batch.num_rows
            for i, memory_id in enumerate(data["id"]):
                text, digest = data["content"][i], data["content_hash"][i]
                if isinstance(text, str) and digest != content_hash(text):
                    rows.bad_hash[file].append(memory_id)
                vector = vectors[i]
                if vector is None or data["embedding_status"][i] != "ok":
                    continue
                array = np.asarray(vector, dtype=np.float32)
                rows.norms.append((vector_file, memory_id, float(np.linalg.norm(array))))
                rows.seen += 1
                item = (vector_file, memory_id, text, array)
                if len(rows.sample) < sample:
                    rows.sample.append(item)
                else:
                    j = rng.randrange(rows.seen)
                    if j < sample:
                        rows.sample[j] = item
    return rows


def _norm_problems(rows: _Rows) -> dict[str, set[str]]:
    """file -> ids whose norm is off, when the stored vectors are normalised."""
    if not rows.norms:
        return {}
    median = float(np.median([n for _, _, n in rows.norms]))
    if abs(median - 1.0) > NORM_TOLERANCE:
        return {}
    out: dict[str, set[str]] = defaultdict(set)
    for file, memory_id, norm in rows.norms:
        if not np.isfinite(norm) or abs(norm - 1.0) > NORM_TOLERANCE:
            out[file].add(memory_id)
    return out


def _reembedded(rows: _Rows, embedder: Embedder) -> dict[str, set[str]]:
    """file -> ids of the sample whose stored vector is far from its re-embedding."""
    picked = [s for s in rows.sample if isinstance(s[2], str)]
    if not picked:
        return {}
    fresh = np.asarray(embedder.embed_batch([s[2] for s in picked]), dtype=np.float32)
    out: dict[str, set[str]] = defaultdict(set)
    for (file, memory_id, _, stored), again in zip(picked, fresh, strict=True):
        denominator = float(np.linalg.norm(stored) * np.linalg.norm(again))
        cosine = float(stored @ again) / denominator if denominator else 0.0
        if not np.isfinite(cosine) or cosine < COSINE_TOLERANCE:
            out[file].add(memory_id)
    return out


def row_problems(ds: Any, *, embedder: Embedder | None, model_id: str, sample: int = DEFAULT_SAMPLE,
                 seed: int = 0) -> tuple[list[Problem], list[str]]:
    """(problems, notes) of the memories dataset `ds` (one version); `embedder` re-embeds
    the sample when it is the model of the stored vectors (else a note says why not)."""
    rows = _collect(ds, sample, seed)
    problems = [Problem(MEMORIES, file, f"{len(ids):,} memories' content does not match its "
                                        f"content_hash ({_ids(ids)}): the bytes changed; "
                                        f"restore them from an export (`memlens import "
                                        f"--mode upsert`)", kind="rows",
                        memory_ids=tuple(ids))
                for file, ids in sorted(rows.bad_hash.items())]
    notes: list[str] = []
    changed = _norm_problems(rows)
    if embedder is None or sample <= 0:
        notes.append("vectors not re-embedded (--sample 0 or no embedder)")
    elif embedder.model_id != model_id:
        notes.append(f"vectors not re-embedded: the store's are from {model_id}, memlens is "
                     f"set to {embedder.model_id}")
    else:
        from memory_core.model.errors import EmbedderUnavailableError

        try:
            for file, ids in _reembedded(rows, embedder).items():
                changed.setdefault(file, set()).update(ids)
        except EmbedderUnavailableError as exc:
            notes.append(f"vectors not re-embedded, the embedder is unavailable: {exc}")
        else:
            notes.append(f"re-embedded a sample of {min(sample, rows.seen)} of "
                         f"{rows.seen:,} vectors")
    for file, id_set in sorted(changed.items()):
        changed_ids = sorted(id_set)
        problems.append(Problem(MEMORIES, file, f"{len(changed_ids):,} vectors changed "
                                                f"({_ids(changed_ids)}): their norm or their "
                                                f"re-embedding differs; `memlens check "
                                                f"--repair` re-embeds them",
                                kind="vector", memory_ids=tuple(changed_ids)))
    return problems, notes
