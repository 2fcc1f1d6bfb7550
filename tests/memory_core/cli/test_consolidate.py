"""`memlens consolidate suggest | accept | reject | evaluate` on the hand-built clusters:
listed strongest first (hostile text escaped, whole in JSON), accepted as a reflection with
its draft or an edited file, rejected until a member changes, scored against reflections;
mistakes are one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder, run_cli
from tests.memory_core.cli.test_terminal import ATTACK, terminal_controls
from tests.memory_core.consolidation.clusters import build, unit


@pytest.fixture
def uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The clusters, and a hostile pair (control characters in content and agent)."""
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    build(store)
    rng = np.random.default_rng(1)
    store.add([Memory.new(f"Hostile note {k} {ATTACK}. It repeats.", "observation",
                          id=f"h{k}", project="shop", agent=f"bot{ATTACK}",
                          vector=unit(10, rng.standard_normal(FAKE_DIM), 0.05))
               for k in range(2)])
    return store.uri


def run(uri: str, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_cli(["--store", uri, "consolidate", *argv], capsys)


def suggested(uri: str, capsys: pytest.CaptureFixture[str], *argv: str
              ) -> list[dict[str, Any]]:
    code, out, err = run(uri, capsys, "suggest", "--json", *argv)
    assert code == 0, err
    found: list[dict[str, Any]] = json.loads(out)
    return found


def test_suggest_lists_the_candidates_strongest_first_escaped(
        uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    found = suggested(uri, capsys)
    assert {frozenset(c["members"]) for c in found} == {
        frozenset({"a0", "a1", "a2", "a3"}), frozenset({"b0", "b1", "b2", "b3"}),
        frozenset({"c0", "c1", "c2", "c3"}), frozenset({"e0", "e1"}),
        frozenset({"h0", "h1"})}
    strengths = [c["strength"] for c in found]
    assert strengths == sorted(strengths, reverse=True)
    assert any(ATTACK in str(c["draft"]) for c in found)  # JSON keeps the text whole
    code, out, err = run(uri, capsys, "suggest")
    assert code == 0, err
    assert terminal_controls(out) == [] and terminal_controls(err) == []
    heads = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert heads == [c["id"] for c in found]
    assert "5 candidates" in err


def test_suggest_takes_filters_and_a_limit(uri: str, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    # e1 is the only learning: the one candidate with a member of that type
    found = suggested(uri, capsys, "--type", "learning")
    assert [set(c["members"]) for c in found] == [{"e0", "e1"}]
    assert len(suggested(uri, capsys, "--limit", "2")) == 2


def test_accept_writes_the_draft_as_a_reflection(uri: str, capsys: pytest.CaptureFixture[str]
                                                ) -> None:
    first = suggested(uri, capsys)[0]
    code, out, err = run(uri, capsys, "accept", str(first["id"]), "--yes")
    assert code == 0, err
    assert "undo it with: memlens undo" in out
    store = MemoryStore.open(uri, embedder=FakeEmbedder())
    (reflection,) = [m for m in store.list() if m.memory_type == "reflection"]
    assert reflection.content == first["draft"]
    assert reflection.metadata["method"] == "rule_based"
    assert reflection.metadata["source_count"] == len(first["members"])
    sources = {e.target_id for e in store.edges.list(memory_id=reflection.id)
               if e.relation == "derived_from"}
    assert sources == set(first["members"])
    assert first["id"] not in {c["id"] for c in suggested(uri, capsys)}


def test_accept_with_an_edited_file_is_a_manual_reflection(
        uri: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = suggested(uri, capsys)[0]
    text = tmp_path / "reflection.md"
    text.write_text("Warm caches before traffic arrives.\n", encoding="utf-8")
    code, _, err = run(uri, capsys, "accept", str(first["id"]), "--edit", str(text), "--yes")
    assert code == 0, err
    store = MemoryStore.open(uri, embedder=FakeEmbedder())
    (reflection,) = [m for m in store.list() if m.memory_type == "reflection"]
    assert reflection.content == "Warm caches before traffic arrives."
    assert reflection.metadata["method"] == "manual"


def test_accept_dry_run_writes_nothing(uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    first = suggested(uri, capsys)[0]
    code, out, err = run(uri, capsys, "accept", str(first["id"]), "--dry-run")
    assert code == 0, err
    assert "reflection" in out or "consolidate" in out
    store = MemoryStore.open(uri, embedder=FakeEmbedder())
    assert not [m for m in store.list() if m.memory_type == "reflection"]


def test_reject_leaves_the_candidate_out_until_asked(uri: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    first = suggested(uri, capsys)[0]
    code, out, err = run(uri, capsys, "reject", str(first["id"]), "--reason", "two episodes")
    assert code == 0, err
    assert "not suggested again" in out
    assert first["id"] not in {c["id"] for c in suggested(uri, capsys)}
    assert first["id"] in {c["id"] for c in suggested(uri, capsys, "--include-rejected")}


@pytest.mark.parametrize("command", ["accept", "reject"])
def test_an_unknown_candidate_is_one_line(uri: str, command: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(uri, capsys, command, "0123456789abcdef")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "memlens consolidate suggest" in err


@pytest.mark.parametrize("command", ["accept", "reject"])
def test_a_read_only_store_refuses_writes(uri: str, command: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    first = suggested(uri, capsys)[0]
    code, out, err = run_cli(["--read-only", "--store", uri, "consolidate", command,
                              str(first["id"]), *(["--yes"] if command == "accept" else [])],
                             capsys)
    assert code == 1 and err.count("\n") == 1 and "read-only" in err


def test_evaluate_scores_against_the_reflections(uri: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    store = MemoryStore.open(uri, embedder=FakeEmbedder())
    store.add([Memory.new("Warm caches before traffic.", "reflection", id="r", project="shop"),
               Memory.new("Index what exports read.", "reflection", id="s", project="shop")])
    store.edges.add([Edge.new("r", m, "derived_from") for m in ("a0", "a1", "a2", "a3")]
                    + [Edge.new("s", m, "derived_from") for m in ("b0", "b1", "b2", "b3")])
    code, out, err = run(uri, capsys, "evaluate", "--json")
    assert code == 0, err
    scores = json.loads(out)
    assert (scores["precision"], scores["recall"], scores["f1"], scores["ari"]) == (
        1.0, 1.0, 1.0, 1.0)
    assert scores["truth_sets"] == 2 and scores["labelled"] == 8
    code, out, err = run(uri, capsys, "evaluate")
    assert code == 0 and "F1 1.000" in out


def test_evaluate_without_reflections_is_one_line(uri: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(uri, capsys, "evaluate")
    assert code == 1 and out == "" and "nothing to score" in err and err.count("\n") == 1
