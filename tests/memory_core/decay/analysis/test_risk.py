"""`at_risk`: who falls below the threshold soon, in review order."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory_core.decay.analysis import at_risk
from memory_core.model.errors import InvalidConfigError
from memory_core.model.filters import Filter
from memory_core.store import MemoryStore
from tests.memory_core.decay.analysis.conftest import NOW, aged

# A normal fact with S = 30 crosses 0.5 at 30 / 0.235 * 3 = 382.98 days after creation.
CROSS = 30 / 0.235 * 3


def test_only_those_crossing_within_the_window_most_important_first(
        store: MemoryStore) -> None:
    soon_normal = aged("normal, 10 days left", CROSS - 10, stability=30.0, confidence=0.9)
    sooner_normal = aged("normal, 2 days left", CROSS - 2, stability=30.0, confidence=0.9)
    unsure_normal = aged("normal, unsure", CROSS - 1, stability=30.0, confidence=0.3)
    unknown = aged("normal, no confidence", CROSS - 1, stability=30.0)
    # critical: k = 1.3, crossing at 30 / 0.235 * ((1.3 / 0.5) ** 2 - 1) = 735.32 days
    critical = aged("critical, 20 days left", 30 / 0.235 * (2.6 ** 2 - 1) - 20,
                    importance="critical", stability=30.0, confidence=0.1)
    later = aged("40 days left", CROSS - 40, stability=30.0)
    below = aged("already below", CROSS + 1, stability=30.0)
    rule = aged("never decays", 5000, "principle", importance="constitutional")
    archived = aged("archived, 3 days left", CROSS - 3, stability=30.0, status="archived")
    store.add([soon_normal, sooner_normal, unsure_normal, unknown, critical, later, below,
               rule, archived])
    risky = at_risk(store, within_days=30, as_of=NOW)
    assert risky["id"].to_list() == [critical.id, sooner_normal.id, soon_normal.id,
                                     unsure_normal.id, unknown.id]
    assert risky["days_to_threshold"].to_list()[:3] == pytest.approx([20, 2, 10])
    assert at_risk(store, within_days=30, as_of=NOW, limit=2)["id"].to_list() == [
        critical.id, sooner_normal.id]
    with_archived = at_risk(store, within_days=5, as_of=NOW,
                            filter=Filter(status=["active", "archived"]))
    assert archived.id in with_archived["id"].to_list()
    # a week later, the 2-day one is below and the 40-day one still out of a 30-day window
    week = at_risk(store, within_days=30, as_of=NOW + timedelta(days=7))
    assert sooner_normal.id not in week["id"].to_list()
    assert later.id not in week["id"].to_list()


def test_a_threshold_above_one_never_lists_constitutional(store: MemoryStore) -> None:
    store.add([aged("rule", 10, "principle", importance="constitutional")])
    assert at_risk(store, threshold=1.5, within_days=365, as_of=NOW).height == 0


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"within_days": -1}, "within_days"), ({"limit": 0}, "limit"),
    ({"threshold": 0.0}, "threshold")])
def test_bad_arguments_are_refused(store: MemoryStore, kwargs: dict, match: str) -> None:
    with pytest.raises(InvalidConfigError, match=match):
        at_risk(store, **kwargs)
