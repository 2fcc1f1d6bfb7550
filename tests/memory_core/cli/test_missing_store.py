"""A `--store` that holds no memlens store: every command but `init`, `add`, `import` (and
a seeding `serve`) says so in one line naming the path and creates nothing: no folder, no
table, no lock or cache folder. A mistyped path used to become a new, empty store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import memory_core.embedding as embedding
import memory_core.store.memory_store as memory_store
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import S3_BUCKET, FakeEmbedder, run_cli
from tests.memory_core.store.object_storage_server import S3Server

#: Commands that must not create a store: the readers, and the writers that need memories.
NOT_CREATING: list[list[str]] = [
    ["stats"], ["ls"], ["search", "token"], ["show", "m1"], ["export", "OUT"], ["map"],
    ["eval", "--queries", "QUERIES"], ["recall", "token"], ["recall", "token", "--session",
                                                            "s1"],
    ["audit"], ["events"], ["verify-deleted", "m1"], ["diff", "QUERIES", "live"],
    ["decay", "at-risk"], ["decay", "show", "m1"], ["graph", "health"], ["duplicates"],
    ["why", "m1"], ["tune", "--queries", "QUERIES"],
    ["edit", "m1", "--why", "x", "--yes"], ["archive", "m1", "--yes"], ["delete", "m1",
                                                                        "--yes"],
    ["undo", "b1", "--yes"], ["correct", "m1", "--verdict", "rejected"], ["cite", "m1"],
    ["link", "m1", "related_to", "m2"], ["index"], ["reembed"], ["drill"],
]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    monkeypatch.setattr(embedding, "load_embedder", lambda settings=None: FakeEmbedder())
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "queries.ndjson").write_text(
        '{"qid": "q1", "query": "token", "relevant": {"m1": 1}}\n', encoding="utf-8")
    return tmp_path


def _argv(command: list[str], home: Path) -> list[str]:
    paths = {"OUT": str(home / "out.ndjson"), "QUERIES": str(home / "queries.ndjson")}
    return [paths.get(part, part) for part in command]


def _created(home: Path) -> list[str]:
    """What the command left in the working folder besides the query set."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.name != "queries.ndjson")


@pytest.mark.parametrize("command", NOT_CREATING, ids=" ".join)
def test_a_missing_store_is_one_line_and_nothing_is_created(
        home: Path, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--store", "./typo", *_argv(command, home)], capsys)
    assert code == 1, (out, err)
    assert err == ("Error: there is no memlens store at ./typo; run `memlens init --store "
                   "./typo` to create one (only init, add and import create a store)\n")
    assert _created(home) == []  # no store folder, no cache, lock, session or map folder


def test_serve_no_seed_starts_the_app_without_creating_the_store(
        home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The app says "No store here yet" itself, and its Overview can create it."""
    import memory_core.cli.memories as memories

    calls: list[list[str]] = []
    monkeypatch.setattr(memories.subprocess, "call", lambda args, **_: calls.append(args) or 0)
    code, _, err = run_cli(["--store", "./typo", "serve", "--no-seed"], capsys)
    assert code == 0 and len(calls) == 1
    assert "note: there is no memlens store at ./typo; run `memlens init --store ./typo`" in err
    assert "the app starts without it" in err
    assert _created(home) == []


def test_an_empty_folder_stays_empty(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "empty").mkdir()
    code, _, err = run_cli(["--store", "empty", "stats"], capsys)
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("Error: empty holds no memlens store (no 'memories' table); run "
                          "`memlens init --store empty` to create one")
    assert _created(home) == ["empty"]


def test_a_folder_of_foreign_lance_tables_points_at_the_lancedb_import(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import lancedb
    import pyarrow as pa

    lancedb.connect(str(home / "agent-db")).create_table("notes", pa.table({"text": ["a"]}))
    before = _created(home)
    code, _, err = run_cli(["--store", "agent-db", "search", "token"], capsys)
    assert code == 1 and err.count("\n") == 1
    assert "agent-db holds no memlens store (no 'memories' table) but Lance tables 'notes'" \
        in err
    assert "use `memlens import --format lancedb agent-db --table NAME` to import a foreign " \
           "table" in err
    assert _created(home) == before


@pytest.mark.parametrize("command", [["add", "a first fact"], ["init", "--from", "EXPORT"],
                                     ["import", "EXPORT"]], ids=" ".join)
def test_init_add_and_import_create_the_store(home: Path, command: list[str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from memory_core.exchange.export import export_store

    source = MemoryStore.open(str(home / "source"), embedder=FakeEmbedder())
    source.add([Memory.new("the token race was fixed", "decision", id="m1")])
    export_store(source, home / "export.ndjson")
    argv = [str(home / "export.ndjson") if part == "EXPORT" else part for part in command]
    code, _, err = run_cli(["--store", "new", *argv], capsys)
    assert code == 0, err
    assert MemoryStore.open(str(home / "new"), embedder=FakeEmbedder(), create=False).count()


def test_a_writable_open_still_completes_an_existing_store(home: Path) -> None:
    """Not creating a store is not refusing to bring one up to date: `stats` adds a missing
    table back, as the read-only error line promises."""
    store = MemoryStore.open(str(home / "store"), embedder=FakeEmbedder())
    store.add([Memory.new("the token race was fixed", "decision", id="m1")])
    store.tables.db.drop_table("edges")
    again = MemoryStore.open(str(home / "store"), embedder=FakeEmbedder(), create=False)
    assert again.edges.count() == 0 and (home / "store" / "edges.lance").is_dir()


@pytest.mark.slow
def test_a_missing_store_on_s3_creates_no_object_and_no_lock_folder(
        s3_uri: str, s3_env: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "cache"))
    for command in (["stats"], ["search", "token"], ["export", str(tmp_path / "out")]):
        code, _, err = run_cli(["--store", s3_uri, *command], capsys)
        assert code == 1 and err.count("\n") == 1, err
        assert f"{s3_uri} holds no memlens store" in err
    assert s3_env.keys(S3_BUCKET, s3_uri.removeprefix(f"s3://{S3_BUCKET}/")) == []
    assert not (tmp_path / "cache").exists() or not os.listdir(tmp_path / "cache")


@pytest.mark.slow
def test_reads_of_a_store_on_s3_create_no_lock_folder(
        s3_uri: str, s3_env: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The lock and journal of a store on object storage live under the model cache; only a
    write makes them."""
    from memory_core.model.config import Settings

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    writer = MemoryStore.open(settings=Settings.from_env(
        store_uri=s3_uri, model_cache=tmp_path / "writer-cache"), embedder=FakeEmbedder())
    writer.add([Memory.new("the token race was fixed", "decision", id="m1")])
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "cache"))
    for command in (["stats"], ["ls"], ["show", "m1"], ["export", str(tmp_path / "out")],
                    ["audit"]):
        code, _, err = run_cli(["--store", s3_uri, *command], capsys)
        assert code == 0, err
    assert not (tmp_path / "cache" / "locks").exists()
