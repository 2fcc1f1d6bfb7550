"""What a recall selects: Make_Skills' `record_type` / `project_tag` AND-ed with a `Filter`.

Two filters are AND-ed field by field: value lists intersect, time bounds tighten, tags
become one `all` list when each side asks for a single tag (or all of its tags). An
intersection that is empty selects nothing: `both` returns None and the recall sends nothing.
"""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import datetime
from typing import Any

from memory_core.model.date_range import user_time
from memory_core.model.errors import InvalidFilterError
from memory_core.model.filters import Filter
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore

_LISTS = ("project", "repo", "agent", "session_id", "memory_type", "status", "importance",
          "embedding_status", "ids")


def seed_scope(store: MemoryStore, record_type: str | None, project_tag: str | None) -> Filter:
    """Seed 002's project_tag names a project tag; herd stores keep projects in a column.

    A project_tag that names a project of this tenant selects that project; otherwise it
    selects memories tagged with it.
    """
    if project_tag is None:
        return Filter(memory_type=record_type)
    if store.count(Filter(project=project_tag)):
        return Filter(memory_type=record_type, project=project_tag)
    return Filter(memory_type=record_type, tags=[project_tag])


def _values(value: Any) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _tags(a: Filter, b: Filter) -> tuple[str, ...]:
    for side in (a, b):
        if side.tags_mode != "all" and len(_values(side.tags)) > 1:
            raise InvalidFilterError(
                "tags given both as a project tag and in the filter, with several tags to "
                "match any of; give the tags in one place")
    return tuple(dict.fromkeys(_values(a.tags) + _values(b.tags)))


def _bound(a: datetime | str, b: datetime | str, name: str, later: bool) -> datetime:
    first, second = user_time(a, name), user_time(b, name)
    return max(first, second) if later else min(first, second)


def both(a: Filter, b: Filter | None, tenant: str) -> Filter | None:
    """`a` AND `b` as one filter (None when they can match nothing together).

    >>> both(Filter(memory_type="decision"), Filter(project="herd"), "t").to_dict()
    {'project': 'herd', 'memory_type': 'decision'}
    """
    if b is None:
        return a
    if b.tenant not in (None, tenant):
        raise InvalidFilterError(
            f"a recall reads its store's tenant only, not {shown(b.tenant)}; leave tenant "
            f"unset")
    merged: dict[str, Any] = {}
    for f in fields(Filter):
        mine, theirs = getattr(a, f.name), getattr(b, f.name)
        if mine is None or theirs is None or f.name == "tags_mode":
            continue
        if f.name in _LISTS:
            kept = [v for v in _values(mine) if v in set(_values(theirs))]
            if not kept:
                return None
            merged[f.name] = kept
        elif f.name == "tags":
            merged["tags"], merged["tags_mode"] = list(_tags(a, b)), "all"
        elif f.name in ("created_after", "created_before"):
            merged[f.name] = _bound(mine, theirs, f.name, later=f.name == "created_after")
    start = {f.name: getattr(b, f.name) for f in fields(Filter) if f.name != "tags_mode"
             and getattr(b, f.name) is not None and getattr(a, f.name) is None}
    if b.tags is not None and a.tags is None:
        start["tags_mode"] = b.tags_mode
    return replace(a, **start, **merged)
