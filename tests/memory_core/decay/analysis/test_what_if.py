"""`what_if`: counts below the threshold per horizon and group under two parameter sets."""

from __future__ import annotations

import polars as pl
import pytest

from memory_core.decay import DecayParams
from memory_core.decay.analysis import what_if
from memory_core.model.errors import InvalidConfigError
from memory_core.store import MemoryStore
from tests.memory_core.decay.analysis.conftest import NOW, aged

# A normal memory with S = 30 crosses 0.5 after 382.98 days (30 / 0.235 * 3); with S halved
# after 191.49.


def _counts(frame: pl.DataFrame, group: str) -> list[tuple[int, int, int, int]]:
    rows = frame.filter(pl.col("group") == group).sort("horizon")
    return list(rows.select("horizon", "below_a", "below_b", "delta").iter_rows())


def test_counts_per_horizon_and_group(store: MemoryStore) -> None:
    store.add([
        aged("fact 200 days", 200, "fact", stability=30.0),  # b: below at 0; a: never < 383
        aged("fact 350 days", 350, "fact", stability=30.0),  # a: below from day 33 (> 30)
        aged("thread 100 days", 100, "thread", stability=30.0),  # b: below from day 91.5
        aged("rule", 5000, "principle", importance="constitutional"),
    ])
    result = what_if(store, DecayParams(), DecayParams(stability_scale=0.5), as_of=NOW)
    assert (result.memories, result.horizons, result.threshold) == (4, (0, 30, 90), 0.5)
    frame = result.frame
    assert frame.columns == ["group", "horizon", "below_a", "below_b", "delta"]
    assert frame["group"].unique(maintain_order=True).to_list() == [
        "all", "type:fact", "type:principle", "type:thread", "tier:constitutional",
        "tier:normal"]
    assert _counts(frame, "all") == [(0, 0, 2, 2), (30, 0, 2, 2), (90, 1, 2, 1)]
    assert _counts(frame, "type:fact") == [(0, 0, 2, 2), (30, 0, 2, 2), (90, 1, 2, 1)]
    assert _counts(frame, "type:thread") == [(0, 0, 0, 0), (30, 0, 0, 0), (90, 0, 0, 0)]
    assert _counts(frame, "tier:constitutional") == [(0, 0, 0, 0), (30, 0, 0, 0),
                                                     (90, 0, 0, 0)]
    longer = what_if(store, DecayParams(), DecayParams(stability_scale=0.5), as_of=NOW,
                     horizons=[100, 0])
    assert longer.horizons == (0, 100)
    assert _counts(longer.frame, "type:thread") == [(0, 0, 0, 0), (100, 0, 1, 1)]


def test_an_empty_tenant_has_only_the_all_group(store: MemoryStore) -> None:
    result = what_if(store, DecayParams(), DecayParams(), as_of=NOW)
    assert result.frame.to_dicts() == [
        {"group": "all", "horizon": h, "below_a": 0, "below_b": 0, "delta": 0}
        for h in (0, 30, 90)]


@pytest.mark.parametrize("horizons", [[], [-1], [1.5]])
def test_bad_horizons_are_refused(store: MemoryStore, horizons: list) -> None:
    with pytest.raises(InvalidConfigError, match="horizons must be whole numbers"):
        what_if(store, DecayParams(), DecayParams(), horizons=horizons)
