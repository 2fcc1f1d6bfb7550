"""`memlens eval`: JSON and tables on the demo store, one-line errors for mistakes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memory_core.retrieval.config import preset
from memory_core.seeding import DEMO_QUERIES, demo_dir
from memory_core.store import MemoryStore
from tests.conftest import run_cli

QUERIES = str(demo_dir() / DEMO_QUERIES)


@pytest.mark.model
def test_compare_json_on_the_full_demo_set(demo_store: MemoryStore,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    started = time.perf_counter()
    code, out, err = run_cli(["eval", "--queries", QUERIES, "--preset", "hybrid", "--compare",
                              "full", "--json", "--store", demo_store.uri], capsys)
    elapsed = time.perf_counter() - started
    assert code == 0, err
    doc = json.loads(out)
    assert doc["queries"] == 154 and doc["ks"] == [5, 10]
    assert [r["name"] for r in doc["results"]] == ["hybrid", "full"]
    assert doc["results"][1]["config"] == preset("full").to_dict()
    assert all(len(r["per_query"]) == 154 for r in doc["results"])
    cmp = doc["comparison"]
    assert cmp["stat_test"] == "student" and cmp["primary"] == "ndcg@10"
    assert [row["metric"] for row in cmp["summary"]] == doc["metrics"]
    for row in cmp["summary"]:
        assert 0.0 <= row["p_value"] <= 1.0
        assert row["marker"] == ("*" if row["p_value"] < 0.05 else "")
        assert row["wins"] + row["ties"] + row["losses"] == 154
        assert row["delta"] == pytest.approx(row["candidate"] - row["baseline"])
    deltas = [w["delta"] for w in cmp["worst"]]
    assert len(deltas) <= 5 and all(d < 0 for d in deltas) and deltas == sorted(deltas)
    assert {t["tag"] for t in cmp["by_tag"]} >= {"paraphrase", "keyword", "why", "filtered"}
    means = {r["metric"]: r["mean"] for r in doc["results"][0]["summary"]}
    assert means["recall@10"] > 0.3 and means["mrr@10"] > 0.3  # hybrid finds things
    print(f"full demo set, hybrid vs full: {elapsed:.1f} s")  # shown with -s


@pytest.mark.model
def test_tables_of_a_comparison(demo_store: MemoryStore,
                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["eval", "--queries", QUERIES, "--tag", "why", "--preset", "bm25",
                              "--compare", "hybrid_graph", "--k", "3,10", "--store",
                              demo_store.uri], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "bm25 -> hybrid_graph on 30 queries (k = 3, 10; student test, * p < 0.05)"
    assert lines[2].split() == ["metric", "bm25", "hybrid_graph", "delta", "p-value", "W/T/L",
                                "(hybrid_graph)"]
    assert lines[3].split()[0] == "recall@3" and "/" in lines[3].split()[-1]
    assert "worst regressions on ndcg@10" in out and "by tag (ndcg@10, worst first):" in out
    assert "evaluated in" in err


@pytest.mark.model
def test_one_config_from_a_json_file(demo_store: MemoryStore, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "lexical.json"
    config.write_text(preset("bm25").to_json(), encoding="utf-8")
    code, out, err = run_cli(["eval", "--queries", QUERIES, "--tag", "keyword", "--config",
                              str(config), "--store", demo_store.uri], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "lexical on 40 queries (k = 5, 10)"
    assert "95% CI" in out and "by tag (ndcg@10):" in out and "keyword" in out


@pytest.mark.model
def test_as_of_pins_the_decay_clock(demo_store: MemoryStore,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    def ndcg(as_of: str) -> dict[str, float]:
        code, out, err = run_cli(["eval", "--queries", QUERIES, "--tag", "keyword", "--preset",
                                  "full", "--as-of", as_of, "--json", "--store",
                                  demo_store.uri], capsys)
        assert code == 0, err
        doc = json.loads(out)
        assert doc["as_of"].startswith(as_of[:10])
        return {r["qid"]: r["ndcg@10"] for r in doc["results"][0]["per_query"]}

    # the corpus was written April to September 2026: a week after its end, and years later
    # when only stability separates old from new, rank differently; the same day twice agrees
    week_after = ndcg("2026-10-07")
    assert ndcg("2026-10-07T00:00:00Z") == week_after
    assert ndcg("2031-01-01") != week_after
    code, out, _ = run_cli(["eval", "--queries", QUERIES, "--tag", "keyword", "--preset", "full",
                            "--as-of", "2026-10-07", "--store", demo_store.uri], capsys)
    assert code == 0
    assert out.splitlines()[0] == ("full on 40 queries (k = 5, 10; decay as of 2026-10-07 "
                                   "00:00 UTC)")


@pytest.mark.model
def test_a_set_for_another_store_is_refused_and_one_that_finds_nothing_scores_zero(
        demo_store: MemoryStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    two = [json.loads(line) for line in (demo_dir() / DEMO_QUERIES).read_text().splitlines()
           ][:2]
    elsewhere = tmp_path / "elsewhere.ndjson"
    elsewhere.write_text(json.dumps({"qid": "x1", "query": "uv", "relevant": {"nope": 1}})
                         + "\n")
    code, out, err = run_cli(["eval", "--queries", str(elsewhere), "--store", demo_store.uri],
                             capsys)
    assert code == 1 and out == ""
    assert "none of the 1 queries has a relevant memory in tenant 'default'" in err
    assert len(err.strip().splitlines()) == 1
    # the right store, but a filter no memory passes: no query finds anything -> all 0
    scoped = tmp_path / "scoped.ndjson"
    scoped.write_text("".join(json.dumps({**q, "filter": {"project": "no-such"}}) + "\n"
                              for q in two))
    code, out, err = run_cli(["eval", "--queries", str(scoped), "--preset", "vector",
                              "--compare", "bm25", "--json", "--store", demo_store.uri], capsys)
    assert code == 0, err
    doc = json.loads(out)
    for result in doc["results"]:
        assert [r["recall@10"] for r in result["per_query"]] == [0.0, 0.0]
    assert all(row["p_value"] == 1.0 for row in doc["comparison"]["summary"])


def _queries_file(tmp_path: Path) -> Path:
    path = tmp_path / "q.ndjson"
    path.write_text(json.dumps({"qid": "q1", "query": "uv", "relevant": {"m": 1},
                                "tags": ["why"]}) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("extra, message", [
    (["--k", "5,x"], "Invalid value for '--k'"),
    (["--k", "0"], "cut-offs must be >= 1"),
    (["--preset", "bm25", "--config", "{cfg}"], "give --preset or --config, not both"),
    (["--compare", "bm25", "--compare-config", "{cfg}"], "give --compare or --compare-config"),
    (["--config", "{bad}"], "is not a RankingConfig JSON object"),
    (["--config", "{unknown}"], "unknown ranking option(s) colour"),
    (["--tag", "nope"], "no query has the tag(s) nope; known tags: why"),
    (["--preset", "fast"], "Invalid value for '--preset'"),
    (["--stat-test", "wilcoxon"], "Invalid value for '--stat-test'"),
    (["--as-of", "last tuesday"], "expected an ISO-8601 date or time"),
])
def test_mistakes_are_one_line_and_exit_1(tmp_path: Path, extra: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    files = {"cfg": tmp_path / "c.json", "bad": tmp_path / "bad.json",
             "unknown": tmp_path / "u.json"}
    files["cfg"].write_text(preset("bm25").to_json())
    files["bad"].write_text("[1, 2")
    files["unknown"].write_text('{"colour": "red"}')
    argv = ["eval", "--queries", str(_queries_file(tmp_path)), "--store",
            str(tmp_path / "store"),
            *[str(files[a[1:-1]]) if a.startswith("{") else a for a in extra]]
    code, _, err = run_cli(argv, capsys)
    assert code == 1 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_query_sets_name_the_line(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _queries_file(tmp_path)
    path.write_text(path.read_text() + '{"qid": "q2", "query": "x", "relevant": {"m": 0}}\n')
    code, _, err = run_cli(["eval", "--queries", str(path)], capsys)
    assert code == 1 and f"{path}:2: grade of 'm' must be an integer >= 1" in err
    code, _, err = run_cli(["eval", "--queries", str(tmp_path / "absent.ndjson")], capsys)
    assert code == 1 and "does not exist" in err


def test_eval_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["eval", "--help"], capsys)
    assert code == 0 and "--compare-config" in out and "--stat-test" in out


@pytest.mark.model
def test_compare_model_reembeds_a_copy_and_leaves_the_store(
        demo_store: MemoryStore, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import memory_core.embedding as embedding
    from tests.conftest import FakeEmbedder

    real = embedding.load_embedder

    def load(settings=None):  # type: ignore[no-untyped-def]
        if settings is not None and settings.embed_model == FakeEmbedder.model_id:
            return FakeEmbedder()
        return real(settings)

    monkeypatch.setattr(embedding, "load_embedder", load)
    versions = demo_store.table_versions()
    code, out, err = run_cli(["eval", "--queries", QUERIES, "--tag", "costs", "--preset",
                              "vector", "--compare-model", FakeEmbedder.model_id, "--json",
                              "--store", demo_store.uri], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["models"] == ["sentence-transformers/all-MiniLM-L6-v2", FakeEmbedder.model_id]
    assert doc["config"] == "vector"
    summary = {row["metric"]: row for row in doc["comparison"]["summary"]}
    assert summary["ndcg@10"]["p_value"] is not None
    # a bag-of-words toy model retrieves worse than MiniLM on paraphrases
    assert summary["ndcg@10"]["delta"] < 0
    assert demo_store.table_versions() == versions
    code, _, err = run_cli(["eval", "--queries", QUERIES, "--compare", "bm25",
                            "--compare-model", "x", "--store", demo_store.uri], capsys)
    assert code == 1 and "--compare-model compares models under one config" in err


@pytest.fixture
def small_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """A store of the fake embedder, which `memlens` opens too: two herd memories in tenant
    'default', one in 'acme'."""
    import memory_core.store.memory_store as memory_store
    from memory_core.model.records import Memory
    from tests.conftest import FakeEmbedder

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    store.add([Memory.new("ci cache key includes the lockfile hash", id="cache",
                          project="herd"),
               Memory.new("prefer uv over pip", id="uv", project="herd")])
    MemoryStore.open(store.uri, tenant="acme", embedder=FakeEmbedder()).add(
        [Memory.new("acme caches the lockfile too", id="acme-1", project="herd")])
    return store


@pytest.mark.slow
def test_every_query_that_retrieved_nothing_is_named_on_stderr_and_in_json(
        small_store: MemoryStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [{"qid": "found", "query": "lockfile cache", "relevant": {"cache": 1}},
             {"qid": "acme", "query": "lockfile cache", "relevant": {"cache": 1},
              "filter": {"tenant": "acme"}},
             {"qid": "zeta", "query": "lockfile cache", "relevant": {"cache": 1},
              "filter": {"project": "zeta"}},
             {"qid": "ghost", "query": "lockfile cache", "relevant": {"elsewhere": 1}},
             {"qid": "no-words", "query": "zebra quartz", "relevant": {"cache": 1}},
             {"qid": "evil\u001b[2J", "query": "lockfile", "relevant": {"cache": 1},
              "filter": {"project": "x\u001b]0;pwned\u0007"}}]
    lines += [{"qid": f"t{n:02}", "query": "lockfile", "relevant": {"cache": 1},
               "filter": {"tenant": f"tenant-{n}"}} for n in range(8)]
    path = tmp_path / "q.ndjson"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    argv = ["eval", "--queries", str(path), "--preset", "bm25", "--compare", "hybrid",
            "--store", small_store.uri]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    warned = err.splitlines()
    start = next(i for i, line in enumerate(warned) if line.startswith("warning:"))
    assert warned[start] == ("warning: 13 of 14 queries retrieved nothing or have no relevant "
                             "memory in the tenant, so they score 0; is the query set made "
                             "for this store and tenant?")
    assert warned[start + 1:start + 12] == [
        "  'acme' retrieved nothing: its filter names tenant 'acme' (another tenant); "
        "evaluation searches tenant 'default' only",
        "  'zeta' retrieved nothing: its filter matches no memory of tenant 'default': "
        "nothing matches project 'zeta'",
        "  'ghost' has no relevant memory in the tenant",
        "  'no-words' retrieved nothing (under bm25 only)",
        "  'evil\\x1b[2J' retrieved nothing: its filter matches no memory of tenant "
        "'default': nothing matches project 'x\\x1b]0;pwned\\x07'",
        *[f"  't{n:02}' retrieved nothing: its filter names tenant 'tenant-{n}' (a tenant "
          f"this store does not have); evaluation searches tenant 'default' only"
          for n in range(5)],
        "  ... and 3 more (--json lists them all)",
    ]
    assert "\x1b" not in err and "\x07" not in err
    assert "evaluated in" in warned[-1]
    # the same list, whole, in --json
    code, out, err = run_cli([*argv, "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert [(w["qid"], w["kind"], w["configs"]) for w in doc["warnings"]] == [
        ("acme", "empty", ["bm25", "hybrid"]), ("zeta", "empty", ["bm25", "hybrid"]),
        ("ghost", "unreachable", ["bm25", "hybrid"]), ("no-words", "empty", ["bm25"]),
        ("evil\u001b[2J", "empty", ["bm25", "hybrid"]),
        *[(f"t{n:02}", "empty", ["bm25", "hybrid"]) for n in range(8)]]
    assert doc["comparison"]["warnings"] == doc["warnings"]
    assert [w["qid"] for w in doc["results"][1]["warnings"]][:3] == ["acme", "zeta", "ghost"]
