"""Every command family on a store in S3 (moto's server on 127.0.0.1): init with the demo
corpus, search (every preset), recall, index, export, import, diff, drill, the curation
actions; caches stay local; the errors a user can fix are one line and exit 1."""

from __future__ import annotations

import io
import json
import os
import re
import uuid
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from memory_core.retrieval.config import PRESETS
from tests.conftest import S3_BUCKET, run_cli
from tests.memory_core.store.object_storage_server import S3Server

pytestmark = pytest.mark.slow  # a store on S3 takes seconds to seed and to write

run = run_cli


def _quiet(argv: list[str]) -> tuple[int, str]:
    """`memlens ARGV` in-process outside a test (no capsys): (exit code, stdout + stderr)."""
    from memory_core.cli import main

    out = io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(out):
            main(argv)
        return 0, out.getvalue()
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue()


@pytest.fixture(scope="module")
def demo_uri(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> str:
    """`memlens init` on a fresh S3 prefix: the demo corpus, vectors from its shipped file."""
    uri = f"s3://{S3_BUCKET}/demo-{uuid.uuid4().hex[:8]}"
    with pytest.MonkeyPatch.context() as patch:
        for name in [n for n in os.environ if n.startswith(("AWS_", "MEMLENS_"))]:
            patch.delenv(name)
        for name, value in s3_server.env().items():
            patch.setenv(name, value)
        patch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path_factory.mktemp("s3-init-cache")))
        code, out = _quiet(["--store", uri, "init"])
    assert code == 0 and f"seeded {uri} with 3003 memories and 3515 edges" in out, out
    return uri


@pytest.fixture
def no_model(s3_env: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    """S3 settings, embedding off: commands run without loading the model."""
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    return s3_env


def test_init_seeds_the_demo_corpus_and_every_preset_searches_it(
        demo_uri: str, no_model: S3Server, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--store", demo_uri, "stats", "--json"], capsys)
    stats = json.loads(out)
    assert code == 0 and (stats["memories"], stats["edges"]) == (3003, 3515)
    code, out, _ = run(["--store", demo_uri, "init"], capsys)
    assert code == 0 and "already holds 2806 memories; nothing to seed" in out
    for name in PRESETS:
        code, out, err = run(["--store", demo_uri, "search", "slow integration tests",
                              "--preset", name, "--limit", "3", "--json"], capsys)
        assert code == 0 and len(json.loads(out)["hits"]) == 3, (name, err)


@pytest.mark.model
def test_search_with_real_vectors_on_s3(demo_uri: str, s3_env: S3Server,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--store", demo_uri, "search", "why were the integration tests slow",
                        "--preset", "vector", "--limit", "3", "--json"], capsys)
    result = json.loads(out)
    assert code == 0 and not result["degraded"]
    assert any("integration test" in h["memory"]["content"].lower() for h in result["hits"])


def test_recall_keeps_its_session_cache_local(
        demo_uri: str, no_model: S3Server, model_cache: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--store", demo_uri, "recall", "database migrations", "--session", "s3-test"]
    code, first, _ = run(argv, capsys)
    assert code == 0 and first.strip()
    code, again, _ = run(argv, capsys)  # the session's dedup cache: nothing sent twice
    assert code == 0 and not set(_ids(first)) & set(_ids(again))
    prefix = demo_uri.removeprefix(f"s3://{S3_BUCKET}/")
    tops = {k.removeprefix(prefix + "/").split("/")[0]
            for k in no_model.keys(S3_BUCKET, prefix)}
    assert tops == {"memories.lance", "edges.lance", "audit.lance", "events.lance"}
    assert (model_cache / "sessions").is_dir() and (model_cache / "locks").is_dir()


def _ids(text: str) -> list[str]:
    return re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text)


SMALL = [
    {"id": "m1", "content": "Object storage keeps the memlens tables", "memory_type": "fact",
     "project": "herd"},
    {"id": "m2", "content": "Prefer uv over pip in CI", "memory_type": "preference",
     "project": "herd"},
    {"id": "m3", "content": "Use uv rather than pip for CI installs", "memory_type": "lesson",
     "project": "herd"},
    {"id": "m4", "content": "Cache keys include the lockfile hash", "memory_type": "decision",
     "project": "atlas"},
]


@pytest.fixture
def small_uri(s3_uri: str, no_model: S3Server, tmp_path: Path,
              capsys: pytest.CaptureFixture[str]) -> str:
    lines = tmp_path / "small.ndjson"
    lines.write_text("".join(json.dumps(m) + "\n" for m in SMALL), encoding="utf-8")
    code, _, err = run(["--store", s3_uri, "add", "--file", str(lines)], capsys)
    assert code == 0, err
    return s3_uri


def test_export_import_diff_drill_and_index_on_s3(small_uri: str, s3_uri: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "small-export.ndjson"
    code, out, _ = run(["--store", small_uri, "export", str(path), "--json"], capsys)
    assert code == 0 and json.loads(out)["counts"]["memory"] == 4
    other = f"{s3_uri}-copy"
    code, out, _ = run(["--store", other, "import", str(path), "--json"], capsys)
    assert code == 0 and sorted(json.loads(out)["inserted"]) == ["m1", "m2", "m3", "m4"]
    code, out, _ = run(["--store", other, "diff", str(path), "live", "--exit-code"], capsys)
    assert code == 0 and "memory: 0 added, 0 removed, 0 changed, 4 unchanged" in out
    code, out, _ = run(["--store", small_uri, "drill", "--export-dir", str(tmp_path / "d")],
                       capsys)
    assert code == 0 and "recovery drill PASSED" in out
    code, out, _ = run(["--store", small_uri, "index"], capsys)
    assert code == 0 and "4 rows indexed" in out


def _undo_id(out: str) -> str:
    found = re.search(r"undo it with: memlens undo (\S+)", out)
    assert found, out
    return found.group(1)


def _status(uri: str, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    code, out, _ = run(["--store", uri, "ls", "--status", "active", "--status", "archived",
                        "--status", "superseded", "--limit", "0", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    rows = data["memories"] if isinstance(data, dict) else data
    return {m["id"]: m["status"] for m in rows}


def test_curation_actions_and_undo_on_s3(small_uri: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    def act(*argv: str) -> str:
        code, out, err = run(["--store", small_uri, *argv, "--yes"], capsys)
        assert code == 0, err
        return out

    act("edit", "m1", "--content", "Object storage keeps every memlens table")
    code, out, _ = run(["--store", small_uri, "show", "m1"], capsys)
    assert "keeps every memlens table" in out
    act("archive", "m4")
    act("merge", "m2", "m3", "--into", "m2")
    superseded = act("supersede", "m1", "--content", "S3 holds the memlens tables")
    assert _status(small_uri, capsys) == {"m1": "superseded", "m2": "active",
                                          "m3": "superseded", "m4": "archived",
                                          **{i: "active" for i in
                                             re.findall(r"(\S+)  created", superseded)}}
    deleted = act("delete", "m4")
    assert "m4" not in _status(small_uri, capsys)
    code, out, err = run(["--store", small_uri, "undo", _undo_id(deleted), "--yes"], capsys)
    assert code == 0, err
    assert _status(small_uri, capsys)["m4"] == "archived"


# -- errors a user can fix -----------------------------------------------------------------

def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_missing_bucket_wrong_credentials_and_a_dead_endpoint_are_one_line_each(
        s3_uri: str, no_model: S3Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--store", "s3://no-such-bucket/m", "init"], capsys)
    assert code == 1 and out == ""
    assert _one_error_line(err).startswith("Error: the bucket 'no-such-bucket' does not exist")
    with no_model.requiring_auth():
        code, out, err = run(["--store", s3_uri, "init"], capsys)
    assert code == 1 and "refused the credentials" in _one_error_line(err)
    assert no_model.keys(S3_BUCKET, s3_uri.rsplit("/", 1)[1]) == []  # nothing half-written
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # discard: nothing listens
    monkeypatch.setenv("MEMLENS_STORAGE_OPTIONS", "client_max_retries=0")  # fail fast
    code, out, err = run(["--store", s3_uri, "ls"], capsys)
    assert code == 1 and "does not answer (connection refused)" in _one_error_line(err)
