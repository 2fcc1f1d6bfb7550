"""`memlens bench pages` (memlens_app/bench_pages.py, which the command runs in a subprocess)
on a small synthetic store: each page renders in its own process and every figure is reported
against the target. Never timings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlens_app.bench_pages import (
    FIRST_RENDER_TARGET_S,
    TARGET_PAGES,
    check_pages,
    main,
    page_names,
    run_pages_bench,
)
from tests.conftest import run_cli


def test_the_pages_are_the_apps() -> None:
    from memlens_app.widgets.common.routes import PAGES

    assert set(page_names()) == {Path(p.script).stem for p in PAGES}
    assert check_pages(()) == TARGET_PAGES == ("overview", "search")
    with pytest.raises(ValueError,
                       match="unknown page.s. ovreview; the pages are: agents, curate, "):
        check_pages(["ovreview"])


@pytest.mark.parametrize("argv, message", [
    (["bench", "pages"], "give either --store PATH or --n N"),
    (["bench", "pages", "--n", "300", "--store", "x"], "give either --store PATH or --n N"),
    pytest.param(["bench", "pages", "--n", "300", "--page", "nope"],
                 "Invalid value for --page: unknown page(s) nope", marks=pytest.mark.slow),
    pytest.param(["bench", "pages", "--store", "/nowhere/at/all"], "/nowhere/at/all",
                 marks=pytest.mark.slow),
])
def test_a_bad_command_line_is_one_line(argv: list[str], message: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(argv, capsys)
    assert code == 1 and out == "" and message in err and "Traceback" not in err


def test_the_bench_answers_the_command_in_one_json_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    main([json.dumps({"store_uri": "/nowhere", "pages": ["ovreview"]})])
    said = json.loads(capsys.readouterr().out)
    assert said["param"] == "--page" and said["error"].startswith("unknown page(s) ovreview")


@pytest.mark.slow  # three fresh Pythons import Streamlit, LanceDB and polars
def test_bench_renders_each_page_and_reports_every_figure(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # nothing is embedded
    result = run_pages_bench(n=300, index=False, pages=["overview", "graph"])
    assert (result.memories, result.tenant) == (300, "default") and result.edges > 0
    assert [r.page for r in result.renders] == ["overview", "graph"]
    assert all(r.problems == () and r.first_s > 0 and r.peak_rss_mib >= r.rss_start_mib
               for r in result.renders)
    assert result.ratios() == {"overview": result.renders[0].first_s / FIRST_RENDER_TARGET_S}
    lines = result.lines()
    [overview] = [x for x in lines if x.startswith("overview first render")]
    assert "target <= 5 s" in overview and "peak RSS" in overview
    [graph] = [x for x in lines if x.startswith("graph first render")]
    assert "(no target)" in graph
    assert any(x.startswith("load average") for x in lines)
    code, out, _ = run_cli(["bench", "pages", "--store", result.uri, "--json"], capsys)
    # the temporary store is gone once the run ends: one line, not a traceback
    assert code == 1 and out == ""


@pytest.mark.slow
def test_cli_json_on_a_store_opened_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    store = str(tmp_path / "store")
    lines = tmp_path / "in.ndjson"
    lines.write_text("".join(f'{{"content": "note {i}"}}\n' for i in range(5)))
    assert run_cli(["--store", store, "add", "--file", str(lines)], capsys)[0] == 0
    before = sorted(p.name for p in (Path(store) / "memories.lance" / "_versions").iterdir())
    code, out, _ = run_cli(["bench", "pages", "--store", store, "--page", "search", "--json"],
                           capsys)
    figures = json.loads(out)
    assert code == 0 and figures["memories"] == 5 and figures["index_warning"] is None
    assert [r["page"] for r in figures["renders"]] == ["search"]
    assert set(figures["ratios"]) == set(figures["within_target"]) == {"search"}
    after = sorted(p.name for p in (Path(store) / "memories.lance" / "_versions").iterdir())
    assert after == before  # read only: not a version more


@pytest.mark.parametrize("outcome, problem", [
    ("timeout", "its process did not end within"),
    ("crash", "its process failed: Traceback: boom"),
])
def test_a_page_whose_process_fails_is_that_pages_problem(
        outcome: str, problem: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from memlens_app.bench_pages import render_page

    def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        if outcome == "timeout":
            raise subprocess.TimeoutExpired(argv, 1.0)
        return subprocess.CompletedProcess(argv, 1, stdout="", stderr="Traceback: boom")

    monkeypatch.setattr(subprocess, "run", run)
    render = render_page("/nowhere", "default", "map", timeout=1)
    assert render.page == "map" and render.again_s is None
    [said] = render.problems
    assert said.startswith(problem)
