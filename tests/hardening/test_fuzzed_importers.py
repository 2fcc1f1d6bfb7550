"""Fuzzed importers (issue 18): malformed inputs for every import format give a clean import
or ONE `MemlensError`, never another exception, never a partial write.

Each format starts from a small valid input (the adapters' golden fixtures, a small memlens
export) that `fuzz_mutations` breaks. Every example runs the real `import_file` into a real
store (fake embedder) holding memories, an edge and audit rows of its own: after an error the
store holds exactly what it held before (row counts of every table, every tenant) and its
pre-existing memory is untouched. A few examples go through the CLI in-process: exit 1 with
one `Error:` line, never a traceback. Examples are derandomized, so CI is reproducible.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.exchange.export import export_store
from memory_core.exchange.readers import AUTO, NO_OPTIONS, ReadOptions
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.hardening.fuzz_mutations import (
    broken_database,
    broken_markdown,
    broken_table,
    damaged,
    mutated_json,
    to_bytes,
)
from tests.hardening.fuzz_target import PRE, Target, seed_store
from tests.memory_core.adapters.lance_fixture import build, description
from tests.memory_core.exchange.conftest import sample_records

DATA = Path(__file__).parents[1] / "memory_core" / "adapters" / "data"
KANI = Path(__file__).parents[1] / "memory_core" / "exchange" / "data" / "superagents_kani.ndjson"
EXAMPLES = 15
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])
NOTES = {"id": "note_id", "content": "text", "memory_type": "kind", "created_at": "ts",
         "tags": "labels", "agent": "owner", "importance": "priority", "vector": "embedding"}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store made once per module (making one takes seconds; copying it, milliseconds)."""
    path = tmp_path_factory.mktemp("fuzz-template") / "store"
    seed_store(path)
    return path


@pytest.fixture
def target(template: Path, tmp_path: Path) -> Target:
    shutil.copytree(template, tmp_path / "store")
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder(), tenant="default")
    return Target(store, tmp_path)


@pytest.fixture(scope="module")
def small_export(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """A small memlens export (memories, edges, audit) as its parsed lines."""
    folder = tmp_path_factory.mktemp("fuzz-export")
    store = MemoryStore.open(str(folder / "store"), embedder=FakeEmbedder(), tenant="fuzz")
    memories, edges = sample_records()
    store.add(memories, dedup=False)
    store.edges.add(edges)
    export_store(store, folder / "export.ndjson", with_audit=True)
    lines = (folder / "export.ndjson").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _lines(path: Path) -> list[Any]:
    """The values of an NDJSON file's lines (a seed's deliberately broken ones left out)."""
    values = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return values


def _any_json(path: Path) -> st.SearchStrategy[bytes]:
    """A JSON document or an NDJSON file (arangodump's `.data.json` files are NDJSON)."""
    try:
        return _broken_json(_load(path))
    except json.JSONDecodeError:
        return _broken_json(_lines(path), lines=True)


def _broken_json(seed: Any, *, lines: bool = False) -> st.SearchStrategy[bytes]:
    return mutated_json(seed).map(lambda doc: to_bytes(doc, lines=lines)).flatmap(damaged)


def _write(folder: Path, name: str, data: bytes) -> Path:
    (folder / name).write_bytes(data)
    return folder / name


# -- one JSON or NDJSON file -----------------------------------------------------------------

JSON_FILES = {
    "locomo": (DATA / "locomo" / "locomo_small.json", False),
    "longmemeval": (DATA / "longmemeval" / "longmemeval_small.json", False),
    "mem0": (DATA / "mem0" / "get_all.json", False),
    "mem0-results": (DATA / "mem0" / "results.json", False),
    "mcp_memory-json": (DATA / "mcp_memory" / "export.json", False),
    "superagents": (KANI, True),
}


@pytest.mark.parametrize("case", sorted(JSON_FILES))
def test_a_broken_json_file_imports_or_fails_cleanly(target: Target, case: str) -> None:
    seed_path, lines = JSON_FILES[case]
    seed = _lines(seed_path) if lines else _load(seed_path)
    fmt = case.split("-")[0]

    @FUZZ
    @given(_broken_json(seed, lines=lines))
    def run(data: bytes) -> None:
        target.attempt(_write(target.folder(), seed_path.name, data), fmt)

    run()


def _memlens_bytes(lines: list[Any], fix_manifest: bool) -> bytes:
    """An export's lines as bytes; `fix_manifest` makes its checksum and counts fit the
    changed body, so the checks of each record are reached."""
    body = [to_bytes([line], lines=True) for line in lines[1:]]
    head = lines[0] if lines else None
    if fix_manifest and isinstance(head, dict):
        kinds = [line.get("kind") for line in lines[1:] if isinstance(line, dict)]
        head = {**head, "body_sha256": hashlib.sha256(b"".join(body)).hexdigest(),
                "counts": {k: kinds.count(k) for k in ("memory", "edge", "audit")}}
    return to_bytes([head], lines=True) + b"".join(body) if lines else b""


@given(data=st.data())
@FUZZ
def test_a_broken_memlens_export_imports_or_fails_cleanly(target: Target, small_export: list[Any],
                                                          data: st.DataObject) -> None:
    lines = data.draw(mutated_json(small_export))
    raw = data.draw(damaged(_memlens_bytes(lines, data.draw(st.booleans()))))
    # merge into the tenant that holds memories, or restore (mode empty) into a new one
    mode = data.draw(st.sampled_from(["merge", None]))
    into = None if mode == "merge" else target.fresh_tenant()
    target.attempt(_write(target.folder(), "export.ndjson", raw), "memlens", mode=mode,
                   into=into)


# -- folders of files ------------------------------------------------------------------------

FOLDERS: dict[str, tuple[Path, str, Callable[[Path], st.SearchStrategy[bytes]]]] = {
    "hades": (DATA / "hades" / "full", "*.*json", _any_json),
    "hades-arangodump": (DATA / "hades" / "arangodump", "*.json", _any_json),
    "claude_code": (DATA / "claude_code" / "projects", "**/*.jsonl",
                    lambda p: _broken_json(_lines(p), lines=True)),
    "decisions": (DATA / "decision_records" / "herd", "**/*.md",
                  lambda p: broken_markdown(p.read_text(encoding="utf-8"))),
}


@pytest.mark.parametrize("case", sorted(FOLDERS))
def test_a_folder_with_a_broken_file_imports_or_fails_cleanly(target: Target, case: str) -> None:
    seed, pattern, breaker = FOLDERS[case]
    files = sorted(p.relative_to(seed) for p in seed.glob(pattern) if p.is_file())

    @FUZZ
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(files))
        raw = data.draw(breaker(seed / name))
        folder = target.folder() / seed.name
        shutil.copytree(seed, folder)
        (folder / name).write_bytes(raw)
        target.attempt(folder, case.split("-")[0])

    run()


# -- LanceDB tables --------------------------------------------------------------------------

LANCE = {
    "herd": ("herd", "memories", NO_OPTIONS),
    "make_skills": ("make_skills", "records", ReadOptions(params={"tenant_id": "u_alice"})),
    "lancedb": ("lancedb_table", "notes", ReadOptions(table="notes", params=NOTES)),
}


@pytest.mark.parametrize("fmt", sorted(LANCE))
def test_a_broken_lancedb_table_imports_or_fails_cleanly(target: Target, fmt: str) -> None:
    fixture, table, options = LANCE[fmt]
    tables = description(fixture)["tables"]

    @FUZZ
    @given(broken_table(tables[table]))
    def run(spec: dict[str, Any]) -> None:
        target.attempt(build(target.folder() / "db", {**tables, table: spec}), fmt, options)

    run()


# -- SQLite ----------------------------------------------------------------------------------

SQL = (DATA / "mcp_memory" / "sqlite_vec.sql").read_text(encoding="utf-8")

def test_a_broken_sqlite_database_imports_or_fails_cleanly(target: Target) -> None:
    @FUZZ
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        path = data.draw(broken_database(target.folder() / "sqlite_vec.db", SQL))
        target.attempt(path, "mcp_memory")

    run()


# -- through the CLI -------------------------------------------------------------------------

CLI_CASES = {"mem0": JSON_FILES["mem0"], "locomo": JSON_FILES["locomo"],
             "superagents": JSON_FILES["superagents"]}


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """`memlens ARGV` in-process as a user runs it (one-line errors included)."""
    from memory_core.cli import main

    runner = CliRunner()
    with runner.isolation(env={"MEMLENS_EMBED_MODEL": "none"}) as (out, err, _):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        return code, out.getvalue().decode(), err.getvalue().decode()


@pytest.fixture(scope="module")
def cli_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fuzz-cli") / "store"
    code, _, err = run_cli(["--store", str(path), "add", PRE.content])
    assert code == 0, err
    return path


def test_the_cli_reports_a_broken_file_in_one_line(cli_template: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(cli_template, store)
    numbers = itertools.count()
    files = {fmt: (_lines(p) if lines else _load(p), lines)
             for fmt, (p, lines) in CLI_CASES.items()}

    @FUZZ
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        fmt = data.draw(st.sampled_from(sorted(files)))
        seed, lines = files[fmt]
        path = tmp_path / f"input-{next(numbers)}.json"
        path.write_bytes(data.draw(_broken_json(seed, lines=lines)))
        given_format = data.draw(st.sampled_from([fmt, AUTO]))
        code, out, err = run_cli(["--store", str(store), "import", str(path),
                                  "--format", given_format])
        assert "Traceback" not in out + err
        if code:
            assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1, err
        else:
            assert "memories:" in out, out

    run()
