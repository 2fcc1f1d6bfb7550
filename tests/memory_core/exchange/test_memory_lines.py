"""Hand-written NDJSON for `memlens add --file`."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.exchange.memory_lines import read_memory_lines
from memory_core.model.errors import InvalidRecordError


def test_a_byte_order_mark_on_the_first_line_is_ignored() -> None:
    lines = ['\ufeff{"content": "first", "id": "m1"}\n', '{"content": "second"}\n']
    memories = read_memory_lines(lines)
    assert [m.content for m in memories] == ["first", "second"] and memories[0].id == "m1"


def test_a_bad_line_is_named() -> None:
    with pytest.raises(InvalidRecordError, match="input line 2 is not JSON"):
        read_memory_lines(['{"content": "ok"}\n', "{nope\n"])


@pytest.mark.parametrize("line, reason", [
    ('{"content": "bad \\ud800 one"}\n', "lone UTF-16 surrogate"),  # was UnicodeEncodeError
    ('{"content": "x", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
     "nested too deeply"),  # was RecursionError
])
def test_json_that_memlens_cannot_store_is_a_bad_line(line: str, reason: str) -> None:
    with pytest.raises(InvalidRecordError, match=f"input line 1 is not JSON \\(.*{reason}"):
        read_memory_lines([line])


def test_bytes_that_are_not_utf8_are_named(tmp_path: Path) -> None:
    # `add --file` reads a text file: a bad byte was UnicodeDecodeError
    path = tmp_path / "latin1.ndjson"
    path.write_bytes(b'{"content": "fine"}\n{"content": "caf\xe9"}\n')
    with path.open(encoding="utf-8") as handle, pytest.raises(
            InvalidRecordError, match=r"latin1.ndjson is not UTF-8 text \(byte 0xe9 after"):
        read_memory_lines(handle, source=path.name)
