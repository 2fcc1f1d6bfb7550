"""`diff`: what changed between two sides (exports, the live store, table versions).

Both sides are polars frames of canonical lines (see `diff_sides`); a full join on
(kind, id) splits them into added (only in B), removed (only in A) and present in both.
Canonical lines of equal records are equal bytes, so only pairs whose lines differ are
parsed, and compared field by field (metadata key by key, as `metadata.KEY`), leaving out
the `ignore`d fields: pairs that differ only there count as unchanged. The cost is one join
plus work proportional to the number of differing records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory_core.exchange.diff_sides import KINDS, DiffSide
from memory_core.model.columns import names
from memory_core.model.errors import DiffError
from memory_core.model.records import Edge, Memory
from memory_core.model.untrusted import shown
from memory_core.model.values import canonical_json

if TYPE_CHECKING:
    import polars as pl

#: The fields a diff compares (the record columns; vectors are not part of an export).
MEMORY_FIELDS = names(Memory, exclude=("vector",))
EDGE_FIELDS = names(Edge)
BREAKDOWNS = ("memory_type", "project", "agent", "relation")
CHANGES = ("added", "removed", "changed")


@dataclass(frozen=True)
class KindCounts:
    """Records of one kind by outcome."""

    added: int
    removed: int
    changed: int
    unchanged: int


@dataclass(frozen=True)
class DiffResult:
    """Added, removed and changed records between side `a` and side `b`.

    `records`: one row per added/removed/changed record (kind, id, change, memory_type,
    project, agent, relation, fields, old, new: the canonical lines). `fields`: one row per
    changed field (kind, id, field, old, new as JSON text). `tenants`: the tenant of A and
    of B (None for a file that does not say).
    """

    a: str
    b: str
    counts: Mapping[str, KindCounts]
    records: pl.DataFrame
    fields: pl.DataFrame
    ignored: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    tenants: tuple[str | None, str | None] = (None, None)

    @property
    def identical(self) -> bool:
        return self.records.height == 0

    @property
    def tenant_mismatch(self) -> str | None:
        """A warning when A and B hold different tenants (None when they hold the same one
        or a side does not say): a tenant's records cannot match another's, so the diff
        lists them as removed and added."""
        a, b = self.tenants
        if a is None or b is None or a == b:
            return None
        return (f"the two sides hold different tenants: A is tenant {shown(a)}, B is tenant "
                f"{shown(b)}; their records show as removed and added, not compared")

    def to_frame(self) -> pl.DataFrame:
        """The changed records without their full lines (for tables)."""
        return self.records.drop("old", "new")

    def breakdown(self, by: str = "memory_type", *, kind: str = "memory") -> pl.DataFrame:
        """value, added, removed, changed of one kind by `by`, largest first."""
        import polars as pl

        if by not in BREAKDOWNS:
            raise DiffError(f"cannot break a diff down by {shown(by)}; use one of "
                            f"{', '.join(BREAKDOWNS)}")
        part = self.records.filter(pl.col("kind") == kind).with_columns(
            value=pl.col(by).fill_null("(none)"))
        out = part.pivot(on="change", index="value", values="id", aggregate_function="len")
        for change in CHANGES:
            if change not in out.columns:
                out = out.with_columns(pl.lit(0, pl.UInt32).alias(change))
        out = out.select("value", *CHANGES).fill_null(0)
        return out.sort(pl.sum_horizontal(*CHANGES), "value", descending=[True, False])

    def docs(self, kind: str, record_id: str) -> tuple[dict[str, Any] | None,
                                                       dict[str, Any] | None]:
        """The record as it is in A and in B (None where absent)."""
        import polars as pl

        row = self.records.filter((pl.col("kind") == kind) & (pl.col("id") == record_id))
        if not row.height:
            raise DiffError(f"{kind} {shown(record_id)} did not change between the two sides")
        old, new = row["old"][0], row["new"][0]
        return (json.loads(old) if old else None, json.loads(new) if new else None)

    def side_by_side(self, kind: str, record_id: str) -> pl.DataFrame:
        """field, a, b (JSON text) and changed, for one record."""
        import polars as pl

        old, new = self.docs(kind, record_id)
        flat_a, flat_b = _flatten(old or {}), _flatten(new or {})
        rows = [{"field": name, "a": flat_a.get(name), "b": flat_b.get(name),
                 "changed": flat_a.get(name) != flat_b.get(name)}
                for name in sorted(set(flat_a) | set(flat_b), key=_field_order)]
        return pl.DataFrame(rows, schema={"field": pl.String, "a": pl.String, "b": pl.String,
                                          "changed": pl.Boolean})

    def to_dict(self, *, limit: int | None = None) -> dict[str, Any]:
        """JSON-friendly form: counts, breakdowns and (up to `limit`) changes."""
        fields: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in self.fields.iter_rows(named=True):
            fields.setdefault((row["kind"], row["id"]), []).append(
                {"field": row["field"], "old": row["old"], "new": row["new"]})
        changes = [{"kind": r["kind"], "id": r["id"], "change": r["change"],
                    "fields": fields.get((r["kind"], r["id"]), [])}
                   for r in _head(self.to_frame(), limit).iter_rows(named=True)]
        return {
            "a": self.a, "b": self.b, "identical": self.identical,
            "tenants": {"a": self.tenants[0], "b": self.tenants[1]},
            "ignored": list(self.ignored), "notes": list(self.notes),
            "counts": {k: vars(c) for k, c in self.counts.items()},
            "by": {by: self.breakdown(by, kind="edge" if by == "relation" else "memory")
                   .to_dicts() for by in BREAKDOWNS},
            "changes": changes,
        }


def _head(frame: pl.DataFrame, limit: int | None) -> pl.DataFrame:
    return frame if limit is None else frame.head(limit)


def _field_order(name: str) -> tuple[int, str]:
    return (1 if name.startswith("metadata.") else 0, name)


def _flatten(doc: Mapping[str, Any]) -> dict[str, str]:
    """Field -> canonical JSON text; metadata split into `metadata.KEY`; kind/vector left out."""
    out = {}
    for key, value in doc.items():
        if key in ("kind", "vector"):
            continue
        if key == "metadata" and isinstance(value, dict):
            out.update({f"metadata.{k}": canonical_json(v) for k, v in value.items()})
        else:
            out[key] = canonical_json(value)
    return out


def check_ignore(ignore: Iterable[str]) -> tuple[str, ...]:
    """The fields to ignore, checked against the fields records have."""
    known = set(MEMORY_FIELDS) | set(EDGE_FIELDS)
    fields = tuple(dict.fromkeys(ignore))
    for name in fields:
        if name not in known and not (name.startswith("metadata.") and len(name) > 9):
            raise DiffError(f"unknown field {shown(name)} to ignore; fields: "
                            f"{', '.join(sorted(known))}, or metadata.KEY")
    return fields


def field_changes(old: Mapping[str, Any], new: Mapping[str, Any],
                  ignore: Iterable[str] = ()) -> list[tuple[str, str | None, str | None]]:
    """(field, old, new) of every field whose canonical JSON differs, `ignore`d ones (and,
    for `metadata`, all its keys) left out.

    >>> field_changes({"content": "a", "tags": []}, {"content": "b", "tags": []})
    [('content', '"a"', '"b"')]
    """
    skip = set(ignore)
    a, b = _flatten(old), _flatten(new)
    out = []
    for name in sorted(set(a) | set(b), key=_field_order):
        if name in skip or ("metadata" in skip and name.startswith("metadata.")):
            continue
        if a.get(name) != b.get(name):
            out.append((name, a.get(name), b.get(name)))
    return out


def diff_sides(a: DiffSide, b: DiffSide, *, ignore: Iterable[str] = ()) -> DiffResult:
    """Compare two sides; see the module doc."""
    import polars as pl

    ignored = check_ignore(ignore)
    joined = a.frame.join(b.frame, on=["kind", "id"], how="full", coalesce=True,
                          suffix="_b").rename({"line": "old", "line_b": "new"})
    added = joined.filter(pl.col("old").is_null()).with_columns(change=pl.lit("added"))
    removed = joined.filter(pl.col("new").is_null()).with_columns(change=pl.lit("removed"))
    both = joined.filter(pl.col("old").is_not_null() & pl.col("new").is_not_null())
    differ = both.filter(pl.col("old") != pl.col("new"))
    field_rows: list[dict[str, Any]] = []
    changed_keys: list[tuple[str, str, list[str]]] = []
    for kind, record_id, old, new in differ.select("kind", "id", "old", "new").iter_rows():
        changes = field_changes(json.loads(old), json.loads(new), ignored)
        if changes:
            changed_keys.append((kind, record_id, [name for name, _, _ in changes]))
            field_rows += [{"kind": kind, "id": record_id, "field": name, "old": o, "new": n}
                           for name, o, n in changes]
    changed_frame = pl.DataFrame(
        changed_keys, schema={"kind": pl.String, "id": pl.String, "fields": pl.List(pl.String)},
        orient="row")
    changed = differ.join(changed_frame, on=["kind", "id"]).with_columns(
        change=pl.lit("changed"))
    empty = pl.lit([], pl.List(pl.String))
    records = pl.concat([added.with_columns(fields=empty), removed.with_columns(fields=empty),
                         changed.select(*added.columns, "fields")], how="vertical")
    line = pl.coalesce("new", "old")
    records = records.with_columns(
        [line.str.json_path_match(f"$.{name}").alias(name) for name in BREAKDOWNS]
    ).select("kind", "id", "change", *BREAKDOWNS, "fields", "old", "new").sort("kind", "id")
    counts = {}
    for kind in KINDS:
        def n(frame: pl.DataFrame, kind: str = kind) -> int:
            return frame.filter(pl.col("kind") == kind).height
        counts[kind] = KindCounts(n(added), n(removed), n(changed), n(both) - n(changed))
    fields = pl.DataFrame(field_rows, schema={"kind": pl.String, "id": pl.String,
                                              "field": pl.String, "old": pl.String,
                                              "new": pl.String})
    return DiffResult(a.label, b.label, counts, records, fields, ignored, a.notes + b.notes,
                      (a.tenant, b.tenant))
