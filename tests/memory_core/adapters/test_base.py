"""The adapter base: its JSON helpers, and what every adapter gets from the importer
(content-hash duplicates, edges pointed at the memory kept, dry runs, idempotent re-imports)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core.adapters.base import (
    Adapter,
    edge_record,
    iter_json_objects,
    memory_record,
    stable_id,
    timestamp,
)
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import (
    _READERS,
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
    register_reader,
)
from memory_core.model.errors import ExportFormatError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore


class PairsAdapter(Adapter):
    """A toy format: `{"memories": [{"key", "text"}], "links": [[key, key]]}`."""

    name = "pairs"
    summary = "test pairs"
    options = frozenset({"limit"})

    def sniff(self, path: Path, first_line: str) -> bool:
        return path.suffix == ".pairs"

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        info = SourceInfo(format=self.name, path=str(path), schema_version=1)
        source = ExportSource(info, lambda: self._records(path, source, options))
        return source

    def _records(self, path: Path, source: ExportSource, options: ReadOptions
                 ) -> Iterator[SourceRecord]:
        document = json.loads(path.read_text())
        for index, item in enumerate(document["memories"], start=1):
            if options.limit is not None and index > options.limit:
                break
            if not item["text"]:
                source.skips.skip("empty text", f"item {index}")
                continue
            yield memory_record(f"item {index}", id=stable_id(self.name, item["key"]),
                                content=item["text"], memory_type="fact",
                                created_at="2026-01-01T00:00:00Z", source="import:pairs")
        for a, b in document.get("links", []):
            yield edge_record(f"link {a}-{b}", id=stable_id(self.name, "link", a, b),
                              source_id=stable_id(self.name, a),
                              target_id=stable_id(self.name, b), relation="relates_to",
                              created_at="2026-01-01T00:00:00Z")


@pytest.fixture
def pairs() -> Iterator[None]:
    register_reader(PairsAdapter())
    yield
    _READERS.pop("pairs", None)


def write_pairs(path: Path, memories: list[tuple[str, str]],
                links: list[tuple[str, str]] = ()) -> Path:  # type: ignore[assignment]
    path.write_text(json.dumps({"memories": [{"key": k, "text": t} for k, t in memories],
                                "links": [list(link) for link in links]}))
    return path


def test_stable_ids_depend_on_every_part() -> None:
    assert stable_id("x", "a", 1) == stable_id("x", "a", 1)
    assert stable_id("x", "a", 1) != stable_id("x", "a1")
    assert stable_id("x", "a") != stable_id("y", "a")


@pytest.mark.parametrize("text", [
    '[{"a": 1}, {"a": 2}]',
    '{"a": 1}\n\n{"a": 2}\n',
    '{"items": [{"a": 1}, {"a": 2}], "meta": {}}',
    '{\n  "items": [\n    {"a": 1},\n    {"a": 2}\n  ]\n}\n',
])
def test_json_objects_from_arrays_ndjson_and_documents(tmp_path: Path, text: str) -> None:
    path = tmp_path / "f.json"
    path.write_text(text)
    values = [v["a"] for _, v in iter_json_objects(path, key="items")]
    assert values == [1, 2]


def test_json_helpers_name_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text('[{"a": 1}, {"a": ')
    with pytest.raises(ExportFormatError, match=r"f.json: invalid JSON at line 1.*truncated"):
        list(iter_json_objects(path))
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(ExportFormatError, match="binary file"):
        list(iter_json_objects(path))
    path.write_text('[1, 2]')
    with pytest.raises(ExportFormatError, match="item 1 is not a JSON object"):
        list(iter_json_objects(path))
    path.write_text('{"a": 1}\n[2]\n')
    with pytest.raises(ExportFormatError, match="line 2 is not a JSON object"):
        list(iter_json_objects(path))


def test_timestamps_from_iso_offsets_and_epochs() -> None:
    assert timestamp("2024-07-20T01:20:34.5-07:00", "x") == "2024-07-20T08:20:34.500000Z"
    assert timestamp(1_700_000_000.25, "x") == "2023-11-14T22:13:20.250000Z"
    assert timestamp("2024-07-20 10:00", "x") == "2024-07-20T10:00:00Z"
    with pytest.raises(ExportFormatError, match="row 3: created_at 'soon' is not an ISO"):
        timestamp("soon", "row 3", "created_at")
    with pytest.raises(ExportFormatError, match="must be a time"):
        timestamp(True, "row 3")


def test_duplicates_are_skipped_and_their_edges_moved(pairs: None, store: MemoryStore,
                                                      tmp_path: Path) -> None:
    held = store.add([Memory.new("Redis is the cache", "fact")]).inserted[0]
    path = write_pairs(tmp_path / "a.pairs",
                       [("a", "Postgres is the database"), ("b", "Redis is the cache"),
                        ("c", "Postgres is the database"), ("d", "")],
                       links=[("a", "b"), ("a", "c")])
    report = import_file(store, path)
    assert report.format == "pairs" and report.mode == "merge"
    assert report.records == {"memory": 1, "edge": 1, "audit": 0}
    assert report.duplicates == {stable_id("pairs", "b"): held,
                                 stable_id("pairs", "c"): stable_id("pairs", "a")}
    assert report.skipped == {
        "empty text": {"count": 1, "examples": ["item 4"]},
        "edge joins a memory to its own duplicate": {"count": 1, "examples": ["link a-c"]},
    }
    assert report.read == 6
    [edge] = store.edges.list()
    assert (edge.source_id, edge.target_id) == (stable_id("pairs", "a"), held)
    assert store.count() == 2


def test_a_second_import_adds_nothing(pairs: None, store: MemoryStore, tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "a.pairs", [("a", "one"), ("b", "two")], links=[("a", "b")])
    first = import_file(store, path)
    assert len(first.inserted) == 2 and first.edges_added == 1
    assert (first.embedded, first.pending) == (2, 0)  # merge mode counts what it embedded
    versions = store.table_versions()
    again = import_file(store, path)
    assert again.inserted == () and again.updated == () and len(again.unchanged) == 2
    assert again.edges_added == 0 and again.edges_skipped == 1
    assert store.table_versions() == versions


def test_dry_run_reports_and_writes_nothing(pairs: None, store: MemoryStore,
                                            tmp_path: Path) -> None:
    import_file(store, write_pairs(tmp_path / "a.pairs", [("a", "one")]))
    versions = store.table_versions()
    path = write_pairs(tmp_path / "b.pairs", [("a", "one"), ("b", "two")], links=[("a", "b")])
    report = import_file(store, path, dry_run=True)
    assert report.dry_run and report.inserted == (stable_id("pairs", "b"),)
    assert report.existing == (stable_id("pairs", "a"),)
    assert report.edges_added == 1 and report.pending == 2
    assert store.table_versions() == versions and store.count() == 1


def test_limit_and_options_the_format_does_not_take(pairs: None, store: MemoryStore,
                                                    tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "a.pairs", [("a", "one"), ("b", "two"), ("c", "three")])
    report = import_file(store, path, options=ReadOptions(limit=2))
    assert len(report.inserted) == 2
    with pytest.raises(ExportFormatError, match="pairs format does not take --project"):
        import_file(store, path, options=ReadOptions(project="x"))


def test_a_bad_record_names_its_place_and_writes_nothing(pairs: None, store: MemoryStore,
                                                         tmp_path: Path) -> None:
    versions = store.table_versions()
    path = tmp_path / "bad.pairs"
    path.write_text(json.dumps({"memories": [{"key": "a", "text": "fine"},
                                             {"key": "b", "text": 7}]}))
    with pytest.raises(ExportFormatError, match=r"item 2: content must be text, got int 7"):
        import_file(store, path)
    assert store.table_versions() == versions
