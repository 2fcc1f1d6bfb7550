"""`user_time`: the one range of dates memlens accepts from a user, for the API too."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_core.model.date_range import EARLIEST, LATEST, user_time
from memory_core.model.errors import InvalidFilterError
from memory_core.model.filters import Filter, sql_time


def test_the_ends_are_inclusive() -> None:
    assert user_time("1900-01-01", "x") == EARLIEST
    assert user_time(LATEST, "x") == LATEST
    assert user_time("2026-11-01T12:00:00+02:00", "x") == datetime(2026, 11, 1, 10, tzinfo=UTC)


@pytest.mark.parametrize("value", ["1899-12-31T23:59:59Z", "0999-01-01", "0001-01-01",
                                   "9001-01-01", "9999-12-31T23:59:59-05:00",
                                   datetime(1, 1, 1, tzinfo=UTC)])
def test_outside_the_range_is_refused_naming_the_field(value: str | datetime) -> None:
    with pytest.raises(InvalidFilterError, match="^created_after is .* outside the dates "
                       "memlens accepts: 1900-01-01 to 9000-12-31"):
        Filter(created_after=value).to_predicate("t")


def test_sql_time_writes_four_digit_years() -> None:
    """Lance's SQL reads '0999-...' but not '999-...', which `strftime('%Y')` writes."""
    assert sql_time(datetime(999, 1, 1, tzinfo=UTC)) == \
        "TIMESTAMP '0999-01-01T00:00:00.000000Z'"
