"""How a benchmark states a figure against its target: one line with the ratio and a verdict,
and the same as plain data (`--json`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def target_line(label: str, seconds: float, ratio: float, target: float, *, extra: str = "",
                width: int = 30, digits: int = 2) -> str:
    """`label  seconds s  (target <= T s, ratio R) PASS|FAIL extra`.

    >>> target_line("archive", 2.26, 0.45, 5.0)
    'archive                          2.26 s  (target <= 5 s, ratio 0.45) PASS'
    """
    verdict = "PASS" if ratio <= 1.0 else "FAIL"
    return (f"{label:<{width}}{seconds:7.{digits}f} s  (target <= {target:.0f} s, ratio "
            f"{ratio:.2f}) {verdict}{extra}")


def target_figures(targets: Mapping[str, float], ratios: Mapping[str, float]
                   ) -> dict[str, Any]:
    """The targets, the ratios and whether each is met, for a bench's `to_dict`."""
    return {"targets_s": dict(targets), "ratios": dict(ratios),
            "within_target": {k: r <= 1.0 for k, r in ratios.items()}}
