"""A small store built once per module with the fake embedder, and the ways to damage a
copy of it that issue 42 reproduced (a data file deleted or truncated, a manifest truncated
or deleted, index files deleted, bytes zeroed inside a data file).

The base store: 120 memories, the full-text index, 6 edges, a recall (3 events), then an
archive of 24 memories: the archive is the memories table's newest version.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from memory_core.curation import archive
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

WORDS = "alpha beta gamma deploy server cache lance vector index memory agent build".split()
MEMORIES, ARCHIVED = 120, 24


def build_base(path: Path) -> dict[str, list[str]]:
    """Write the base store at `path`; returns the ids of all and of the archived memories."""
    store = MemoryStore.open(str(path), embedder=FakeEmbedder(), tenant="default")
    rng = np.random.default_rng(0)
    memories = [Memory.new(" ".join(rng.choice(WORDS, 10)) + f" n{i}",
                           project="old" if i % 5 == 0 else "web") for i in range(MEMORIES)]
    store.add(memories)
    store.fts.ensure()
    ids = [m.id for m in memories]
    store.edges.add([Edge.new(ids[i], ids[i + 1], "caused") for i in range(1, 31, 5)])
    store.record_access(ids[1:4], query="deploy")
    report = archive(store, Filter(project=("old",)), reason="old project")
    return {"all": ids, "archived": list(report.memory_ids)}


def table(store: Path, name: str) -> Path:
    return store / f"{name}.lance"


def newest_manifest(store: Path, name: str) -> Path:
    """The newest version's manifest (V2 names count down: the smallest number)."""
    return min((table(store, name) / "_versions").glob("*.manifest"), key=lambda p: int(p.stem))


def newest_data_file(store: Path, name: str) -> Path:
    return max((table(store, name) / "data").glob("*.lance"), key=lambda p: p.stat().st_mtime)


def truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def zero_vectors(store: Path, count: int = 32) -> int:
    """Zero the bytes of `count` stored vectors inside the memories' biggest data file (a
    disk zeroing a run of bytes): Lance decodes them as zero vectors, with no error. Returns
    the offset zeroed at."""
    import lance

    ds = lance.dataset(str(table(store, "memories")))
    fragment = max(ds.get_fragments(), key=lambda f: f.count_rows())
    vector = np.asarray(fragment.to_table(columns=["vector"])["vector"][0].as_py(),
                        dtype=np.float32)
    path = table(store, "memories") / "data" / fragment.data_files()[0].path
    data = path.read_bytes()
    at = data.find(vector.tobytes())
    assert at > 0, "the vector's bytes are not stored plainly"
    with open(path, "r+b") as fh:
        fh.seek(at)
        fh.write(b"\0" * (vector.nbytes * count))
    return at


def _remove_fts(store: Path) -> None:
    for folder in (table(store, "memories") / "_indices").iterdir():
        shutil.rmtree(folder)


#: name -> what it does to a store folder (the damage kinds of issue 42 items 2 and 16)
DAMAGE: dict[str, Callable[[Path], object]] = {
    "memories data file deleted": lambda s: newest_data_file(s, "memories").unlink(),
    "memories data file truncated": lambda s: truncate(newest_data_file(s, "memories")),
    "memories manifest truncated": lambda s: truncate(newest_manifest(s, "memories")),
    "edges data file deleted": lambda s: newest_data_file(s, "edges").unlink(),
    "audit manifest truncated": lambda s: truncate(newest_manifest(s, "audit")),
    "full-text index deleted": _remove_fts,
    "vectors zeroed": zero_vectors,
    "newest memories manifest deleted": lambda s: newest_manifest(s, "memories").unlink(),
}
#: the table each damage kind is in
TABLE_OF = {"memories data file deleted": "memories", "memories data file truncated": "memories",
            "memories manifest truncated": "memories", "edges data file deleted": "edges",
            "audit manifest truncated": "audit", "full-text index deleted": "memories",
            "vectors zeroed": "memories", "newest memories manifest deleted": "memories"}


def damaged_copy(base: Path, into: Path, kind: str) -> Path:
    """A copy of the store `base` at `into`, damaged by `kind`; returns its folder."""
    shutil.copytree(base, into)
    DAMAGE[kind](into)
    return into


def change_content(store: Path) -> str:
    """Overwrite one letter of a stored content in place (same length: it still decodes);
    returns the content as it was."""
    import lance

    ds = lance.dataset(str(table(store, "memories")))
    fragment = max(ds.get_fragments(), key=lambda f: f.count_rows())
    content = fragment.to_table(columns=["content"])["content"][5].as_py()
    path = table(store, "memories") / "data" / fragment.data_files()[0].path
    data = path.read_bytes()
    at = data.find(content.encode())
    assert at > 0, "the content's bytes are not stored plainly"
    with open(path, "r+b") as fh:
        fh.seek(at)
        fh.write(b"X")
    return str(content)
