"""Retrievability curves and the closed form of the day a decayed memory drops below a
threshold (FSRS v4 retrievability; docs/design/decay.md).

With no further access, a memory's composite is `k * R(t)`, where k is the product of the
factors that do not depend on time (usage, tier anchor, citation) and
`R(t) = (1 + f * t / S) ** -0.5`. Solving `k * R(t) = threshold` for t:

    (1 + f * t / S) = (k / threshold) ** 2   =>   t = S / f * ((k / threshold) ** 2 - 1)

so `k * R(t) < threshold` for every t past that day.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from memory_core.decay import FSRS_FACTOR, DecayParams
from memory_core.model.errors import InvalidConfigError

if TYPE_CHECKING:
    import polars as pl

#: The longest curve `r_curves` draws (days): ten years.
MAX_CURVE_DAYS = 3650


def threshold_days_array(k: np.ndarray, stability: np.ndarray, threshold: float,
                         fsrs_factor: float = FSRS_FACTOR) -> np.ndarray:
    """`threshold_days` over arrays (element-wise, broadcast): the days since the last
    access after which `k * R(t)` is below `threshold`; 0 where `k <= threshold` (below or
    at it from the start), inf where S is infinite or `fsrs_factor` is 0 (R stays 1)."""
    k = np.asarray(k, dtype=np.float64)
    stability = np.asarray(stability, dtype=np.float64)
    excess = (k / threshold) ** 2 - 1.0
    frozen = np.isinf(stability) | (fsrs_factor == 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        days = np.where(frozen, np.inf, stability / (fsrs_factor or 1.0) * excess)
    out: np.ndarray = np.where(excess <= 0.0, 0.0, days)
    return out


def threshold_days(k: float, stability: float, threshold: float,
                   fsrs_factor: float = FSRS_FACTOR) -> float:
    """Days after the last access at which a composite `k * R(t)` drops below `threshold`:
    `S / f * ((k / threshold) ** 2 - 1)`; 0 when `k <= threshold` (already below, or at
    it), inf when S is infinite.

    >>> threshold_days(1.0, 30.0, 0.5)  # 30 / 0.235 * (2 ** 2 - 1)
    382.97872340425533
    >>> threshold_days(0.4, 30.0, 0.5)
    0.0
    """
    check_threshold(threshold)
    return float(threshold_days_array(np.asarray(k, dtype=np.float64),
                                      np.asarray(stability, dtype=np.float64), threshold,
                                      fsrs_factor))


def check_threshold(threshold: float) -> None:
    """`InvalidConfigError` unless `threshold` is a number in (0, 2] (a composite can reach
    1.3 x 1.5 x 1.2 x 1.1 = 2.57, but a threshold above 2 would put nearly every memory
    below it)."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) \
            or not 0.0 < threshold <= 2.0 or math.isnan(threshold):
        raise InvalidConfigError(
            f"decay threshold must be a number in (0, 2], got {threshold!r}; the default is "
            f"0.5 (half as likely to be shown as a fresh memory of the same tier)")


def check_params(params: DecayParams) -> None:
    """`InvalidConfigError` unless `params` can drive the decay curve: a `DecayParams` with
    `fsrs_factor >= 0` and `stability_scale > 0`."""
    if not isinstance(params, DecayParams):
        raise InvalidConfigError(
            f"decay params must be a DecayParams, got {type(params).__name__}; build one with "
            f"DecayParams(fsrs_factor=..., stability_scale=...)")
    if not params.fsrs_factor >= 0.0 or math.isinf(params.fsrs_factor):
        raise InvalidConfigError(
            f"fsrs_factor must be a finite number >= 0, got {params.fsrs_factor!r}; the FSRS "
            f"default is {FSRS_FACTOR}")
    if not params.stability_scale > 0.0 or math.isinf(params.stability_scale):
        raise InvalidConfigError(
            f"stability_scale must be a finite number > 0, got {params.stability_scale!r}; "
            f"1.0 keeps every memory's stability")


def r_curves(stabilities: Mapping[str, float], *, days: int = 365,
             params: DecayParams | None = None) -> pl.DataFrame:
    """Retrievability over day 0..`days` for each labelled stability S (days), with
    `params.fsrs_factor` and S times `params.stability_scale`: columns `label`, `day`,
    `retrievability`, one row per label and day, labels in the order given.

    >>> round(r_curves({"30 d": 30.0}, days=30)["retrievability"][-1], 4)  # 1.235 ** -0.5
    0.8998
    """
    import polars as pl

    params = params or DecayParams()
    check_params(params)
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_CURVE_DAYS:
        raise InvalidConfigError(
            f"curve length must be a whole number of days in 0..{MAX_CURVE_DAYS}, got {days!r}")
    labels = list(stabilities)
    values = np.asarray([float(stabilities[label]) for label in labels], dtype=np.float64)
    bad = [label for label, s in zip(labels, values, strict=True) if not s > 0]
    if bad:
        raise InvalidConfigError(
            f"stability must be a positive number of days; {bad[0]!r} has "
            f"{stabilities[bad[0]]!r}")
    day = np.arange(days + 1, dtype=np.float64)
    scaled = values[:, None] * params.stability_scale
    r = (1.0 + params.fsrs_factor * day[None, :] / scaled) ** -0.5
    return pl.DataFrame({
        "label": pl.Series(np.repeat(np.asarray(labels, dtype=object), days + 1),
                           dtype=pl.String),
        "day": np.tile(np.arange(days + 1, dtype=np.int64), len(labels)),
        "retrievability": r.ravel(),
    }, schema={"label": pl.String, "day": pl.Int64, "retrievability": pl.Float64})
