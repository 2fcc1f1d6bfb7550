"""The undocumented LanceDB and Lance names memlens uses (`store/lance_private.py`) are all
there in the installed releases, and each does what the store relies on."""

from __future__ import annotations

import asyncio
from importlib.metadata import version
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
import pytest

from memory_core.adapters.lance_format import manifest_writer
from memory_core.model.errors import StoreLocationError
from memory_core.store import lance_private


@pytest.fixture
def table(tmp_path: Path) -> Any:
    db = lancedb.connect(tmp_path)
    return db.create_table("t", pa.table({"id": ["a", "b", "c"], "n": [1, 2, 3]}))


def test_every_private_name_is_there(table: Any) -> None:
    gone = lance_private.missing(table)
    assert not gone, (
        f"lancedb {version('lancedb')} / pylance {version('pylance')} no longer have "
        f"{', '.join(gone)}: move the call in memory_core/store/lance_private.py to its public "
        f"counterpart, or pin the releases that have it in pyproject.toml")


def test_the_async_table_queries_in_one_run(table: Any) -> None:
    built = lance_private.async_table(table).query().where("n >= 2").select(["id"])
    assert sorted(lance_private.run(built.to_arrow())["id"].to_pylist()) == ["b", "c"]


def test_a_table_without_an_async_table_is_refused() -> None:
    with pytest.raises(StoreLocationError, match="no async table"):
        lance_private.async_table(object())


def test_take_rows_reads_the_rows_at_row_ids(table: Any) -> None:
    dataset = table.to_lance()
    row_ids = dataset.to_table(columns=["id"], with_row_id=True)["_rowid"].to_pylist()
    got = lance_private.take_rows(dataset, [row_ids[2], row_ids[0]], ["id", "_rowid"])
    assert got["id"].to_pylist() == ["c", "a"]


def test_the_manifest_names_the_lance_that_wrote_it(table: Any) -> None:
    manifest = lance_private.serialized_manifest(table.to_lance())
    assert manifest is not None
    assert (manifest_writer(manifest) or "").startswith("lance ")


def test_the_replaced_run_is_the_one_lancedbs_calls_use(table: Any) -> None:
    attributes = vars(lance_private._loop())
    installed = attributes.pop("run", None)  # stall_watch's, when an earlier test watched
    seen: list[Any] = []

    def run_on(coroutine: Any) -> Any:
        seen.append(coroutine)
        return asyncio.run_coroutine_threadsafe(coroutine, lance_private.event_loop()).result()

    try:
        lance_private.replace_run(run_on)
        assert table.count_rows() == 3
        assert seen
    finally:
        attributes.pop("run", None)
        if installed is not None:
            attributes["run"] = installed
