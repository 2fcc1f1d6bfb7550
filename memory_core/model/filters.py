"""A typed `Filter` over memories, turned into a LanceDB (DataFusion SQL) predicate.

No user string is ever concatenated into SQL: every value passes through `sql_string`, which
validates its type and writes it as a single-quoted literal with quotes doubled, the only
escape DataFusion's string literals have (backslashes are literal characters there).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Literal

from memory_core.model.date_range import user_time
from memory_core.model.errors import InvalidFilterError
from memory_core.model.schema import (
    normalise_embedding_status,
    normalise_importance,
    normalise_memory_type,
    normalise_status,
)
from memory_core.model.untrusted import shown

Values = str | Sequence[str] | None

#: Statuses a filter returns when it does not ask for others.
DEFAULT_STATUSES: tuple[str, ...] = ("active",)


def sql_string(value: object) -> str:
    """`value` as a SQL string literal; anything but `str` (and text that is not Unicode:
    lone surrogates, as undecodable command-line bytes become) is refused.

    >>> sql_string("it's")
    "'it''s'"
    """
    if not isinstance(value, str):
        raise InvalidFilterError(
            f"filter values must be text, got {type(value).__name__} {shown(value)}"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidFilterError(
            f"filter value {shown(value)} is not valid Unicode text (bytes that are not "
            f"UTF-8, from the command line or a file?)"
        ) from None
    return "'" + value.replace("'", "''") + "'"


def _as_tuple(name: str, value: Values) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        items: tuple[Any, ...] = (value,)
    elif isinstance(value, Sequence | set | frozenset):
        items = tuple(value)
    else:
        raise InvalidFilterError(
            f"filter field {name!r} takes text or a list of text, got {type(value).__name__} "
            f"{shown(value)}"
        )
    for item in items:
        if not isinstance(item, str):
            raise InvalidFilterError(
                f"filter field {name!r} takes text values, got {type(item).__name__} {shown(item)}"
            )
    return items or None


#: Values per `IN (...)` list: longer lists are split (`in_chunks`).
IN_CHUNK = 1000


def in_chunks(values: Sequence[str], size: int = IN_CHUNK) -> Iterator[Sequence[str]]:
    """`values` in slices short enough for one `IN (...)` list each."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


def sql_in(column: str, values: Sequence[str]) -> str:
    """`column IN (...)` of `values` as escaped SQL strings (`=` for one value)."""
    if len(values) == 1:
        return f"{column} = {sql_string(values[0])}"
    return f"{column} IN ({', '.join(sql_string(v) for v in values)})"


def sql_time(value: datetime) -> str:
    """`value` as a SQL UTC timestamp literal (a naive datetime is taken as UTC)."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    # digits and separators only: nothing to escape. The year is written with four digits
    # (strftime's %Y writes 999), the only form Lance's SQL reads.
    return f"TIMESTAMP '{value.year:04d}-{value.strftime('%m-%dT%H:%M:%S.%f')}Z'"


@dataclass(frozen=True)
class Filter:
    """What to select. Each text field takes one value or a list (any of them matches).

    `tenant` None means the store's own tenant. `status` None means active only: archived and
    superseded memories are returned only when asked for. `tags` match when the memory has any
    of them (`tags_mode="any"`) or all of them (`"all"`). Times are inclusive bounds on
    `created_at`.

    None means "no restriction"; an empty string does not. In `project`, `repo`, `agent`,
    `session_id`, `tags` and `ids` it is a value like any other and matches the memories
    whose field is exactly "" (records may hold one, and every stored value must stay
    selectable). Where it can match nothing, it is refused (`InvalidFilterError`): `tenant`
    (tenants are never empty), the vocabularies (`memory_type`, `status`, `importance`,
    `embedding_status`) and the time bounds. The CLI refuses every empty option value
    before it gets here: there `--project ""` is an unset shell variable, not a wish.

    >>> Filter(project="herd", memory_type=["decision", "pattern"]).to_predicate("default")
    "tenant = 'default' AND status = 'active' AND project = 'herd' AND memory_type IN \
('decision', 'pattern')"
    """

    tenant: str | None = None
    project: Values = None
    repo: Values = None
    agent: Values = None
    session_id: Values = None
    memory_type: Values = None
    tags: Values = None
    tags_mode: Literal["any", "all"] = "any"
    status: Values = None
    importance: Values = None
    embedding_status: Values = None
    created_after: datetime | str | None = None
    created_before: datetime | str | None = None
    ids: Values = None

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Filter:
        """A filter from a plain dict (query-set lines, JSON); unknown keys are an error."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidFilterError(
                f"unknown filter field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, as JSON-friendly values."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or (f.name == "tags_mode" and value == "any"):
                continue
            if isinstance(value, datetime):
                value = value.isoformat()
            elif not isinstance(value, str):
                value = list(value)
            out[f.name] = value
        return out

    def statuses(self) -> tuple[str, ...]:
        """The statuses this filter selects, normalised."""
        given = _as_tuple("status", self.status)
        if not given:
            return DEFAULT_STATUSES
        try:
            return tuple(normalise_status(s) for s in given)
        except ValueError as exc:
            raise InvalidFilterError(str(exc)) from exc

    def conditions(self, default_tenant: str) -> tuple[Condition, ...]:
        """What a memory must satisfy, one `Condition` per restriction (all must hold):
        `to_predicate` writes them as SQL, `admits` checks rows against them."""
        if self.tenant == "":
            raise InvalidFilterError("tenant is empty; leave it None for the store's tenant")
        tenant = self.tenant if self.tenant is not None else default_tenant
        sql_string(tenant)  # refuses what is not text
        out = [Condition("tenant", "in", (tenant,)), Condition("status", "in", self.statuses())]
        for name in ("project", "repo", "agent", "session_id", "ids"):
            values = _as_tuple(name, getattr(self, name))
            if values:
                out.append(Condition("id" if name == "ids" else name, "in", values))
        normalisers = {
            "memory_type": normalise_memory_type,
            "importance": normalise_importance,
            "embedding_status": normalise_embedding_status,
        }
        for name, normalise in normalisers.items():
            values = _as_tuple(name, getattr(self, name))
            if values:
                try:
                    out.append(Condition(name, "in", tuple(normalise(v) for v in values)))
                except ValueError as exc:
                    raise InvalidFilterError(str(exc)) from exc
        tags = _as_tuple("tags", self.tags)
        if tags:
            if self.tags_mode not in ("any", "all"):
                raise InvalidFilterError(
                    f"tags_mode must be 'any' or 'all', not {shown(self.tags_mode)}"
                )
            out.append(Condition("tags", f"has_{self.tags_mode}", tags))
        for name, op in (("created_after", ">="), ("created_before", "<=")):
            bound = getattr(self, name)
            if isinstance(bound, str) and not bound.strip():
                raise InvalidFilterError(f"{name} is empty; leave it None for no bound")
            if bound is not None:
                out.append(Condition("created_at", op, user_time(bound, name)))
        return tuple(out)

    def to_predicate(self, default_tenant: str) -> str:
        """The SQL predicate selecting exactly the matching memories of one tenant."""
        return " AND ".join(c.sql() for c in self.conditions(default_tenant))

    def columns(self) -> tuple[str, ...]:
        """The columns the filter looks at (what `admits` needs of a row); the tenant and
        the status always.

        >>> Filter(tags=["db"]).columns()
        ('tenant', 'status', 'tags')
        """
        return tuple(dict.fromkeys(c.column for c in self.conditions(default_tenant="any")))

    def admits(self, rows: Sequence[Mapping[str, Any]], default_tenant: str) -> list[bool]:
        """Whether each memory row (column -> value, as Arrow's `to_pylist` gives it) is one
        `to_predicate` selects, decided without a query (SQL's NULLs match nothing).

        >>> Filter(project="herd").admits([{"tenant": "t", "status": "active",
        ...                                 "project": "herd"}, {"tenant": "t"}], "t")
        [True, False]
        """
        conditions = self.conditions(default_tenant)
        return [all(c.holds(row.get(c.column)) for c in conditions) for row in rows]


@dataclass(frozen=True)
class Condition:
    """One restriction of a `Filter` on one column: `in` (any of `value`), `has_any` /
    `has_all` (a list column holding any / all of `value`), or `>=` / `<=` a time."""

    column: str
    op: str
    value: Any

    def sql(self) -> str:
        """The condition in DataFusion SQL, every value escaped.

        >>> Condition("tags", "has_any", ("a", "b")).sql()
        "array_has_any(tags, ['a', 'b'])"
        """
        if self.op == "in":
            return sql_in(self.column, self.value)
        if self.op in ("has_any", "has_all"):
            listed = ", ".join(sql_string(t) for t in self.value)
            return f"array_{self.op}({self.column}, [{listed}])"
        return f"{self.column} {self.op} {sql_time(self.value)}"

    @cached_property
    def _values(self) -> frozenset[Any]:
        return frozenset(self.value)

    def holds(self, value: Any) -> bool:
        """Whether a row's `value` of the column satisfies it (None, SQL's NULL, never
        does)."""
        if value is None:
            return False
        if self.op == "in":
            return value in self._values
        if self.op == "has_any":
            return any(v in self._values for v in value)
        if self.op == "has_all":
            return all(v in value for v in self.value)
        bound = self.value
        when = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return bool(when >= bound if self.op == ">=" else when <= bound)
