"""Hand-written NDJSON for `memlens add --file`."""

from __future__ import annotations

import pytest

from memory_core.errors import InvalidRecordError
from memory_core.exchange.memory_lines import read_memory_lines


def test_a_byte_order_mark_on_the_first_line_is_ignored() -> None:
    lines = ['\ufeff{"content": "first", "id": "m1"}\n', '{"content": "second"}\n']
    memories = read_memory_lines(lines)
    assert [m.content for m in memories] == ["first", "second"] and memories[0].id == "m1"


def test_a_bad_line_is_named() -> None:
    with pytest.raises(InvalidRecordError, match="input line 2 is not JSON"):
        read_memory_lines(['{"content": "ok"}\n', "{nope\n"])
