"""`MemoryStore` is one composition: its own methods are the memories' API, every other table
and view is a public part, and no method of the store forwards to a part (a caller uses the
part). A forwarding method or a base class coming back fails here, with its name."""

from __future__ import annotations

import ast
import inspect
import textwrap

from memory_core.store import MemoryStore
from memory_core.store.audit import AuditLog
from memory_core.store.edges import EdgeTable
from memory_core.store.events import EventLog
from memory_core.store.full_text_index import FullTextIndex
from memory_core.store.guard import WriteGuard
from memory_core.store.keys import KeyIndex
from memory_core.store.queries import MemoryQueries
from tests.conftest import FakeEmbedder

#: The store's writes of memories: each takes the write step and hands the body the store's
#: model of the moment (`store/writes.py`), so each does more than forward.
WRITES = frozenset({"add", "upsert", "record_access"})


def forwarding_methods(cls: type) -> list[str]:
    """The methods of `cls` whose whole body (past a docstring, inside any `with`) is one
    `return self.<part>.<method>(...)` or `self.<part>.<method>(...)`."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    found = []
    for node in tree.body[0].body:  # type: ignore[attr-defined]
        if not isinstance(node, ast.FunctionDef):
            continue
        body = [s for s in node.body if not (isinstance(s, ast.Expr)
                                             and isinstance(s.value, ast.Constant))]
        while len(body) == 1 and isinstance(body[0], ast.With):
            body = body[0].body
        if len(body) != 1 or not isinstance(body[0], ast.Return | ast.Expr):
            continue
        call = body[0].value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Attribute)
                and isinstance(call.func.value.value, ast.Name)
                and call.func.value.value.id == "self"):
            found.append(node.name)
    return sorted(found)


def test_the_check_sees_a_forwarding_method() -> None:
    class Forwarder:
        def edges(self) -> object:
            """The edges."""
            return self.part.list()  # type: ignore[attr-defined]

        def writing(self) -> object:
            with self.lock:  # type: ignore[attr-defined]
                return self.part.append(1)  # type: ignore[attr-defined]

        def own(self) -> int:
            return 1

    assert forwarding_methods(Forwarder) == ["edges", "writing"]


def test_no_method_of_the_store_forwards_to_a_part() -> None:
    assert MemoryStore.__bases__ == (object,)
    assert set(forwarding_methods(MemoryStore)) <= WRITES


def test_every_table_is_a_public_part(store_path: str) -> None:
    store = MemoryStore.open(store_path, embedder=FakeEmbedder())
    parts = {"edges": EdgeTable, "audit": AuditLog, "events": EventLog, "keys": KeyIndex,
             "guard": WriteGuard, "fts": FullTextIndex, "queries": MemoryQueries}
    assert {name: type(getattr(store, name)) for name in parts} == parts
    # the methods that used to forward are gone: a caller uses the part
    gone = ["count_edges", "adjacency", "audit_entries", "audit_query", "append_audit",
            "record_events", "content_holder", "interrupted_write", "scratch", "history",
            "session_order", "held_columns", "nearest_in_memory", "fts_settings"]
    assert [name for name in gone if hasattr(store, name)] == []
