"""`memlens decay at-risk | show | impact | what-if` on a store whose memories have known
ages and stabilities, so the day counts and factors printed are worked out by hand:
the composite of a normal memory never recalled nor cited is R(t, S) = (1 + 0.235 t/S)^-0.5,
below 0.5 once t > 3 S / 0.235."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_core.curation import cite, correct
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli
from tests.memory_core.cli.test_terminal import terminal_controls

AS_OF = datetime(2026, 10, 1, tzinfo=UTC)
HOSTILE = "plain \x1b[31mred\rOVERWRITE \u202etxt.exe"


@pytest.fixture
def uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """fast (S 1 day), slow (S 10), law (constitutional), all created 5 days before AS_OF;
    `fast` carries hostile text."""
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    born = AS_OF - timedelta(days=5)
    store.add([
        Memory.new(f"deploy flag zebra {HOSTILE}", "decision", id="fast", stability=1.0,
                   created_at=born),
        Memory.new("deploy flag okapi", "decision", id="slow", stability=10.0,
                   created_at=born),
        Memory.new("never push to main", "principle", id="law", importance="constitutional",
                   created_at=born),
    ])
    return store.uri


def ok(uri: str, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run_cli(["--store", uri, "decay", *argv], capsys)
    assert code == 0, err
    assert terminal_controls(out) == [] and terminal_controls(err) == []
    return out


def test_at_risk_lists_what_falls_below_within_the_window(
        uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = json.loads(ok(uri, capsys, "at-risk", "--as-of", "2026-10-01", "--json"))
    assert [r["id"] for r in rows] == ["fast"]  # slow: 3 * 10 / 0.235 - 5 = 122.7 days
    assert rows[0]["days_to_threshold"] == pytest.approx(3 * 1.0 / 0.235 - 5)
    assert rows[0]["composite"] == pytest.approx((1 + 0.235 * 5 / 1.0) ** -0.5)
    out = ok(uri, capsys, "at-risk", "--as-of", "2026-10-01", "--within", "200")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ["fast", "slow"]  # sooner first
    assert "below in    7.8 d (2026-10-08)" in lines[0]
    assert "\\x1b[31mred" in lines[0] and "\u202e" not in out
    assert ok(uri, capsys, "at-risk", "--as-of", "2026-10-01", "--within", "200",
              "--limit", "1").count("\n") == 1


def test_show_prints_the_factors_and_the_timeline(
        uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = MemoryStore.open(uri, embedder=FakeEmbedder())
    cite(store, ["slow"], at=AS_OF - timedelta(days=1), query=HOSTILE)
    correct(store, "slow", "rejected", note="renamed")
    out = ok(uri, capsys, "show", "slow", "--as-of", AS_OF.isoformat())
    r = (1 + 0.235 * 5 / 10.0) ** -0.5
    assert (f"composite {r * 1.1:.4f} = R {r:.4f} x usage 1.0000 x anchor 1.00 x "
            f"citation 1.10") in out
    assert "last cited 2026-09-30" in out
    assert "below 0.5 in" in out and "if nobody recalls it" in out
    assert out.count("corrected") == 0  # the correction is after the clock
    later = ok(uri, capsys, "show", "slow")
    assert later.count("corrected (rejected)") == 1  # its event, once
    assert "cited in an answer: plain \\x1b[31mred\\x0dOVERWRITE <U+202E>txt.exe" in later
    doc = json.loads(ok(uri, capsys, "show", "law", "--json"))
    assert doc["factors"]["never_decays"] and doc["factors"]["days_to_threshold"] is None
    assert [e["kind"] for e in doc["events"]] == ["created"]
    assert "never decays" in ok(uri, capsys, "show", "law")


def test_impact_ranks_with_and_without_decay(
        uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(ok(uri, capsys, "impact", "deploy flag", "--as-of", "2026-10-01",
                        "--json"))
    rows = {r["id"]: r for r in doc["rows"]}
    assert {"fast", "slow"} <= set(rows)
    assert rows["fast"]["main_factor"] == "retrievability"
    out = ok(uri, capsys, "impact", "deploy flag", "--preset", "full")
    assert out.splitlines()[0].split() == ["with", "w/o", "shift", "composite", "moved",
                                           "by", "memory"]


def test_what_if_counts_below_the_threshold_now_and_later(
        uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(ok(uri, capsys, "what-if", "--stability-scale", "0.5", "--as-of",
                        "2026-10-01", "--json"))
    everything = {r["horizon"]: (r["below_a"], r["below_b"])
                  for r in doc["rows"] if r["group"] == "all"}
    # fast: below after 12.8 days (6.4 at half S); slow: after 127.7 days (63.8 at half S),
    # both already 5 days old; law never
    assert everything == {0: (0, 0), 30: (1, 1), 90: (1, 2)}
    assert doc["what_if"] == {"stability_scale": 0.5} and doc["memories"] == 3
    out = ok(uri, capsys, "what-if", "--stability-scale", "0.5", "--as-of", "2026-10-01",
             "--horizon", "90")
    assert out.splitlines()[1].split() == ["all", "90", "d:", "1", "->", "2", "(+1)"]


@pytest.mark.parametrize(("argv", "message"), [
    (["what-if"], "give at least one parameter to change"),
    (["show", "ghost"], "no memory with id 'ghost'"),
    (["at-risk", "--as-of", "yesterday"], "is not ISO-8601"),
    (["at-risk", "--threshold", "0"], "--threshold"),
    (["impact", "x", "--preset", "nope"], "'nope' is not one of"),
])
def test_mistakes_are_one_line(uri: str, capsys: pytest.CaptureFixture[str],
                               argv: list[str], message: str) -> None:
    code, out, err = run_cli(["--store", uri, "decay", *argv], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and message in err, err
