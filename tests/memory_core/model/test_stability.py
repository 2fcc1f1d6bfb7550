"""A stability that is not a positive number of days is refused on every write path, and one
already stored (written by an older memlens) no longer fails the reads of the whole store:
decay uses the memory's default, with a warning."""

from __future__ import annotations

import json
import logging
import math
import warnings
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

import memory_core.store.memory_store as memory_store
from memory_core.curation import edit
from memory_core.decay import composite
from memory_core.decay.analysis import decay_frame, memory_timeline
from memory_core.exchange.export import export_store
from memory_core.model.errors import InvalidRecordError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.stability import default_stability
from memory_core.retrieval.config import preset
from memory_core.retrieval.recall import recall
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

NOW = datetime(2026, 11, 1, tzinfo=UTC)
BAD = [-5.0, -1, 0.0, math.inf, math.nan]


@pytest.mark.parametrize("value", BAD)
def test_a_new_memory_refuses_a_stability_that_is_not_positive_days(value: float) -> None:
    with pytest.raises(InvalidRecordError, match="stability of memory .*(positive number of "
                                                 "days|must be a number)"):
        Memory.new("a fact", "fact", stability=value)


@pytest.mark.parametrize("value", [-5.0, 0.0, math.inf])
def test_add_and_edit_refuse_it_and_write_nothing(store: MemoryStore, value: float) -> None:
    store.add([Memory.new("the token race was fixed", "decision", id="m1")])
    before = store.table_versions()
    with pytest.raises(InvalidRecordError, match="positive number of days"):
        store.add([replace(Memory.new("another fact", "fact"), stability=value)])
    with pytest.raises(InvalidRecordError, match="positive number of days"):
        edit(store, "m1", stability=value)
    assert store.table_versions() == before
    assert store.get("m1").stability == default_stability("decision", "normal")


@pytest.fixture
def cli_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    store.add([Memory.new("the token race was fixed", "decision", id="m1")])
    return store


def test_the_cli_refuses_it_in_one_line(cli_store: MemoryStore, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    lines = tmp_path / "lines.ndjson"
    lines.write_text(json.dumps({"content": "token race notes", "stability": -5}) + "\n",
                     encoding="utf-8")
    before = cli_store.table_versions()
    for argv in (["add", "--file", str(lines)], ["edit", "m1", "--stability", "-1", "--yes"]):
        code, _, err = run_cli(["--store", cli_store.uri, *argv], capsys)
        assert code == 1 and err.count("\n") == 1, err
        assert "it must be a positive number of days" in err
    assert cli_store.table_versions() == before


def test_import_refuses_an_export_line_with_it(cli_store: MemoryStore, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "export.ndjson"
    export_store(cli_store, export)
    text = export.read_text(encoding="utf-8")
    stored = json.loads(text.splitlines()[1])["stability"]
    export.write_text(text.replace(f'"stability":{stored}', '"stability":-5'),
                      encoding="utf-8")
    target = str(tmp_path / "target")
    code, _, err = run_cli(["--store", target, "import", str(export)], capsys)
    assert code == 1 and "stability of memory m1 is -5.0" in err, err


def _store_with_a_bad_stability(store: MemoryStore) -> MemoryStore:
    """m1 with stability -5, as a memlens before this check could write it."""
    store.add([Memory.new("refresh token race fixed", "decision", id="m1"),
               Memory.new("refresh token rotation", "decision", id="m2")])
    store.tables.memories.update(where="id = 'm1'", values={"stability": -5.0})
    store.forget_caches()
    assert store.get("m1").stability == -5.0
    return store


def test_reads_use_the_default_for_a_stored_bad_value_with_a_warning(
        store: MemoryStore, caplog: pytest.LogCaptureFixture) -> None:
    store = _store_with_a_bad_stability(store)
    memory = store.get("m1")
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING):
        warnings.simplefilter("error")  # numpy's "invalid value encountered in power"
        assert composite(memory, NOW).retrievability == composite(
            replace(memory, stability=None), NOW).retrievability
        assert {h.memory.id for h in search(store, "refresh token", Filter(),
                                            preset("full"), now=NOW)} == {"m1", "m2"}
        assert len(recall(store, "refresh token", limit=2, now=NOW).items) == 2
        frame = decay_frame(store, as_of=NOW)
        assert frame.filter(frame["id"] == "m1")["stability"][0] == \
            default_stability("decision", "normal")
        timeline = memory_timeline(store, "m1", as_of=NOW)
        assert not any(math.isnan(r) for r in timeline.curve["retrievability"])
    assert "memory m1 has stability -5.0, not a positive number of days" in caplog.text
    assert "1 memories have a stability that is not a positive number of days" in caplog.text
