"""`memlens duplicates`: the planted near copy listed (closest first), exact copies left
out, hostile content escaped on the terminal and whole in JSON, a bad threshold one line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder, run_cli
from tests.memory_core.cli.test_terminal import ATTACK, SHOWN, terminal_controls


def _vector(cosine: float, axis: int = 0) -> list[float]:
    """A unit vector at `cosine` from axis `axis`, in the plane of it and the next axis."""
    vector = np.zeros(FAKE_DIM)
    vector[axis], vector[axis + 1] = cosine, math.sqrt(1 - cosine**2)
    return list(vector)


@pytest.fixture
def uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """base ~ near (0.99, hostile text, herd) ~ close (0.97); far ~ far2 (0.96, lumen);
    base's exact copy."""
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    store.add([
        Memory.new("deploy with blue green", "decision", id="base", project="herd",
                   vector=_vector(1.0)),
        Memory.new(f"<b>deploy</b> with blue/green {ATTACK}", "decision", id="near",
                   project="herd", vector=_vector(0.99)),
        Memory.new("the cache key holds the tenant", "fact", id="far", project="lumen",
                   vector=_vector(1.0, axis=5)),
        Memory.new("cache keys hold tenants", "fact", id="far2", project="lumen",
                   vector=_vector(0.96, axis=5)),
    ])
    store.add([Memory.new("deploy with blue green", "decision", id="copy",
                          vector=_vector(1.0))], dedup=False)
    return store.uri


def run(uri: str, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_cli(["--store", uri, "duplicates", *argv], capsys)


def test_lists_the_pairs_closest_first_with_escaped_content(
        uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(uri, capsys)
    assert code == 0, err
    assert terminal_controls(out) == [] and terminal_controls(err) == []
    heads = [line.split() for line in out.splitlines() if not line.startswith(" ")]
    assert heads == [["0.9900", "base", "near"], ["0.9900", "copy", "near"],
                     ["0.9600", "far", "far2"]]
    assert f"    b: <b>deploy</b> with blue/green {SHOWN[:30]}" in out  # shown, not obeyed
    assert "3 near-duplicate pairs with cosine >= 0.95" in err


def test_json_holds_the_pairs_whole(uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(uri, capsys, "--json", "--project", "herd")
    assert code == 0, err
    pairs = json.loads(out)
    assert [(p["a"], p["b"]) for p in pairs] == [("base", "near")]  # copy has no project
    assert pairs[0]["b_content"] == f"<b>deploy</b> with blue/green {ATTACK}"
    assert pairs[0]["cosine"] == pytest.approx(0.99, abs=1e-6)
    assert set(pairs[0]) == {"a", "b", "cosine", "a_content", "b_content"}


def test_threshold_and_limit(uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(uri, capsys, "--threshold", "0.97", "--json")
    assert code == 0 and [p["b"] for p in json.loads(out)] == ["near", "near"]
    code, out, err = run(uri, capsys, "--limit", "1")
    assert code == 0 and out.splitlines()[0].split() == ["0.9900", "base", "near"]
    assert len(out.splitlines()) == 3 and "(the closest 1)" in err
    code, out, err = run(uri, capsys, "--threshold", "1")
    assert code == 0 and out == "" and "0 near-duplicate pairs" in err


@pytest.mark.parametrize("threshold", ["0", "1.5", "-0.2", "nan"])
def test_a_threshold_outside_0_1_is_one_line(uri: str, capsys: pytest.CaptureFixture[str],
                                             threshold: str) -> None:
    code, out, err = run(uri, capsys, "--threshold", threshold)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "threshold must be a cosine in (0, 1]" in err
