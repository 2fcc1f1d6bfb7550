"""`MapParams` refuses what UMAP cannot use, naming the value; the sample rule takes each
memory type in proportion to its size, the same rows for the same seed."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from memory_core.model.errors import InvalidMapParamsError, MemlensError
from memory_core.projection import MapParams
from memory_core.projection.sampling import sample_rows, type_quotas


def test_defaults_are_umaps() -> None:
    params = MapParams()
    assert params.to_dict() == {"n_neighbors": 15, "min_dist": 0.1, "seed": 42, "dims": 2,
                                "sample": None}


@pytest.mark.parametrize(("fields", "named"), [
    ({"n_neighbors": 1}, "n_neighbors must be a whole number of at least 2, got 1"),
    ({"n_neighbors": 7.5}, "got 7.5"),
    ({"n_neighbors": True}, "got True"),
    ({"min_dist": -0.1}, "min_dist must be a number from 0 to 1, got -0.1"),
    ({"min_dist": 1.5}, "got 1.5"),
    ({"min_dist": "0.1"}, "got '0.1'"),
    ({"seed": -1}, "seed must be a whole number from 0 to 4294967295, got -1"),
    ({"seed": 2**32}, "got 4294967296"),
    ({"dims": 4}, "dims must be 2 or 3, got 4"),
    ({"sample": 10}, "sample must be a whole number of at least n_neighbors + 1 (16)"),
    ({"sample": 0, "n_neighbors": 5}, "at least n_neighbors + 1 (6)"),
])
def test_bad_params_name_the_value(fields: dict[str, object], named: str) -> None:
    with pytest.raises(InvalidMapParamsError) as caught:
        MapParams(**fields)  # type: ignore[arg-type]
    assert named in str(caught.value)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, MemlensError) and isinstance(caught.value, ValueError)


def test_edges_of_the_ranges_are_allowed() -> None:
    assert MapParams(n_neighbors=2, min_dist=0, seed=0, dims=3, sample=3).min_dist == 0.0
    assert MapParams(min_dist=1, seed=2**32 - 1).min_dist == 1.0


def test_quotas_follow_the_largest_remainders() -> None:
    # 10 memories, a sample of 5: exact shares 2.5, 1.5, 1.0 -> 2, 1, 1 and one place left,
    # which goes to the largest remainder; decision and fact tie at .5, decision comes first
    assert type_quotas({"decision": 5, "fact": 3, "lesson": 2}, 5) == {
        "decision": 3, "fact": 1, "lesson": 1}
    # 7 of 9 memories in three equal types: 7/3 = 2.33 each, one place left, to "a"
    assert type_quotas({"c": 3, "b": 3, "a": 3}, 7) == {"a": 3, "b": 2, "c": 2}
    assert type_quotas({"a": 2, "b": 1}, 10) == {"a": 2, "b": 1}


def test_sample_keeps_the_mix_of_types_and_is_repeatable() -> None:
    types = ["decision"] * 600 + ["fact"] * 300 + ["lesson"] * 100
    rows = sample_rows(types, 100, seed=7)
    assert len(rows) == 100 and len(set(rows.tolist())) == 100
    assert list(rows) == sorted(rows)
    assert Counter(types[i] for i in rows) == {"decision": 60, "fact": 30, "lesson": 10}
    assert np.array_equal(rows, sample_rows(types, 100, seed=7))
    assert not np.array_equal(rows, sample_rows(types, 100, seed=8))


def test_a_sample_as_large_as_the_rows_takes_them_all() -> None:
    assert sample_rows(["a", None, "b"], 3, seed=1).tolist() == [0, 1, 2]
    assert sample_rows(["a", None, "b"], 2, seed=1).shape == (2,)
