"""`memlens export | import | drill | diff`: round trips, change lists, drills, mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

run = run_cli
DATA = Path(__file__).parents[1] / "exchange" / "data"


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    uri = str(tmp_path / "s")
    lines = tmp_path / "in.ndjson"
    lines.write_text(
        '{"id": "m1", "content": "Prefer uv over pip", "memory_type": "preference", '
        '"project": "herd", "agent": "steve", "tags": ["tooling"]}\n'
        '{"id": "m2", "content": "CI cache keys include the lockfile hash", '
        '"memory_type": "decision", "project": "atlas", "status": "archived"}\n',
        encoding="utf-8")
    code, _, err = run(["--store", uri, "add", "--file", str(lines)], capsys)
    assert code == 0, err
    return uri


def test_help_of_every_exchange_command(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["export"], ["import"], ["drill"], ["diff"]):
        code, out, _ = run([*argv, "--help"], capsys)
        assert code == 0 and "Usage: memlens" in out, argv


@pytest.mark.model
def test_export_import_and_diff_round_trip(store: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "exports" / "a.ndjson"
    code, out, _ = run(["--store", store, "export", str(path), "--json"], capsys)
    manifest = json.loads(out)
    assert code == 0 and manifest["counts"] == {"memory": 2, "edge": 0, "event": 0}
    code, out, _ = run(["--store", store, "export", str(tmp_path / "h.ndjson"), "--project",
                        "herd"], capsys)
    assert code == 0 and "exported 1 memory, 0 edge" in out
    other = str(tmp_path / "other")
    code, out, _ = run(["--store", other, "import", str(path), "--json"], capsys)
    report = json.loads(out)
    assert code == 0 and sorted(report["inserted"]) == ["m1", "m2"]
    assert report["format"] == "memlens" and report["embedded"] == 2
    code, out, _ = run(["--store", other, "diff", str(path), "live", "--exit-code"], capsys)
    assert code == 0 and "memory: 0 added, 0 removed, 0 changed, 2 unchanged" in out
    code, out, _ = run(["--store", other, "import", str(path), "--mode", "merge"], capsys)
    assert code == 0 and "0 imported, 0 updated, 2 unchanged" in out


@pytest.mark.model
def test_diff_lists_changes_and_exit_code(store: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.ndjson"
    run(["--store", store, "export", str(path)], capsys)
    run(["--store", store, "add", "A brand new fact", "--type", "fact", "--project", "herd"],
        capsys)
    code, out, _ = run(["--store", store, "diff", str(path), "live", "--exit-code"], capsys)
    assert code == 1
    assert "memory: 1 added, 0 removed, 0 changed, 2 unchanged" in out
    assert "by memory_type: fact +1 -0 ~0" in out and "\n+ memory " in out
    code, out, _ = run(["--store", store, "diff", str(path), "live", "--json"], capsys)
    assert code == 0 and json.loads(out)["counts"]["memory"]["added"] == 1


@pytest.mark.model
def test_superagents_file_imports_with_auto_format(store: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--store", str(tmp_path / "sa"), "import",
                        str(DATA / "superagents_kani.ndjson")], capsys)
    assert code == 0 and "(superagents schema_version 1)" in out
    code, out, _ = run(["--store", str(tmp_path / "v0"), "import",
                        str(DATA / "v0_export.ndjson")], capsys)
    assert code == 0 and "migrated v0_to_v1" in out


@pytest.mark.model
def test_drill_passes_and_reports(store: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--store", store, "drill", "--export-dir", str(tmp_path / "ex")],
                         capsys)
    assert code == 0, out + err
    assert "PASS  verify re-export" in out and "recovery drill PASSED" in out
    assert "drill: dropping" in err
    code, out, _ = run(["--store", store, "drill", "--json", "--keep", "--export-dir",
                        str(tmp_path / "ex")], capsys)
    report = json.loads(out)
    assert report["passed"] and Path(report["export_path"]).is_file()


@pytest.mark.model
@pytest.mark.parametrize("argv, message", [
    (["import", "missing.ndjson"], "there is nothing at missing.ndjson: no such file or folder"),
    (["import", "{bad}", "--format", "xml"], "unknown import format 'xml'"),
    (["diff", "live", "nowhere.ndjson"], "no export file at nowhere.ndjson"),
    (["diff", "live", "version:abc"], "'version:abc' is not a table version"),
    (["diff", "live", "live", "--ignore", "colour"], "unknown field 'colour' to ignore"),
    (["export", "x.ndjson", "--status", "gone"], "unknown status 'gone'"),
])
def test_mistakes_are_one_line_and_exit_1(store: str, tmp_path: Path, argv: list[str],
                                          message: str, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "{bad}"
    bad.write_text('{"memlens_export": 1, "schema_version": 1}\n')
    code, _, err = run(["--store", store, *argv], capsys)
    assert code == 1 and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.model
def test_bad_import_line_is_named_and_nothing_is_written(
        store: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.ndjson"
    run(["--store", store, "export", str(path)], capsys)
    path.write_bytes(path.read_bytes().replace(b"Prefer uv", b"Prefer pip"))
    target = str(tmp_path / "t")
    code, _, err = run(["--store", target, "import", str(path)], capsys)
    assert code == 1 and "does not match the manifest" in err
    # an import refused before its first record creates no store at all
    assert not Path(target).exists()
    code, out, err = run(["--store", target, "stats", "--json"], capsys)
    assert code == 1 and out == "" and "there is no memlens store" in err


def test_diff_warns_when_the_sides_hold_different_tenants(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # memories go pending: no model needed
    uri = str(tmp_path / "s")
    for tenant in ("default", "acme"):
        run(["--store", uri, "--tenant", tenant, "add", f"{tenant} fact"], capsys)
        run(["--store", uri, "--tenant", tenant, "export", str(tmp_path / f"{tenant}.ndjson")],
            capsys)
    code, _, err = run(["--store", uri, "diff", str(tmp_path / "acme.ndjson"), "live"], capsys)
    assert code == 0
    assert ("warning: the two sides hold different tenants: A is tenant 'acme', B is tenant "
            "'default'") in err
    code, _, err = run(["--store", uri, "diff", str(tmp_path / "default.ndjson"), "live"],
                       capsys)
    assert code == 0 and "warning" not in err


def test_a_bad_file_imported_into_a_missing_store_creates_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "cache"))
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"memlens_export": 1, "schema_version": 1}\n{"kind": "memory"}\n')
    target = tmp_path / "no-store-here"
    code, _, err = run_cli(["--store", str(target), "import", str(bad)], capsys)
    assert code == 1 and "line 2" in err and err.count("\n") == 1
    assert not target.exists()
