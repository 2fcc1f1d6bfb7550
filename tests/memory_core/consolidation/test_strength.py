"""strength(n, cohesion) = clip(cohesion, 0, 1) * n / (n + 2), worked out by hand."""

from __future__ import annotations

import pytest

from memory_core.consolidation import strength


def test_three_sources_of_cohesion_point_eight() -> None:
    assert strength(3, 0.8) == pytest.approx(0.8 * 3 / (3 + 2))


def test_evidence_term_rises_with_the_source_count_and_never_reaches_one() -> None:
    assert strength(1, 1.0) == pytest.approx(1 / 3)
    assert strength(2, 1.0) == pytest.approx(2 / 4)
    assert strength(8, 1.0) == pytest.approx(8 / 10)
    assert strength(10_000, 1.0) < 1.0


def test_no_source_is_no_evidence() -> None:
    assert strength(0, 1.0) == 0.0


def test_cohesion_is_clipped_to_zero_one() -> None:
    assert strength(3, -0.4) == 0.0
    assert strength(3, 1.7) == pytest.approx(3 / 5)


@pytest.mark.parametrize(("count", "cohesion"), [(-1, 0.5), (2, float("nan"))])
def test_bad_inputs_are_refused(count: int, cohesion: float) -> None:
    with pytest.raises(ValueError):
        strength(count, cohesion)


def test_a_count_must_be_an_int() -> None:
    with pytest.raises(TypeError):
        strength(2.5, 0.5)  # type: ignore[arg-type]
