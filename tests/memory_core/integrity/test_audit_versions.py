"""The audit against the tables' versions: which version each row says a table reached, and
the rows whose version is gone (worked out by hand from the rows)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memory_core.integrity.audit_versions import claims, lost_problems, lost_writes
from memory_core.model.records import AuditEntry

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def row(n: int, action: str, *, table_version: int | None = None, before: Any = None,
        after: Any = None, targets: tuple[str, ...] = ("m1",)) -> AuditEntry:
    return AuditEntry(id=f"a{n}", at=T0 + timedelta(minutes=n), tenant="default", actor="me",
                      action=action, target_ids=targets, before=before, after=after,
                      table_version=table_version, batch_id=f"b{n}")


def test_each_row_says_which_table_it_saw_at_which_version() -> None:
    assert claims(row(1, "add", table_version=4)) == {"memories": 4}
    assert claims(row(2, "add_edges", table_version=3)) == {"edges": 3}
    curation = row(3, "archive", table_version=7,
                   before={"kind": "memory", "versions": {"memories": 6, "edges": 2,
                                                          "audit": 9}})
    assert claims(curation) == {"memories": 7, "edges": 2}  # the audit's own: not compared
    edge_rows = row(4, "unlink", table_version=5, before={"kind": "edge",
                                                          "versions": {"edges": 4}})
    assert claims(edge_rows) == {"edges": 5}
    assert claims(row(5, "recover", before={"memories": 9}, after={"memories": 10})) == {
        "memories": 10}


def test_a_row_above_the_newest_version_is_a_lost_write() -> None:
    rows = [row(1, "add", table_version=4), row(2, "archive", table_version=6,
                                                targets=("m1", "m2"))]
    lost = lost_writes(rows, {"memories": 5, "edges": 1})
    assert [(w.entry.id, w.table, w.version, w.newest) for w in lost] == [
        ("a2", "memories", 6, 5)]
    [problem] = lost_problems(lost)
    assert problem.kind == "lost" and problem.table == "memories"
    assert problem.what.startswith("the audit records 1 write(s) the table no longer holds: "
                                   "the last, archive at 2026-11-01 00:02:00 UTC, batch b2 "
                                   "(2 records), left it at version 6, but its newest version "
                                   "is 5")


def test_rows_before_the_newest_repair_are_not_held_against_the_tables_again() -> None:
    rows = [row(1, "archive", table_version=6),
            row(2, "repair", before={"versions": {"memories": 6}},
                after={"versions": {"memories": 6}}),
            row(3, "add", table_version=7)]
    assert lost_writes(rows, {"memories": 7}) == []
    assert [w.entry.id for w in lost_writes(rows, {"memories": 6})] == ["a3"]


def test_rows_older_than_one_the_table_holds_are_not_held_against_it() -> None:
    """Audit rows imported from another store carry its versions (here 40): the import's own
    row, newer and held by the table, stops the comparison."""
    rows = [row(1, "archive", table_version=40), row(2, "import", table_version=3),
            row(3, "archive", table_version=5), row(4, "restore", table_version=6)]
    assert lost_writes(rows, {"memories": 6}) == []
    assert [w.entry.id for w in lost_writes(rows, {"memories": 4})] == ["a3", "a4"]
