"""The filter widgets of the Search page, and a one-line summary of the filter they make."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, time

import streamlit as st

from memlens_app.widgets.common.markup import md
from memory_core import (
    IMPORTANCE_TIERS,
    STATUSES,
    Filter,
    FilterChoices,
    MemoryStore,
    visible,
)


def _named(counts: Mapping[str, int]) -> list[str]:
    return sorted(k for k in counts if k != "(none)")


def _day_bound(day: date | None, end: bool) -> datetime | None:
    if day is None:
        return None
    return datetime.combine(day, time.max if end else time.min, UTC)


def filter_panel(store: MemoryStore, choices: FilterChoices, *, key: str = "search",
                 statuses: tuple[str, ...] = ("active",)) -> Filter:
    """The filter widgets (in an expander); returns the `Filter` they describe.

    `choices` (`store_and_choices`) fills the project, agent, type and tag lists, most
    used first for tags; `key` prefixes the widget keys, so each page keeps its own filter;
    `statuses` are the statuses chosen at first (Search: active; Curate: every status)."""
    tags = list(choices.tags)
    with st.expander("Filters"):
        c1, c2, c3 = st.columns(3)
        project = c1.multiselect("Project", _named(choices.by_project), key=f"{key}_project",
                                 format_func=visible)
        agent = c2.multiselect("Agent", _named(choices.by_agent), key=f"{key}_agent",
                               format_func=visible)
        memory_type = c3.multiselect("Type", _named(choices.by_type), key=f"{key}_type",
                                     format_func=visible)
        chosen_tags = c1.multiselect("Tags", tags, key=f"{key}_tags", format_func=visible)
        all_tags = c1.toggle("Match all tags", key=f"{key}_tags_all")
        status = c2.multiselect("Status", STATUSES, default=list(statuses), key=f"{key}_status",
                                help="Archived and superseded memories only when chosen here")
        importance = c3.multiselect("Importance", IMPORTANCE_TIERS, key=f"{key}_importance")
        after = c2.date_input("Created on or after", value=None, key=f"{key}_after")
        before = c3.date_input("Created on or before", value=None, key=f"{key}_before")
    return Filter(
        project=project or None, agent=agent or None, memory_type=memory_type or None,
        tags=chosen_tags or None, tags_mode="all" if all_tags else "any",
        status=status or None, importance=importance or None,
        created_after=_day_bound(after if isinstance(after, date) else None, end=False),
        created_before=_day_bound(before if isinstance(before, date) else None, end=True),
    )


def filter_summary(flt: Filter) -> str:
    """One escaped line naming the filter's fields, for a caption."""
    parts = [f"{k} = {', '.join(v) if isinstance(v, list) else v}"
             for k, v in flt.to_dict().items()]
    return md(" · ".join(parts) or "status = active")
