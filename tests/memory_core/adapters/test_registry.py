"""Every format's golden input is recognised by its own reader, and by no other one, so
`--format auto` picks the right format whatever the registration order."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.exchange.readers import detect_reader, get_reader, reader_names
from memory_core.exchange.readers.base import first_line
from memory_core.seeding import DEMO_EXPORT, demo_dir
from tests.memory_core.adapters.lance_fixture import build_golden
from tests.memory_core.adapters.test_mcp_memory import build_db

DATA = Path(__file__).parent / "data"
EXCHANGE = Path(__file__).parents[1] / "exchange" / "data"
#: Formats that are only chosen by name (a column mapping cannot be guessed).
NAMED_ONLY = {"lancedb"}


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
