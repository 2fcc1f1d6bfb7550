"""Queries whose score says more about the query set than the ranking: each one named, and why.

A query that retrieved nothing scores 0 under any ranking; so does one none of whose
relevant memories is in the tenant. Both usually mean the query set was made for another
store, tenant or project, so an evaluation names every such query in one list of
`QueryWarning`s (`RetrievalRun.warnings`, `EvalResult.warnings`, `Comparison.warnings`), with
the reason when it can be told:

* its filter matches no memory of the tenant: it names another tenant (search reads only the
  store's own), or a value no memory has (`project 'zeta'`), or values no memory has together;
* none of its relevant memories is in the tenant.

Reasons echo filter values through `memory_core.model.untrusted.shown`; `QueryWarning.message` does
the same for the qid, so both are safe to print.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Literal

from memory_core.model.filters import Filter
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    from memory_core.evaluation.queryset import Query
    from memory_core.store import MemoryStore

Kind = Literal["empty", "unreachable"]
#: What each kind of warning says about its query.
PROBLEMS: Mapping[str, str] = {
    "empty": "retrieved nothing",
    "unreachable": "has no relevant memory in the tenant",
}
#: Filter fields that are not a condition of their own.
_NOT_CONDITIONS = frozenset({"tenant", "status", "tags_mode"})
_FIELD_WORDS = {"created_after": "created after", "created_before": "created before",
                "ids": "id", "session_id": "session", "memory_type": "type"}


@dataclass(frozen=True)
class QueryWarning:
    """One query that scores 0: it retrieved nothing under a config (`kind="empty"`), or
    none of its relevant memories is in the tenant (`"unreachable"`), whatever the ranking.

    `reason` says why when it can be told ("" otherwise); `configs` names the configs it
    happened under (set by `EvalResult.warnings` and `Comparison.warnings`).
    """

    qid: str
    kind: Kind
    reason: str = ""
    configs: tuple[str, ...] = ()

    @property
    def problem(self) -> str:
        """The kind in words ("retrieved nothing", ...)."""
        return PROBLEMS[self.kind]

    @property
    def message(self) -> str:
        """`'q7' retrieved nothing: <reason>`, the qid escaped and cut like an error value."""
        text = f"{shown(self.qid)} {self.problem}"
        return f"{text}: {self.reason}" if self.reason else text

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json`."""
        return {"qid": self.qid, "kind": self.kind, "problem": self.problem,
                "reason": self.reason, "configs": list(self.configs)}


def _conditions(flt: Filter) -> list[tuple[str, Any]]:
    """(field, value) of every condition `flt` sets besides tenant and status."""
    return [(f.name, getattr(flt, f.name)) for f in fields(Filter)
            if f.name not in _NOT_CONDITIONS and getattr(flt, f.name) is not None]


def _said(name: str, value: Any) -> str:
    """A filter condition in words: `project 'zeta'`, `created after '2030-01-01'`."""
    if isinstance(value, list | tuple):
        value = list(value)
    return f"{_FIELD_WORDS.get(name, name)} {shown(value)}"


def filter_reason(store: MemoryStore, flt: Filter, tenants: Sequence[str] | None = None
                  ) -> str:
    """Why `flt` selects no memory of the store's tenant, or "" when it selects some.

    `tenants` (the store's tenants) may be passed to spare a lookup per query.
    """
    tenant = store.tenant
    if flt.tenant is not None and flt.tenant != tenant:
        known = store.tenants() if tenants is None else tenants
        where = "another tenant" if flt.tenant in known else "a tenant this store does not have"
        return (f"its filter names tenant {shown(flt.tenant)} ({where}); evaluation searches "
                f"tenant {shown(tenant)} only")
    if store.count(flt) > 0:
        return ""
    head = f"its filter matches no memory of tenant {shown(tenant)}"
    scope = Filter(status=flt.status)
    if store.count(scope) == 0:
        return f"{head}: it holds no memory of status {', '.join(scope.statuses())}"
    conditions = _conditions(flt)
    lacking = [_said(name, value) for name, value in conditions
               if store.count(replace(scope, **{name: value}, tags_mode=flt.tags_mode)) == 0]
    if lacking:
        return f"{head}: nothing matches {', nor '.join(lacking)}"
    together = " and ".join(_said(name, value) for name, value in conditions)
    return f"{head}: {together} each match some memories, but none matches all"


def query_warnings(store: MemoryStore, queries: Sequence[Query],
                   ranked: Mapping[str, Sequence[Any]], unreachable: Iterable[str]
                   ) -> tuple[QueryWarning, ...]:
    """The warnings of one run, in query order: every query `ranked` holds nothing for
    (with why), and every `unreachable` one (no relevant memory in the tenant) that did
    retrieve something."""
    missing = set(unreachable)
    tenants: Sequence[str] | None = None
    out = []
    for q in queries:
        if ranked.get(q.qid):
            if q.qid in missing:
                out.append(QueryWarning(q.qid, "unreachable"))
            continue
        tenants = store.tenants() if tenants is None else tenants
        reasons = [filter_reason(store, q.filter, tenants)]
        if q.qid in missing:
            reasons.append(f"none of its relevant memories is in tenant {shown(store.tenant)}")
        out.append(QueryWarning(q.qid, "empty", "; ".join(r for r in reasons if r)))
    return tuple(out)


def merge_warnings(named: Iterable[tuple[str, Sequence[QueryWarning]]],
                   order: Sequence[str] = ()) -> tuple[QueryWarning, ...]:
    """The warnings of several configs (name, warnings) as one list: a warning shared by
    several once, `configs` naming each config it happened under; in the order of the qids
    in `order` (the query set), then of first appearance."""
    merged: dict[tuple[str, Kind, str], list[str]] = {}
    for name, warnings in named:
        for w in warnings:
            merged.setdefault((w.qid, w.kind, w.reason), []).extend(w.configs or (name,))
    position = {qid: i for i, qid in enumerate(order)}
    keys = sorted(merged, key=lambda k: position.get(k[0], len(position)))
    return tuple(QueryWarning(qid, kind, reason, tuple(dict.fromkeys(merged[qid, kind, reason])))
                 for qid, kind, reason in keys)
