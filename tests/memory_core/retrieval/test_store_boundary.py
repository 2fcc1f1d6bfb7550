"""Retrieval asks the store through its public methods: it never reads the store's LanceDB
tables, its row cache or its speed-up layer (`memory_core.store.accel`), so that layer can
be turned off or changed without retrieval noticing."""

from __future__ import annotations

import ast
from pathlib import Path

import memory_core.retrieval

RETRIEVAL = Path(memory_core.retrieval.__file__).parent
#: Attributes of the store that are its insides, not its API.
INSIDES = frozenset({"tables", "row_cache", "accel"})
ACCEL = "memory_core.store.accel"


def reaches_in(source: str) -> list[str]:
    """What `source` reads of the store's insides: `.tables`, `.row_cache` or `.accel`
    attributes, and imports of `memory_core.store.accel`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in INSIDES:
            found.append(f"line {node.lineno}: .{node.attr}")
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        found += [f"line {node.lineno}: import {n}" for n in dict.fromkeys(names)
                  if n == ACCEL or n.startswith(ACCEL + ".")][:1]
    return found


def test_the_check_sees_what_retrieval_used_to_do() -> None:
    assert reaches_in("held = store.row_cache.holds_now(v)") == ["line 1: .row_cache"]
    assert reaches_in("fts(store.tables.memories)") == ["line 1: .tables"]
    assert reaches_in("from memory_core.store.accel.row_cache import RowCache") == [
        f"line 1: import {ACCEL}.row_cache"]
    assert reaches_in("from memory_core.store import accel") == [f"line 1: import {ACCEL}"]
    assert reaches_in("held = store.queries.held_columns()") == []


def test_retrieval_does_not_reach_into_the_store() -> None:
    modules = sorted(RETRIEVAL.rglob("*.py"))
    assert len(modules) > 10
    found = {str(p.relative_to(RETRIEVAL)): reaches_in(p.read_text()) for p in modules}
    assert {name: hits for name, hits in found.items() if hits} == {}
