"""Every format's golden input is recognised by its own reader, and by no other one, so
`--format auto` picks the right format whatever the registration order; a UTF-8 byte-order
mark in front of a text input changes neither the format found nor what is imported."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import detect_reader, get_reader, reader_names
from memory_core.exchange.readers.base import first_line
from memory_core.seeding import DEMO_EXPORT, demo_dir
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.adapters.lance_fixture import build_golden
from tests.memory_core.adapters.test_mcp_memory import build_db

DATA = Path(__file__).parent / "data"
EXCHANGE = Path(__file__).parents[1] / "exchange" / "data"
#: Formats that are only chosen by name (a column mapping cannot be guessed).
NAMED_ONLY = {"lancedb"}
#: Formats read from text files (JSON, NDJSON, JSON Lines, markdown), and the suffixes of
#: their files; the others are LanceDB tables or SQLite databases.
TEXT_FORMATS = ("memlens", "superagents", "locomo", "longmemeval", "mcp_memory", "mem0",
                "hades", "decisions", "claude_code")
TEXT_SUFFIXES = (".json", ".ndjson", ".jsonl", ".md")
#: The UTF-8 byte-order mark Windows editors write first.
BOM = "\ufeff".encode()
#: Single files of the folder formats, which `--format auto` also takes alone.
SINGLE_FILES = {
    "claude_code": DATA / "claude_code" / "projects" / "-home-ana-code-herd"
    / "9d2e7b41-0c55-4f3a-8e6d-7b1a2c3d4e02.jsonl",
    "decisions": DATA / "decision_records" / "herd" / "decisions" / "hdr"
    / "0031-storage-engine.md",
}


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    folder = tmp_path_factory.mktemp("golden")
    return {
        "memlens": [demo_dir() / DEMO_EXPORT],
        "superagents": [EXCHANGE / "superagents_kani.ndjson"],
        "locomo": [DATA / "locomo" / "locomo_small.json"],
        "longmemeval": [DATA / "longmemeval" / "longmemeval_small.json"],
        "mcp_memory": [DATA / "mcp_memory" / "export.json",
                       build_db(folder / "sqlite_vec.db")],
        "mem0": [DATA / "mem0" / "get_all.json", DATA / "mem0" / "results.json"],
        "herd": [build_golden("herd", folder / "herd")],
        "make_skills": [build_golden("make_skills", folder / "make_skills")],
        "hades": [DATA / "hades" / "full", DATA / "hades" / "arangodump"],
        "decisions": [DATA / "decision_records" / "herd" / "decisions"],
        "claude_code": [DATA / "claude_code" / "projects"],
    }


def test_every_registered_format_has_a_golden_input(golden: dict[str, list[Path]]) -> None:
    assert set(reader_names()) == set(golden) | NAMED_ONLY


@pytest.mark.parametrize("name", sorted(set(reader_names()) - NAMED_ONLY))
def test_auto_picks_the_format_and_no_other_reader_claims_it(
        golden: dict[str, list[Path]], name: str) -> None:
    for path in golden[name]:
        assert detect_reader(path).name == name, path
        claimed = [other for other in reader_names() if other != name
                   and get_reader(other).sniff(path, first_line(path))]
        assert claimed == [], f"{path} is also claimed by {claimed}"


def _with_bom(path: Path, folder: Path) -> Path:
    """A copy of `path` under `folder` whose every text file starts with a UTF-8 BOM; the
    copy keeps three parent folders, from which some formats name the project."""
    copy = folder / path.relative_to(path.parents[3])
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        target = copy if file == path else copy / file.relative_to(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = file.read_bytes()
        target.write_bytes(BOM + data if file.suffix in TEXT_SUFFIXES else data)
    return copy


def _imported(path: Path, store_path: Path) -> tuple[dict[str, object], bytes]:
    """What importing `path` into a fresh store reports, and the body of its export."""
    store = MemoryStore.open(str(store_path), embedder=FakeEmbedder(), tenant="default")
    report = import_file(store, path, embed=False)
    export = store_path.with_suffix(".ndjson")
    export_store(store, export, exported_at=datetime(2026, 10, 1, tzinfo=UTC))
    seen = {name: getattr(report, name) for name in (
        "format", "records", "inserted", "duplicates", "skipped", "edges_added", "queries")}
    return seen, export.read_bytes().split(b"\n", 1)[1]


@pytest.mark.parametrize("name", TEXT_FORMATS)
def test_a_byte_order_mark_changes_neither_the_format_nor_the_import(
        golden: dict[str, list[Path]], name: str, tmp_path: Path) -> None:
    inputs = [p for p in golden[name] if p.is_dir() or p.suffix in TEXT_SUFFIXES]
    inputs += [SINGLE_FILES[name]] if name in SINGLE_FILES else []
    for number, path in enumerate(inputs):
        copy = _with_bom(path, tmp_path / f"bom{number}")
        assert copy.is_dir() or copy.read_bytes().startswith(BOM)
        assert detect_reader(copy).name == name, copy
        assert first_line(copy) == first_line(path)
        assert [other for other in reader_names() if other != name
                and get_reader(other).sniff(copy, first_line(copy))] == []
        plain, plain_body = _imported(path, tmp_path / f"plain{number}")
        marked, marked_body = _imported(copy, tmp_path / f"marked{number}")
        assert plain["records"] and marked == plain, copy
        assert marked_body == plain_body, copy


def test_every_adapter_class_is_registered_through_the_entry_points() -> None:
    """An adapter module whose class is missing from pyproject's `memlens.formats` would
    never be offered to `--format`; the registry finds them there and nowhere else."""
    import ast
    import importlib

    from memory_core.adapters.base import Adapter

    package = Path(importlib.import_module("memory_core.adapters").__file__ or "").parent
    classes = set()
    for path in package.glob("*.py"):
        module = importlib.import_module(f"memory_core.adapters.{path.stem}")
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                cls = getattr(module, node.name)
                if isinstance(cls, type) and issubclass(cls, Adapter) and cls is not Adapter:
                    classes.add(cls.name)
    assert classes and classes <= set(reader_names())
    assert reader_names()[0] == "memlens"  # memlens' own exports are sniffed first


def test_the_registry_imports_no_adapter() -> None:
    import ast

    import memory_core.exchange.readers as registry

    tree = ast.parse(Path(registry.__file__ or "").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m and m.startswith("memory_core.adapters") for m in modules)
