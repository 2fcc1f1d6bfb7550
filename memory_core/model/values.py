"""The value forms every record shares: the content hash, UTC timestamps and the one JSON form.

Records (`memory_core.model.records`) and their checks (the checks in the same module) build on
these; so do exports, the audit and every module that stamps a time.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any

from memory_core.model.errors import InvalidRecordError
from memory_core.model.untrusted import shown

_WS = re.compile(r"\s+")


def content_hash(content: str) -> str:
    """sha256 (hex) of the content with whitespace runs collapsed and ends stripped.

    Duplicates are found by this hash (docs/design/records.md).

    >>> content_hash("a  b\\n") == content_hash("a b")
    True
    """
    return hashlib.sha256(_WS.sub(" ", content).strip().encode("utf-8")).hexdigest()


def utcnow() -> datetime:
    """The current time, UTC, truncated to microseconds as the store keeps it."""
    return datetime.now(UTC)


def as_utc(value: datetime | str | float | int | None) -> datetime | None:
    """A timezone-aware UTC datetime from a datetime, ISO-8601 string or epoch seconds."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError) as exc:  # NaN, or beyond the platform's
            raise InvalidRecordError(
                f"timestamp {shown(value)} is not a valid epoch time in seconds; write it "
                f"like 2026-05-01T12:00:00Z") from exc
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidRecordError(
                f"timestamp {shown(value)} is not ISO-8601; write it like 2026-05-01T12:00:00Z"
            ) from exc
        return as_utc(parsed)
    raise InvalidRecordError(f"cannot read a timestamp from {shown(value)}")


def canonical_json(value: Any) -> str:
    """JSON with sorted keys, no spaces and unicode kept: the one form memlens writes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
