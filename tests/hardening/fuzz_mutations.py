"""Hypothesis strategies that break a valid import input the ways that matter (issue 18).

`mutated_json` changes a parsed JSON document: fields dropped, duplicated, retyped, set to
hostile text (lone surrogates, NUL, 200 kB, bad times, unknown enum values) or to deeply
nested arrays; `to_bytes` writes it back as JSON or NDJSON, then `damaged` may truncate it,
splice in invalid UTF-8 or NUL bytes, or empty it. `broken_markdown` does the same for
front-matter files; `broken_table` for the JSON descriptions of LanceDB tables the adapter
tests build (`tests/memory_core/adapters/lance_fixture.py`): columns retyped or dropped,
cells nulled or made hostile; `broken_database` for an mcp-memory-service SQLite database:
its schema changed, cells made hostile, its bytes damaged.
"""

from __future__ import annotations

import copy
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

#: Text that has broken parsers: empty, NUL, lone surrogates (written as `\\ud800` escapes),
#: huge, bad times, unknown enum values, markup, SQL, bidi overrides.
HOSTILE_TEXT: tuple[str, ...] = (
    "", " ", "\x00", "a\x00b", "\ud800", "x\udfffy", "x" * 200_000, "yesterday",
    "2026-13-45T25:61:00Z", "0000-00-00", "-99999-01-01T00:00:00Z", "9" * 40, "NaN",
    "not-a-known-value", "FACT", "<script>alert(1)</script>", "' OR 1=1 --", "\u202eevil",
    "null", "{\"nested\": \"json text\"}", "[1, 2",
)
#: Marks a value replaced by deeply nested arrays once the document is text.
DEEP = "__memlens_fuzz_deep__"
DEPTH = 100_000
HOSTILE_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 2**64, -(2**63) - 1, 1e308, -1e-308, 1.5, [], {}, [None],
    {"": None}, [[[]]], DEEP,
)

hostile = st.sampled_from(HOSTILE_TEXT) | st.sampled_from(HOSTILE_VALUES)
OPS = ("drop", "duplicate", "retype", "retype", "text")


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside `value` (not the root), parents before children."""
    found: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, child in items:
        found.append((*path, key))
        found.extend(_paths(child, (*path, key)))
    return found


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


@st.composite
def mutated_json(draw: st.DrawFn, seed: Any, *, max_changes: int = 3) -> Any:
    """`seed` (a parsed JSON document, left unchanged) with 1 to `max_changes` changes."""
    doc = copy.deepcopy(seed)
    for _ in range(draw(st.integers(1, max_changes))):
        paths = _paths(doc)
        if not paths:
            return copy.deepcopy(draw(hostile))
        path = paths[draw(st.integers(0, len(paths) - 1))]
        parent, key = _parent(doc, path), path[-1]
        op = draw(st.sampled_from(OPS))
        if op == "drop":
            del parent[key]
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "text":
            parent[key] = draw(st.sampled_from(HOSTILE_TEXT))
        else:
            parent[key] = copy.deepcopy(draw(hostile))  # the constants stay as they are
    return doc


def to_bytes(doc: Any, *, lines: bool = False) -> bytes:
    """`doc` as JSON text (`lines`: a list as NDJSON, one value a line); lone surrogates
    become `\\ud800` escapes, `DEEP` becomes arrays nested `DEPTH` deep."""
    if lines and isinstance(doc, list):
        text = "".join(json.dumps(item) + "\n" for item in doc)
    else:
        text = json.dumps(doc, indent=1)
    return text.replace(json.dumps(DEEP), "[" * DEPTH + "]" * DEPTH).encode("ascii")


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` as is (mostly), truncated, emptied, or with invalid UTF-8 or NUL spliced in."""
    how = draw(st.sampled_from(("as is", "as is", "as is", "truncate", "splice", "empty")))
    if how == "as is" or not data:
        return data
    if how == "empty":
        return b""
    at = draw(st.integers(0, len(data) - 1))
    if how == "truncate":
        return data[:at]
    junk = draw(st.sampled_from((b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x00", b"\x80\x80")))
    return data[:at] + junk + data[at:]


FRONT_MATTER_LINES = (
    "status: [accepted, rejected", "date: 2026-99-99", "date: yesterday", "title:",
    "\tbad: indentation", "status: 12", "tags: {a: [b}", "status: not-a-status",
    "superseded-by: [[[[", "- a list item", "date: 2026-01-20T99:00", ": no key",
    "key: \"\\ud800\"", "title: " + "x" * 100_000,
)


@st.composite
def broken_markdown(draw: st.DrawFn, text: str) -> bytes:
    """A decision record with broken front matter, or damaged bytes."""
    lines = text.split("\n")
    how = draw(st.sampled_from(("insert", "insert", "unclosed", "no opener", "body")))
    if how == "unclosed" and lines.count("---") >= 2:
        del lines[lines.index("---", 1)]
    elif how == "no opener" and lines and lines[0] == "---":
        del lines[0]
    elif how == "body":
        lines.append(draw(st.sampled_from(HOSTILE_TEXT)))
    else:
        at = draw(st.integers(1, max(1, min(len(lines) - 1, 8))))
        lines.insert(at, draw(st.sampled_from(FRONT_MATTER_LINES)))
    raw = "\n".join(lines).encode("utf-8", errors="surrogatepass")
    return draw(damaged(raw))


#: Cell values per column type of a table description; "vector[N]" cells are built apart.
CELLS: dict[str, tuple[Any, ...]] = {
    "string": ("", "\x00", "yesterday", "not-a-known-value", "x" * 100_000, "{\"a\": [1",
               "[1, 2]", "2026-13-45T25:61:00Z"),
    "int64": (0, -1, 2**62, -(2**62)),
    "float64": (0.0, -1.0, 1e300, float("nan"), float("inf"), -1e18),
    "timestamp": ("1970-01-01T00:00:00Z", "2262-04-11T00:00:00Z", "1677-09-22T00:00:00Z"),
    "list<string>": ([], [""], ["\x00"], ["a"] * 1000),
}
COLUMN_TYPES = (*CELLS, "vector[8]", "vector[384]")


def _cell(draw: st.DrawFn, kind: str) -> Any:
    vector = re.fullmatch(r"vector\[(\d+)\]", kind)
    if vector:
        size = int(vector.group(1))
        return copy.deepcopy(draw(st.sampled_from(("embed", None, [0.0] * size,
                                                   [float("nan")] * size))))
    return copy.deepcopy(draw(st.sampled_from((None, *CELLS[kind]))))


@st.composite
def broken_table(draw: st.DrawFn, spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of one table description with 1 to 3 changes: a column retyped (its cells
    redrawn) or dropped, or a cell set to null or to a hostile value of its type."""
    spec = copy.deepcopy(spec)
    for _ in range(draw(st.integers(1, 3))):
        columns = spec["columns"]
        if not columns or not spec["rows"]:
            break
        name = draw(st.sampled_from(sorted(columns)))
        how = draw(st.sampled_from(("retype", "drop", "cell", "cell", "null column")))
        if how == "drop":
            del columns[name]
            for row in spec["rows"]:
                row.pop(name, None)
        elif how == "retype":
            columns[name] = draw(st.sampled_from(COLUMN_TYPES))
            for row in spec["rows"]:
                row[name] = _cell(draw, columns[name])
        elif how == "null column":
            for row in spec["rows"]:
                row[name] = None
        else:
            row = draw(st.sampled_from(spec["rows"]))
            row[name] = _cell(draw, columns[name])
    return spec


# -- SQLite ----------------------------------------------------------------------------------

SQL_VALUES = (None, 0, -1, 1.5, 1e308, -1e308, "", "\x00", "yesterday", "x" * 100_000,
              "not-a-known-value", "[1, 2", "{\"a\": 1}", b"\xff\xfe\x00", b"")
SQL_CHANGES = {
    "drop memories": "DROP TABLE memories",
    "drop graph": "DROP TABLE memory_graph",
    "rename memories": "ALTER TABLE memories RENAME TO old_memories",
    "drop content": "DROP INDEX idx_content_hash; ALTER TABLE memories DROP COLUMN content",
    "drop created_at": "DROP INDEX idx_created_at; ALTER TABLE memories DROP COLUMN created_at",
    "drop tags": "ALTER TABLE memories DROP COLUMN tags",
    "no metadata table": "DROP TABLE metadata",
}
MEMORY_COLUMNS = ("content_hash", "content", "tags", "memory_type", "metadata", "created_at",
                  "updated_at", "created_at_iso", "updated_at_iso", "deleted_at")
GRAPH_COLUMNS = ("source_hash", "target_hash", "similarity", "connection_types", "metadata",
                 "created_at", "relationship_type")


@st.composite
def broken_database(draw: st.DrawFn, path: Path, script: str) -> Path:
    """The database `script` builds (mcp-memory-service's golden one) with a schema change,
    hostile cells, or damaged bytes."""
    with sqlite3.connect(path) as conn:
        conn.executescript(script)
        for _ in range(draw(st.integers(1, 3))):
            how = draw(st.sampled_from(("cell", "cell", "graph cell", "schema")))
            if how == "schema":
                try:
                    conn.executescript(draw(st.sampled_from(sorted(SQL_CHANGES.values()))))
                except sqlite3.OperationalError:
                    pass  # the table or column went in an earlier change
                continue
            table, columns = ("memories", MEMORY_COLUMNS) if how == "cell" else \
                ("memory_graph", GRAPH_COLUMNS)
            try:
                conn.execute(f"UPDATE {table} SET {draw(st.sampled_from(columns))} = ? "
                             f"WHERE rowid = ?", (draw(st.sampled_from(SQL_VALUES)),
                                                  draw(st.integers(1, 7))))
            except sqlite3.DatabaseError:
                pass  # a NOT NULL or UNIQUE constraint, or a dropped table
    conn.close()
    raw = path.read_bytes()
    path.write_bytes(draw(damaged(raw)) if draw(st.booleans()) else raw)
    return path
