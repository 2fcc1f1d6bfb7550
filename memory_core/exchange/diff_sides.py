"""The two sides of a diff as polars frames of canonical lines: kind, id, line.

A side is an export file (any format `memlens import` reads), `live` (the store's tenant now)
or `version:N` (the memories table at LanceDB version N, read through a separate handle so the
store's own stays on the latest; edges are the current ones, and the side says so). Vectors
are left out of every side: a diff is for reading what the agents remember.

For a memlens export of the current schema the lines are taken as written (after checking
the body sha256), so identical records compare as identical bytes without being parsed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.exchange.export import export_filter
from memory_core.exchange.readers import open_source
from memory_core.exchange.store_lines import edge_lines, memory_lines
from memory_core.model.canonical import edge_doc, edge_from_doc, memory_doc, memory_from_doc
from memory_core.model.errors import DiffError, ExportFormatError, MemlensError
from memory_core.model.records import validate_edge, validate_memory
from memory_core.model.schema import normalise_embedding_status
from memory_core.model.untrusted import shown
from memory_core.model.values import canonical_json, content_hash

if TYPE_CHECKING:
    import polars as pl

    from memory_core.store import MemoryStore

LIVE = "live"
VERSION = "version:"
KINDS = ("memory", "edge")
_MEMORY_START, _EDGE_START, _AUDIT_START = '{"access_count":', '{"created_at":', '{"action":'
_ID = r'"id":"((?:[^"\\]|\\.)*)"'
#: A JSON escape of a UTF-16 surrogate; only lines holding one are parsed to check the pair.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


@dataclass(frozen=True)
class DiffSide:
    """One side of a diff: a label, its lines (columns kind, id, line), notes, and the
    tenant it holds (the store's, or the one an export's manifest names; None when a file
    does not say)."""

    label: str
    frame: pl.DataFrame
    notes: tuple[str, ...] = ()
    tenant: str | None = None


def without_vector(line: str) -> str:
    """A canonical memory line with its top-level `vector` left out.

    The last `,"vector":` of a canonical memory line is the top-level key (only `why`, a
    string whose quotes are escaped, follows it), and its value (null or numbers) holds no
    quote, so the next `,"why":` ends it.

    >>> without_vector('{"id":"a","vector":[0.1,2.0],"why":null}')
    '{"id":"a","why":null}'
    """
    at = line.rfind(',"vector":')
    if at < 0:
        return line
    end = line.find(',"why":', at)
    return line[:at] + line[end:] if end > 0 else line[:at] + "}"


def refuse_lone_surrogates(line: str, number: int, path: Path) -> None:
    """Refuse a JSON line whose escapes decode to a lone surrogate (`\\ud800` without its
    pair): not text, it has no UTF-8 spelling and `memlens import` refuses it too. Only a line
    holding such an escape is parsed.

    >>> refuse_lone_surrogates(r'{"content":"a \\ud83d\\ude00 pair"}', 2, Path("x"))
    """
    if not _SURROGATE_ESCAPE.search(line):
        return
    try:
        json.dumps(json.loads(line), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ExportFormatError(
            f"{path}: line {number} holds a lone surrogate (a \\ud800-\\udfff escape "
            f"without its pair), which is not text; fix the program that wrote the file "
            f"(memlens import refuses it too)") from None


def _frame(rows: Iterable[tuple[str, str, str]]) -> pl.DataFrame:
    import polars as pl

    kinds, ids, lines = [], [], []
    for kind, record_id, line in rows:
        kinds.append(kind)
        ids.append(record_id)
        lines.append(line)
    return pl.DataFrame({"kind": kinds, "id": ids, "line": lines},
                        schema={"kind": pl.String, "id": pl.String, "line": pl.String})


def _raw_lines(path: Path, body_sha256: str) -> pl.DataFrame:
    """kind, id, line of a current-schema memlens export, checksum verified."""
    import polars as pl

    digest = hashlib.sha256()
    lines: list[str] = []
    with path.open("rb") as handle:
        handle.readline()
        for number, raw in enumerate(handle, start=2):
            if not raw.endswith(b"\n"):
                raise ExportFormatError(f"{path}: line {number} is incomplete; the file is "
                                        f"truncated")
            digest.update(raw)
            try:
                line = raw[:-1].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ExportFormatError(f"{path}: line {number} is not UTF-8 text") from exc
            refuse_lone_surrogates(line, number, path)
            # only a memory line's top-level vector: an event's metadata may hold a
            # "vector" key too (a recall's per-engine scores)
            lines.append(without_vector(line) if line.startswith(_MEMORY_START) else line)
    if digest.hexdigest() != body_sha256:
        raise ExportFormatError(f"{path}: body sha256 does not match the manifest's; the "
                                f"file is truncated or was edited")
    return _keyed(pl.DataFrame({"line": lines}, schema={"line": pl.String}), path)


def _keyed(frame: pl.DataFrame, path: Path) -> pl.DataFrame:
    """kind and id of canonical lines, without parsing them.

    The first key of a canonical line tells its kind (memory lines start with access_count,
    edge lines with created_at, audit lines with action); the first `"id":"` of a memory or
    edge line is its own id (only scalars, strings and string lists come before it, and
    quotes inside strings are escaped). Other lines are parsed.
    """
    import polars as pl

    line = pl.col("line")
    frame = frame.with_columns(
        kind=pl.when(line.str.starts_with(_MEMORY_START)).then(pl.lit("memory"))
        .when(line.str.starts_with(_EDGE_START)).then(pl.lit("edge"))
        .when(line.str.starts_with(_AUDIT_START)).then(pl.lit("audit"))
        .otherwise(line.str.json_path_match("$.kind")),
        id=line.str.extract(_ID, 1),
        number=pl.int_range(2, frame.height + 2),
    )
    bad = frame.filter(pl.col("kind").is_null() | pl.col("id").is_null())
    if bad.height:
        raise ExportFormatError(f"{path}: line {bad['number'][0]} is not a record with a "
                                f"kind and an id")
    escaped = frame.filter(pl.col("id").str.contains("\\", literal=True))
    if escaped.height:  # ids holding quotes, backslashes or control characters: decode them
        decoded = {raw: json.loads(f'"{raw}"') for raw in escaped["id"].to_list()}
        frame = frame.with_columns(pl.col("id").replace(decoded))
    return frame.filter(pl.col("kind").is_in(KINDS)).select("kind", "id", "line")


def _canonical(kind: str, doc: dict[str, Any]) -> str:
    """A migrated or foreign record in the exact canonical form memlens exports (validated,
    so vocabularies are normalised as an import would)."""
    if kind == "edge":
        return canonical_json(edge_doc(validate_edge(edge_from_doc(doc))))
    status = doc.get("embedding_status")
    memory = memory_from_doc(doc, vector=None, content_hash=content_hash(doc["content"]))
    if isinstance(status, str):
        memory = replace(memory, embedding_status=normalise_embedding_status(status))
    return canonical_json(memory_doc(validate_memory(memory)))


def file_tenant(path: Path | str) -> str | None:
    """The tenant an export file's manifest names, read from its first line; None when the
    file names none or cannot be read as an export (reading it as a side says why)."""
    try:
        return open_source(Path(path)).info.tenant
    except (MemlensError, OSError):
        return None


def file_side(path: Path | str) -> DiffSide:
    """A side from an export file of any format `memlens import` reads."""
    path = Path(path)
    source = open_source(path)
    info = source.info
    if info.format == "memlens" and not info.migrations:
        return DiffSide(str(path), _raw_lines(path, info.body_sha256 or ""),
                        tenant=info.tenant)
    rows = []
    for record in source.records():
        if record.kind in KINDS:
            try:
                rows.append((record.kind, str(record.doc["id"]),
                             _canonical(record.kind, record.doc)))
            except (MemlensError, KeyError, TypeError, ValueError) as exc:
                raise ExportFormatError(f"{path}: line {record.line}: {exc}") from exc
    note = f"{path} read as {info.format} schema_version {info.schema_version}"
    if info.migrations:
        note += f", migrated ({', '.join(info.migrations)})"
    return DiffSide(str(path), _frame(rows), (note,), info.tenant)


def store_side(store: MemoryStore, *, version: int | None = None) -> DiffSide:
    """The store's tenant now, or its memories at table version `version`."""
    if version is not None:
        known = [v.version for v in store.changes.history()]
        if version not in known:
            raise DiffError(f"the memories table of {store.uri} has no version {version}; "
                            f"versions: {known[0]} to {known[-1]}")
    snap = store.snapshot(memories_version=version)
    where = export_filter(None).to_predicate(store.tenant)

    def rows() -> Iterable[tuple[str, str, str]]:
        for memory_id, line in memory_lines(snap, where):
            yield "memory", memory_id, line
        for edge_id, line in edge_lines(snap, store.tenant):
            yield "edge", edge_id, line

    if version is None:
        return DiffSide(LIVE, _frame(rows()), tenant=store.tenant)
    note = (f"version:{version} compares the memories of table version {version}; its edges "
            f"are the current ones (edges version {snap.versions['edges']})")
    return DiffSide(f"{VERSION}{version}", _frame(rows()), (note,), store.tenant)


def load_side(spec: str, store: MemoryStore | None = None) -> DiffSide:
    """A side from its spec: an export path, `live` or `version:N` (those two need `store`).
    """
    if spec == LIVE or spec.startswith(VERSION):
        if store is None:
            raise DiffError(f"the side {shown(spec)} needs a store")
        if spec == LIVE:
            return store_side(store)
        number = spec.removeprefix(VERSION)
        if not number.isdigit():
            raise DiffError(f"{shown(spec)} is not a table version; write it like version:3")
        return store_side(store, version=int(number))
    if not Path(spec).exists():
        raise DiffError(f"there is no export file at {spec}; a side is an export file, "
                        f"`live` or `version:N`")
    return file_side(spec)
