"""The closed form of the threshold day and the retrievability curves, against hand-worked
values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from memory_core.decay import DecayParams
from memory_core.decay.analysis import r_curves, threshold_days
from memory_core.decay.analysis.curves import threshold_days_array
from memory_core.model.errors import InvalidConfigError


def test_threshold_day_solves_k_times_r_for_the_threshold() -> None:
    assert threshold_days(1.0, 30.0, 0.5) == pytest.approx(30 / 0.235 * ((1 / 0.5) ** 2 - 1))
    assert threshold_days(1.3 * 1.1, 120.0, 0.6, 0.3) == pytest.approx(
        120 / 0.3 * ((1.3 * 1.1 / 0.6) ** 2 - 1))
    # at that day the composite is exactly the threshold
    day = threshold_days(1.2, 45.0, 0.7)
    assert 1.2 * (1 + 0.235 * day / 45.0) ** -0.5 == pytest.approx(0.7)


def test_threshold_day_is_zero_when_already_below_and_inf_when_s_is() -> None:
    assert threshold_days(0.4, 30.0, 0.5) == 0.0
    assert threshold_days(0.5, 30.0, 0.5) == 0.0
    assert threshold_days(1.0, math.inf, 0.5) == math.inf
    assert threshold_days(1.0, 30.0, 0.5, 0.0) == math.inf  # R stays 1


def test_the_array_form_is_element_wise() -> None:
    out = threshold_days_array(np.array([1.0, 0.4, 2.0]), np.array([30.0, 30.0, 10.0]), 0.5)
    assert out.tolist() == pytest.approx([30 / 0.235 * 3, 0.0, 10 / 0.235 * 15])


@pytest.mark.parametrize("threshold", [0, -0.1, 2.5, math.nan, "0.5", True])
def test_a_threshold_outside_zero_to_two_is_refused(threshold: object) -> None:
    with pytest.raises(InvalidConfigError, match=r"threshold must be a number in \(0, 2\]"):
        threshold_days(1.0, 30.0, threshold)  # type: ignore[arg-type]


def test_r_curves_one_row_per_label_and_day() -> None:
    frame = r_curves({"thread": 21.0, "principle": 365.0}, days=10)
    assert frame.columns == ["label", "day", "retrievability"]
    assert frame.height == 2 * 11
    assert frame["label"].to_list() == ["thread"] * 11 + ["principle"] * 11
    assert frame["day"].to_list()[:11] == list(range(11))
    assert frame["retrievability"][0] == 1.0
    assert frame["retrievability"][10] == pytest.approx((1 + 0.235 * 10 / 21) ** -0.5)
    assert frame["retrievability"][21] == pytest.approx((1 + 0.235 * 10 / 365) ** -0.5)


def test_r_curves_use_the_what_if_knobs() -> None:
    params = DecayParams(fsrs_factor=0.5, stability_scale=2.0)
    frame = r_curves({"s": 30.0}, days=60, params=params)
    assert frame["retrievability"][-1] == pytest.approx((1 + 0.5 * 60 / (30 * 2.0)) ** -0.5)


def test_r_curves_refuse_bad_input() -> None:
    with pytest.raises(InvalidConfigError, match="'zero' has 0"):
        r_curves({"zero": 0.0})
    with pytest.raises(InvalidConfigError, match="0..3650"):
        r_curves({"s": 30.0}, days=-1)
    with pytest.raises(InvalidConfigError, match="stability_scale"):
        r_curves({"s": 30.0}, params=DecayParams(stability_scale=0.0))
    with pytest.raises(InvalidConfigError, match="fsrs_factor"):
        r_curves({"s": 30.0}, params=DecayParams(fsrs_factor=-1.0))
