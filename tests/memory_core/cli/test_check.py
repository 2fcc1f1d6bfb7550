"""`memlens check [--repair]` and the one line every other command prints on a damaged store
(issue 42 items 2 and 16), on copies of a small store damaged each way the issue lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FakeEmbedder, run_cli
from tests.memory_core.integrity.damaged import DAMAGE, TABLE_OF, build_base, damaged_copy

READS = [["stats"], ["search", "deploy"], ["search", "deploy", "--preset", "bm25"],
         ["export", "{out}"]]
#: damage kinds every read command meets (it reads the damaged table)
LOUD = ["memories data file deleted", "memories data file truncated",
        "memories manifest truncated", "audit manifest truncated"]
#: what issue 42 found passing silently: only `check` finds them
SILENT = ["vectors zeroed", "newest memories manifest deleted"]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-check") / "base"
    build_base(path)
    return path


@pytest.fixture(autouse=True)
def fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.embedding
    import memory_core.store.memory_store as memory_store

    fake = FakeEmbedder()
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: fake)
    monkeypatch.setattr(memory_core.embedding, "load_embedder", lambda settings=None: fake)


def _run(store: Path, argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path,
         ) -> tuple[int, str, list[str]]:
    argv = [a.replace("{out}", str(tmp_path / "out.ndjson")) for a in argv]
    code, out, err = run_cli(["--store", str(store), *argv], capsys)
    lines = [line for line in err.splitlines() if not line.endswith(" ms")]
    return code, out, lines


def _one_damage_line(code: int, lines: list[str], table: str, store: Path) -> None:
    assert code == 1, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"Error: the store's {table} table is damaged ("), lines[0]
    assert lines[0].endswith(f"); run `memlens check --store {store}` (`--repair` fixes it)")


@pytest.mark.parametrize("argv", READS, ids=[" ".join(a) for a in READS])
@pytest.mark.parametrize("kind", LOUD)
def test_a_read_on_a_damaged_table_is_one_line_naming_it(
        base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str,
        argv: list[str]) -> None:
    store = damaged_copy(base, tmp_path / "store", kind)
    code, _, lines = _run(store, argv, capsys, tmp_path)
    _one_damage_line(code, lines, TABLE_OF[kind], store)


@pytest.mark.parametrize("argv", [["stats"], ["search", "deploy"], ["export", "{out}"]])
def test_a_deleted_edges_file_is_one_line_naming_edges(
        base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        argv: list[str]) -> None:
    store = damaged_copy(base, tmp_path / "store", "edges data file deleted")
    code, _, lines = _run(store, argv, capsys, tmp_path)
    _one_damage_line(code, lines, "edges", store)


@pytest.mark.parametrize("preset", ["hybrid", "bm25"])
def test_a_deleted_full_text_index_degrades_search(
        base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], preset: str) -> None:
    store = damaged_copy(base, tmp_path / "store", "full-text index deleted")
    code, out, lines = _run(store, ["search", "deploy", "--preset", preset], capsys, tmp_path)
    assert code == 0, lines
    assert lines == ["degraded: BM25 is off: the full-text index is damaged ("
                     + lines[0].split("(", 1)[1]]
    assert lines[0].endswith("does not read); run `memlens check --repair` to rebuild it")
    assert out.count("\n") == 10  # the vector engine's hits


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_check_reports_each_damage_and_exits_1(
        base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    store = damaged_copy(base, tmp_path / "store", kind)
    code, out, lines = _run(store, ["check"], capsys, tmp_path)
    assert code == 1, (out, lines)
    problems = [line for line in out.splitlines() if line.startswith(f"  {TABLE_OF[kind]}  ")]
    assert problems, out
    assert out.splitlines()[-1] == "run `memlens check --repair` to see what a repair does"


def test_check_on_a_sound_store_exits_0(base: Path, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    code, out, _ = _run(base, ["check"], capsys, tmp_path)
    assert code == 0, out
    assert out.splitlines()[1:] == [
        "  memories  version 6  reads whole", "  edges     version 2  reads whole",
        "  audit     version 5  reads whole", "  events    version 2  reads whole",
        "  (re-embedded a sample of 64 of 120 vectors)", "no problem found"]


@pytest.mark.parametrize("kind", SILENT)
def test_what_reads_passed_silently_check_finds(
        base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    store = damaged_copy(base, tmp_path / "store", kind)
    assert _run(store, ["stats"], capsys, tmp_path)[0] == 0  # still silent to reads
    code, out, _ = _run(store, ["check", "--json"], capsys, tmp_path)
    import json

    found = json.loads(out)
    assert code == 1 and not found["clean"]
    assert {p["kind"] for p in found["problems"]} == (
        {"vector"} if kind == "vectors zeroed" else {"lost"})


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_check_repair_fixes_each_damage(
        base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    store = damaged_copy(base, tmp_path / "store", kind)
    code, out, lines = _run(store, ["check", "--repair", "--yes"], capsys, tmp_path)
    assert code == 0, (out, lines)
    assert "the repair will:" in out
    assert out.splitlines()[-1] == ("repaired: no problem found now (the repair is in "
                                    "`memlens audit`)")
    for argv in READS:
        code, _, lines = _run(store, argv, capsys, tmp_path)
        assert code == 0 and not [x for x in lines if x.startswith("degraded")], (argv, lines)
    assert _run(store, ["check"], capsys, tmp_path)[0] == 0


def test_check_repair_asks_first_and_a_no_writes_nothing(
        base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    store = damaged_copy(base, tmp_path / "store", "memories data file deleted")
    before = sorted(str(p) for p in store.rglob("*"))
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out, lines = _run(store, ["check", "--repair"], capsys, tmp_path)
    assert code == 1 and lines[-1] == "aborted"
    assert ("  restore memories from version 6 to version 5, the newest whose files all "
            "read") in out.splitlines()
    assert sorted(str(p) for p in store.rglob("*")) == before


def test_check_repair_is_refused_read_only(base: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store = damaged_copy(base, tmp_path / "store", "full-text index deleted")
    code, _, lines = _run(store, ["--read-only", "check", "--repair", "--yes"], capsys,
                          tmp_path)
    assert code == 1 and "`memlens check --repair` is refused" in lines[-1]
