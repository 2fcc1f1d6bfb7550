"""`memlens correct | cite | events`: corrections as undoable batches, cite events, the
events listing (newest first, undone corrections marked), one-line mistakes, escaped output.

Run in-process against a real LanceDB store in tmp_path, embedded by the fake embedder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FakeEmbedder
from tests.memory_core.cli.test_curation import HOSTILE, Home
from tests.memory_core.cli.test_terminal import terminal_controls


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> Home:
    """test_curation's store: a1 -> a2 (herd), b1 (atlas), archived z1, the hostile `evil`,
    acme-1 in tenant acme; no memory has a confidence."""
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    return Home(tmp_path, monkeypatch, capsys)


def test_correct_with_a_verdict(home: Home) -> None:
    out = home.ok("correct", "a1", "--verdict", "rejected", "--note", "the key changed")
    assert out.splitlines()[0].startswith("correct: changed 1 memory; batch ")
    assert "  a1  confidence: None -> 0.4" in out  # null counts as 0.5; 0.5 x 0.80
    assert "note: rejected: confidence null -> 0.4 (x0.80, from 0.5: it had none)" in out
    assert "undo it with: memlens undo " in out
    assert home.memory("a1").confidence == pytest.approx(0.5 * 0.80)


def test_correct_with_a_kind_and_a_replacement(home: Home) -> None:
    doc = json.loads(home.ok("correct", "a2", "--kind", "superseded", "--by", "a1",
                             "--json"))
    assert doc["action"] == "correct" and doc["batch_id"] and not doc["dry_run"]
    changes = {(c["memory_id"], c["field"]): (c["before"], c["after"])
               for c in doc["changes"]}
    assert changes[("a2", "stability")] == (30.0, 30.0 * 0.5)  # observation default 30
    assert changes[("a1", "confidence")] == (None, 0.5 * 1.05)  # the replacement's boost
    assert ("a1", "stability") not in changes  # decision S 120 is above a2's 30 already
    assert [e["after"] for e in doc["edges"]] == ["a1 -supersedes-> a2"]
    assert home.memory("a2").status == "active"  # a correction leaves the status alone


def test_correct_dry_run_writes_nothing(home: Home) -> None:
    versions = home.versions()
    out = home.ok("correct", "a1", "--verdict", "accepted", "--kind", "deprecated",
                  "--dry-run")
    assert out.startswith("correct: would change 1 memory")
    assert "  a1  importance: 'normal' -> 'deprecated'" in out
    assert home.versions() == versions


def test_undo_of_a_correction_is_marked_in_the_events(home: Home) -> None:
    home.ok("correct", "a1", "--verdict", "modified", "--note", "close enough")
    batch = home.last_batch()
    home.ok("undo", batch, "--yes")
    assert home.memory("a1").confidence is None
    [event] = json.loads(home.ok("events", "--kind", "correct", "--json"))
    assert event["metadata"]["batch_id"] == batch and event["undone_by"]
    out = home.ok("events", "--kind", "correct")
    assert f"undone by batch {event['undone_by']}" in out
    assert "modified; confidence null -> 0.475; note 'close enough'" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["correct", "a1"], "give --verdict, --kind or both"),
    (["correct", "a1", "--kind", "refined"], "needs the id of the memory that replaces"),
    (["correct", "a1", "--verdict", "nope"], "'nope' is not one of 'accepted'"),
    (["correct", "a1", "--kind", "merged", "--by", "a1"], "cannot replace itself"),
    (["correct", "ghost", "--verdict", "accepted"], "no memory with id 'ghost'"),
    (["correct", "a1", "--kind", "superseded", "--by", "acme-1"],
     "no memory with id 'acme-1' in tenant 'default'"),
    (["cite", "a1", "ghost"], "no memory with id 'ghost' in tenant 'default'; nothing was"),
    (["cite"], "Missing argument 'IDS...'"),
    (["events", "--kind", "read"], "'read' is not one of 'recall', 'cite', 'correct'"),
])
def test_mistakes_are_one_line(home: Home, argv: list[str], message: str) -> None:
    versions = home.versions()
    code, out, err = home.run(*argv)
    assert code == 1 and out == "" and err.count("\n") == 1 and message in err, err
    assert home.versions() == versions


def test_cite_then_events(home: Home) -> None:
    assert home.ok("cite", "a1", "b1", "a1", "--session", "s-7", "--query",
                   "cache key?") == "recorded 2 cite events\n"
    home.ok("recall", "cache key lockfile")
    doc = json.loads(home.ok("events", "--json"))
    assert [e["event_kind"] for e in doc][-2:] == ["cite", "cite"]  # newest first: recall
    assert {e["event_kind"] for e in doc[:-2]} == {"recall"}
    cites = [e for e in doc if e["event_kind"] == "cite"]
    assert {e["memory_id"] for e in cites} == {"a1", "b1"}
    assert {(e["session_id"], e["query"]) for e in cites} == {("s-7", "cache key?")}
    out = home.ok("events", "--memory", "b1", "--kind", "cite")
    assert out.count("\n") == 1 and "cite     b1" in out
    assert "session s-7; query 'cache key?'" in out
    assert "recall   b1" in home.ok("events", "--memory", "b1")
    assert home.ok("events", "--kind", "cite", "--limit", "1").count("\n") == 1
    assert json.loads(home.ok("events", "--tenant", "acme", "--json")) == []


def test_hostile_text_is_printed_safely(home: Home) -> None:
    home.ok("correct", "evil", "--verdict", "rejected", "--note", HOSTILE)
    home.ok("cite", "evil", "--session", f"s{HOSTILE}", "--query", f"q{HOSTILE}")
    for argv in (["events"], ["correct", "evil", "--verdict", "accepted", "--note", HOSTILE],
                 ["audit"]):
        code, out, err = home.run(*argv)
        assert code == 0, err
        assert terminal_controls(out) == [] and terminal_controls(err) == []
        assert "\u202e" not in out
    out = home.ok("events")
    assert "\\x1b[31mred" in out and "<U+202E>" in out  # shown, escaped, not dropped
