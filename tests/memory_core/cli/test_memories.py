"""`memlens add | ls | show | stats`: memories in and out, tenants, one-line mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.store import MemoryStore
from tests.conftest import run_cli

run = run_cli


@pytest.mark.model
def test_add_ls_show_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    code, out, _ = run(["add", "Prefer uv over pip for installs", "--type", "Preference",
                        "--project", "herd", "--tag", "tooling", "--store", store, "--json"],
                       capsys)
    assert code == 0
    memory_id = json.loads(out)["inserted"][0]
    run(["--store", store, "add", "CI cache keys must include the lockfile hash",
         "--type", "decision", "--project", "atlas"], capsys)
    code, out, _ = run(["--store", store, "ls", "--project", "herd", "--json"], capsys)
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [memory_id]
    assert rows[0]["memory_type"] == "preference" and rows[0]["embedding_status"] == "ok"
    code, out, _ = run(["show", memory_id, "--store", store], capsys)
    assert code == 0 and "Prefer uv over pip" in out and "audit" in out
    code, out, _ = run(["--store", store, "add", "Prefer uv  over pip for installs"], capsys)
    assert code == 0 and f"already memory {memory_id}" in out


@pytest.mark.model
def test_command_tenant_overrides_group_tenant(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    run(["--store", store, "add", "acme only", "--tenant", "acme"], capsys)
    code, out, _ = run(["--store", store, "--tenant", "default", "ls", "--tenant", "acme",
                        "--json"], capsys)
    assert [r["content"] for r in json.loads(out)] == ["acme only"]


@pytest.mark.model
@pytest.mark.parametrize("argv, message", [
    (["add", "   "], "empty content"),
    (["ls", "--tenant", "ghost"], "tenant 'ghost' has no memories"),
    (["show", "no-such-id"], "no memory with id 'no-such-id'"),
    (["add", "x", "--metadata", "{not json"], "--metadata is not JSON"),
    (["add", "x", "--importance", "urgent"], "unknown importance 'urgent'"),
    (["ls", "--status", "deleted"], "unknown status 'deleted'"),
    (["ls", "--bogus"], "No such option"),
])
def test_user_mistakes_are_one_line_and_exit_1(tmp_path: Path, argv: list[str], message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    run(["--store", store, "add", "seed memory"], capsys)
    code, out, err = run(["--store", store, *argv], capsys)
    assert code == 1
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_store_path_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "file.txt"
    path.write_text("keep me")
    code, _, err = run(["--store", str(path), "stats"], capsys)
    assert code == 1 and "is a file, not a folder" in err
    assert path.read_text() == "keep me"


@pytest.mark.model
def test_add_many_from_ndjson_then_upsert(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    lines = tmp_path / "in.ndjson"
    lines.write_text(
        '{"id": "m1", "content": "first fact", "memory_type": "fact", "tags": ["a"]}\n'
        '\n{"id": "m2", "content": "second", "project": "herd"}\n'
        '{"content": "first  fact"}\n', encoding="utf-8")
    code, out, _ = run(["--store", store, "add", "--file", str(lines), "--json"], capsys)
    result = json.loads(out)
    assert result["inserted"] == ["m1", "m2"] and result["duplicates"][0][1] == "m1"
    lines.write_text('{"id": "m2", "content": "second, revised"}\n{"id": "m3", "content": "x"}\n',
                     encoding="utf-8")
    code, out, _ = run(["--store", store, "add", "--file", str(lines), "--upsert", "--json"],
                       capsys)
    result = json.loads(out)
    assert result["updated"] == ["m2"] and result["inserted"] == ["m3"]


def test_bad_line_in_file_names_the_line_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    lines = tmp_path / "in.ndjson"
    lines.write_text('{"content": "fine"}\n{"content": ""}\n', encoding="utf-8")
    code, _, err = run(["--store", store, "add", "--file", str(lines)], capsys)
    assert code == 1 and "line 2" in err and "empty content" in err
    lines.write_text('{"content": "fine"}\n{"colour": "red", "content": "x"}\n',
                     encoding="utf-8")
    code, _, err = run(["--store", store, "add", "--file", str(lines)], capsys)
    assert code == 1 and "line 2: unknown field(s) colour" in err
    code, _, err = run(["--store", store, "stats", "--json"], capsys)
    assert code == 1 and "there is no memlens store at" in err  # not even an empty one


@pytest.mark.parametrize("argv, address, warned", [
    ([], "127.0.0.1", False),
    (["--host", "localhost"], "localhost", False),
    (["--host", "0.0.0.0"], "0.0.0.0", True),
])
def test_serve_binds_to_this_machine_unless_told(tmp_path: Path, argv: list[str], address: str,
                                                 warned: bool, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.cli.memories as memories

    calls: list[list[str]] = []
    monkeypatch.setattr(memories.subprocess, "call", lambda args, **_: calls.append(args) or 0)
    MemoryStore.open(str(tmp_path / "s"))  # empty: `serve --no-seed` creates no store
    code, _, err = run(["--store", str(tmp_path / "s"), "serve", "--no-seed",
                        *argv], capsys)
    assert code == 0
    [args] = calls
    # the app's server process, by module: the engine never imports the app
    assert args[1:3] == ["-m", "memlens_app.server"]
    assert args[args.index("--server.address") + 1] == address
    assert ("warning: memlens listens on 0.0.0.0" in err) is warned
    assert "no login" in err if warned else "warning" not in err


def test_stats_warns_when_the_store_outgrew_its_indexes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # written pending: no model needed
    monkeypatch.setattr("memory_core.store.index_health.UNINDEXED_ROWS", 5)
    store = str(tmp_path / "my store")
    lines = tmp_path / "in.ndjson"
    lines.write_text("".join(f'{{"content": "note {i}"}}\n' for i in range(8)))
    assert run(["--store", store, "add", "--file", str(lines)], capsys)[0] == 0
    code, out, err = run(["--store", store, "stats", "--tenant", "default"], capsys)
    assert code == 0 and "memories 8 (8 active)" in out
    [warning] = [line for line in err.splitlines() if "outgrown" in line]
    assert "no index yet on tenant, status," in warning and "(8 rows, 0 with vectors)" in warning
    assert f"Run `memlens index --store '{store}' --tenant default`" in warning
    code, out, _ = run(["--store", store, "stats", "--json"], capsys)
    health = json.loads(out)["index_health"]
    assert health["outgrown"] is True and health["rows"] == 8
    assert health["warning"].endswith(f"Run `memlens index --store '{store}'` to compact it "
                                      f"and bring every index up to date.")
    assert run(["--store", store, "index"], capsys)[0] == 0
    code, out, err = run(["--store", store, "stats", "--json"], capsys)
    assert json.loads(out)["index_health"]["warning"] is None


def test_serve_starts_on_a_store_with_a_truncated_manifest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42: `serve` died at start-up on a damaged store; the app starts and shows the
    one line (tests/app/test_damaged_store.py), and the terminal gets it as a warning."""
    import memory_core.cli.memories as memories
    import memory_core.store.memory_store as memory_store
    from tests.conftest import FakeEmbedder
    from tests.memory_core.integrity.damaged import build_base, damaged_copy

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    build_base(tmp_path / "base")
    store = damaged_copy(tmp_path / "base", tmp_path / "store", "memories manifest truncated")
    calls: list[list[str]] = []
    monkeypatch.setattr(memories.subprocess, "call", lambda args, **_: calls.append(args) or 0)
    code, _, err = run_cli(["--store", str(store), "serve"], capsys)
    assert code == 0, err
    [args] = calls
    assert args[args.index("--store") + 1] == str(store)
    [line] = err.splitlines()[:-1]  # then "memlens is at http://..."
    assert line.startswith("warning: the store's memories table is damaged (")


def test_show_cuts_a_long_memory_unless_full(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    store = str(tmp_path / "s")
    lines = tmp_path / "in.ndjson"
    lines.write_text(json.dumps({"id": "big", "content": "z" * 1_048_576}) + "\n",
                     encoding="utf-8")
    assert run(["--store", store, "add", "--file", str(lines)], capsys)[0] == 0
    code, out, _ = run(["--store", store, "show", "big"], capsys)
    assert code == 0 and len(out) < 5_000
    assert f"content: {'z' * 1999}…\n" in out
    assert "(content cut at 2,000 of 1,048,576 characters; `memlens show big --full` prints " \
           "all)" in out
    code, out, _ = run(["--store", store, "show", "big", "--full"], capsys)
    assert code == 0 and f"content: {'z' * 1_048_576}\n" in out
