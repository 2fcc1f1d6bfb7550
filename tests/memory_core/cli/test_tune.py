"""`memlens tune`: tables, JSON and a config file that the other commands load, on a store
without a model (BM25 and the graph), and one-line errors for mistakes."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_core.model.config import Settings
from memory_core.model.records import Edge, Memory
from memory_core.retrieval.config import RankingConfig, preset
from memory_core.store import MemoryStore
from tests.conftest import run_cli
from tests.memory_core.cli.home import offline_home

run = run_cli
WHEN = datetime(2026, 9, 1, tzinfo=UTC)
PAIRS = (("uv pip installs", "lockfile hash policy"),
         ("token refresh race", "grace window rotation"),
         ("standup moved thursday", "calendar invite owner"),
         ("flaky snapshot tests", "golden files regenerated"))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store without a model: each query's words are in one memory whose only link leads
    to the relevant memory, which shares no word with the query. Only the graph finds it, and
    ranks it first (graph weight 1.5 / (60 + 1) over BM25's 1 / (60 + 1)): nDCG@10 is 1 with
    `use_graph` on and 0 with it off."""
    offline_home(tmp_path, monkeypatch)
    store = MemoryStore.open(settings=Settings.from_env(store_uri=str(tmp_path / "store")))
    lines = []
    for i, (asked, answer) in enumerate(PAIRS):
        seed = Memory.new(asked, created_at=WHEN)
        target = Memory.new(answer, created_at=WHEN)
        store.add([seed, target])
        store.edges.add([Edge.new(seed.id, target.id, "related_to", created_at=WHEN)])
        lines.append(json.dumps({"qid": f"q{i}", "query": asked, "relevant": {target.id: 1}}))
    (tmp_path / "q.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "space.json").write_text('{"use_graph": [false, true]}', encoding="utf-8")
    return tmp_path


ARGS = ["--store", "store", "tune", "--queries", "q.ndjson", "--preset", "hybrid",
        "--space", "space.json", "--folds", "2", "--as-of", "2026-10-01"]


def test_tables_and_a_config_that_search_and_eval_load(home: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    code, out, err = run([*ARGS, "--out", "tuned.json"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == ("tuned hybrid on 4 queries: 2 configs, 2 folds (seed 0), ndcg@10; "
                        "decay as of 2026-10-01 00:00 UTC")
    assert lines[3].split() == ["config", "mean", "sd", "delta"]
    assert lines[4].split() == ["hybrid", "0.000", "0.000"]
    assert lines[5].split() == ["tuned", "1.000", "0.000", "+1.000"]
    assert "chosen: #1, the best on all queries (chosen in 2 of 2 folds)" in out
    assert "  use_graph: False -> True" in lines
    assert "degraded: vector search is off" in err and "tuned in" in err
    tuned = RankingConfig.from_dict(json.loads((home / "tuned.json").read_text()))
    assert tuned == preset("hybrid").with_changes(use_graph=True)
    code, out, err = run(["--store", "store", "eval", "--queries", "q.ndjson", "--config",
                          "tuned.json", "--json"], capsys)
    assert code == 0, err
    [result] = json.loads(out)["results"]
    assert result["name"] == "tuned" and RankingConfig.from_dict(result["config"]) == tuned
    code, out, err = run(["--store", "store", "search", "uv pip", "--config", "tuned.json",
                          "--json"], capsys)
    assert code == 0, err
    assert [h["memory"]["content"] for h in json.loads(out)["hits"]] == list(reversed(PAIRS[0]))


def test_json(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*ARGS, "--json", "--seed", "3"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["base_label"] == "hybrid" and doc["space"] == {"use_graph": [False, True]}
    assert doc["seed"] == 3 and doc["folds"] == 2 and doc["queries"] == 4
    assert doc["tuned"] == {"mean": 1.0, "sd": 0.0}
    assert doc["base"] == {"mean": 0.0, "sd": 0.0} and doc["out"] is None
    assert doc["chosen"]["knobs"] == {"use_graph": True}
    assert [f["config"] for f in doc["per_fold"]] == [1, 1]
    assert sorted(len(f) for f in doc["per_fold"]) == [7, 7]
    assert RankingConfig.from_dict(doc["ranking_config"]).use_graph


@pytest.mark.parametrize("extra, message", [
    (["--folds", "5"], "Error: 5 folds need at least 5 queries, the set has 4; use fewer "
                       "folds"),
    (["--folds", "1"], "Error: Invalid value for '--folds': 1 is not in the range x>=2."),
    (["--metric", "ndcg"], "Error: unknown metric 'ndcg'; use one of recall@K"),
    (["--as-of", "soon"], "Error: Invalid value for '--as-of': expected an ISO-8601 date"),
    (["--config", "space.json"], "Error: give --preset or --config, not both"),
])
def test_mistakes_are_one_line_and_exit_1(home: Path, extra: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*ARGS, *extra], capsys)
    assert code == 1 and out == ""
    assert err.startswith(message) and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("space, message", [
    ('{"weight_bm52": [1]}', "Error: unknown knob(s) 'weight_bm52'; known: "),
    ('[1, 2]', "Error: space.json must hold a JSON object of knob -> list of values"),
    ("{", "Error: space.json is not JSON: "),
    ('{"rrf_k": [0]}', "Error: every combination of the search space is invalid: rrf_k must "
                       "be >= 1"),
])
def test_a_bad_space_is_one_line(home: Path, space: str, message: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    (home / "space.json").write_text(space, encoding="utf-8")
    code, out, err = run(ARGS, capsys)
    assert code == 1 and err.startswith(message) and len(err.strip().splitlines()) == 1


# -- a large query set: sampled, estimated, with progress -----------------------------------

def test_a_set_larger_than_sample_is_tuned_on_a_seeded_sample(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*ARGS, "--sample", "3", "--seed", "1"], capsys)
    assert code == 0, err
    assert ("q.ndjson holds 4 queries; tuning on a sample of 3 drawn with seed 1 (--sample 0 "
            "tunes on every query)") in err.splitlines()
    assert out.startswith("tuned hybrid on 3 queries: 2 configs, 2 folds (seed 1)")
    code, out, err = run([*ARGS, "--sample", "0"], capsys)
    assert code == 0 and "holds 4 queries" not in err and "tuned hybrid on 4 queries" in out


def test_the_default_cap_says_how_to_raise_it(home: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from memory_core.cli.tune import tune_command

    [sample] = [p for p in tune_command.params if p.name == "sample_size"]
    monkeypatch.setattr(sample, "default", 2)  # the real cap, 1,000, on a set of 4
    code, out, err = run(ARGS, capsys)
    assert code == 0, err
    assert ("q.ndjson holds 4 queries; tuning on a sample of 2 drawn with seed 0 (tune caps a "
            "set at 2 queries unless told: --sample N tunes on N, --sample 0 on every query)"
            ) in err.splitlines()
    assert "tuned hybrid on 2 queries" in out


def test_the_time_is_estimated_before_tuning(home: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(ARGS, capsys)
    assert code == 0, err
    [line] = [x for x in err.splitlines() if x.startswith("estimated ")]
    assert re.fullmatch(r"estimated \d+ s: 8 searches \(2 configs x 4 queries\) at [\d,]+ ms "
                        r"each \(timed on 3\)", line), line


def test_progress_is_shown_on_a_terminal(home: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # tqdm draws on terminals only
    code, _, err = run(ARGS, capsys)
    assert code == 0, err
    assert "\rreading queries: " in err  # the count only, at first: no total to read to
    assert re.search(r"\rtuning: +0%\|[^|]*\| 0/8 \[", err), err  # then as it goes
