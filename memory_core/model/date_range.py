"""The dates a user may give memlens (filter bounds, the decay clock, audit windows): one
range, checked where the date is read, so a year like 0999 is one line, not a query error.

The range leaves room on both sides for the arithmetic done with such a date (a decay clock
minus a citation window, plus a what-if horizon): Python's datetime ends at year 9999, and
Lance's SQL reads four-digit years only.
"""

from __future__ import annotations

from datetime import UTC, datetime

from memory_core.model.errors import InvalidFilterError, InvalidRecordError
from memory_core.model.untrusted import shown

EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
#: The range as the error lines and the docs say it.
RANGE_TEXT = "1900-01-01 to 9000-12-31 (UTC)"


def user_time(value: datetime | str, what: str) -> datetime:
    """`value` (ISO-8601 text or a datetime) as a UTC datetime within `EARLIEST`..`LATEST`;
    else `InvalidFilterError` naming `what` (the option or field) and the range.

    >>> user_time("2026-11-01", "--since").isoformat()
    '2026-11-01T00:00:00+00:00'
    >>> user_time("0999-01-01", "--since")
    Traceback (most recent call last):
    ...
    memory_core.model.errors.InvalidFilterError: --since is '0999-01-01', outside the dates \
memlens accepts: 1900-01-01 to 9000-12-31 (UTC)
    """
    from memory_core.model.values import as_utc

    text = value.strip() if isinstance(value, str) else value
    try:
        when = as_utc(text)
    except InvalidRecordError as exc:
        raise InvalidFilterError(f"{what}: {exc}") from None
    except OverflowError:  # beyond year 9999 once in UTC: 9999-12-31T23:00-05:00
        when = None
    if when is None or not EARLIEST <= when <= LATEST:
        raise InvalidFilterError(f"{what} is {shown(text if isinstance(text, str) else str(text))}"
                                 f", outside the dates memlens accepts: {RANGE_TEXT}")
    return when
