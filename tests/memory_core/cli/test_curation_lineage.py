"""`memlens delete ID --purge --with-derived [--keep ID] [--receipt FILE]` and `memlens
verify-deleted --receipt FILE`: the derived memories listed with their paths (escaped), the
kept ones left, one batch, a receipt written and checked again."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from memory_core.model.records import Edge, Memory
from tests.memory_core.cli.test_curation import HOSTILE, Home, home  # noqa: F401
from tests.memory_core.cli.test_terminal import terminal_controls


@pytest.fixture
def lineage(home: Home, monkeypatch: pytest.MonkeyPatch) -> Home:  # noqa: F811
    """a2 (an observation) with r1 derived_from it, s1 derived_from r1, and a hostile
    reflection derived from a2; the current folder is the test's own."""
    monkeypatch.chdir(home.tmp)
    store = home.store()
    store.add([Memory.new("reflection: lockfile changes break the ci cache", "reflection",
                          id="r1"),
               Memory.new("summary of the ci cache reflections", "reflection", id="s1"),
               Memory.new(f"hostile reflection {HOSTILE}", "reflection", id=f"h{HOSTILE}")])
    store.edges.add([Edge.new("r1", "a2", "derived_from"), Edge.new("s1", "r1", "derived_from"),
                     Edge.new(f"h{HOSTILE}", "a2", "derived_from")])
    return home


def test_the_preview_lists_each_derived_memory_with_its_path(lineage: Home) -> None:
    out = lineage.ok("delete", "a2", "--purge", "--with-derived", "--dry-run")
    assert "derived from the selection: 3" in out
    assert "path: a2 <- r1 <- s1" in out and "path: a2 <- r1\n" in out
    assert "purge: would change 4 memories; 4 deleted; 4 edges removed" in out
    assert terminal_controls(out) == []  # the hostile id and content are escaped
    assert "\\x1b[31m" in out


def test_a_purge_with_derived_keeps_what_was_unticked_and_writes_a_receipt(
        lineage: Home) -> None:
    code, out, err = lineage.run("delete", "a2", "--purge", "--with-derived", "--keep", "s1",
                                 "--keep", f"h{HOSTILE}", answer="2\n")
    assert code == 0, err
    assert "  keep   s1 " in out and "  purge  r1 " in out
    assert "purge: changed 2 memories; 2 purged" in out and "verification passed" in out
    store = lineage.store()
    assert set(store.get_many(["a2", "r1", "s1", f"h{HOSTILE}"])) == {"s1", f"h{HOSTILE}"}
    [receipt] = list(lineage.tmp.glob("memlens-receipt-*.json"))  # the default place
    assert f"receipt: {receipt}" in out
    assert stat.S_IMODE(receipt.stat().st_mode) == 0o600
    body = json.loads(receipt.read_text(encoding="utf-8"))
    assert {m["id"] for m in body["memories"]} == {"a2", "r1"}
    assert "lockfile" not in receipt.read_text(encoding="utf-8")
    batch = lineage.last_batch()
    assert body["batch_id"] == batch
    out = lineage.ok("verify-deleted", "--receipt", str(receipt))
    assert f"receipt of purge {batch}" in out and "verification passed for 2 memories" in out
    assert "the searches for the content cannot run again" in out
    doc = json.loads(lineage.ok("verify-deleted", "--receipt", str(receipt), "--json"))
    assert doc["passed"] is True and doc["failed_since"] == []


def test_a_receipt_path_is_checked_before_anything_is_purged(lineage: Home) -> None:
    taken = lineage.tmp / "taken.json"
    taken.write_text("mine", encoding="utf-8")
    code, _, err = lineage.run("delete", "a2", "--purge", "--with-derived", "--yes",
                               "--receipt", str(taken))
    assert code == 1 and "already exists; a receipt never replaces a file" in err
    assert taken.read_text(encoding="utf-8") == "mine"
    assert "a2" in lineage.store().get_many(["a2"])  # nothing was purged


def test_a_given_receipt_path_with_a_plain_purge(lineage: Home) -> None:
    target = lineage.tmp / "b1-receipt.json"
    lineage.ok("delete", "b1", "--purge", "--yes", "--receipt", str(target))
    assert json.loads(target.read_text(encoding="utf-8"))["memories"][0]["id"] == "b1"
    assert not list(lineage.tmp.glob("memlens-receipt-*.json"))


def test_a_receipt_whose_memory_came_back_exits_1(lineage: Home) -> None:
    lineage.ok("delete", "r1", "--purge", "--with-derived", "--yes", "--receipt", "r.json")
    lineage.store().add([Memory.new("summary of the ci cache reflections", "reflection")])
    code, out, err = lineage.run("verify-deleted", "--receipt", "r.json")
    assert code == 1 and "FAILED" in out and "since the receipt: live table: pass -> fail" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["delete", "a2", "--keep", "r1"], "--keep leaves out a derived memory: give --with-derived"),
    (["delete", "a2", "--with-derived", "--keep", "b1"], "--keep 'b1': it is not derived"),
    (["delete", "a2", "--receipt", "x.json"], "a receipt records a purge: give --purge too"),
    (["verify-deleted"], "give memory ids or --receipt FILE"),
    (["verify-deleted", "a2", "--receipt", "x.json"], "give memory ids or --receipt FILE"),
    (["verify-deleted", "--receipt", "nowhere.json"], "no receipt file 'nowhere.json'"),
])
def test_mistakes_are_one_line(lineage: Home, argv: list[str], message: str) -> None:
    code, _, err = lineage.run(*argv)
    assert code != 0 and message in err, err
    assert "a2" in lineage.store().get_many(["a2"])


def test_a_receipt_of_another_tenant_is_refused(lineage: Home) -> None:
    lineage.ok("delete", "r1", "--purge", "--yes", "--receipt", "r.json")
    code, _, err = lineage.run("--tenant", "acme", "verify-deleted", "--receipt", "r.json")
    assert code == 1
    assert err.strip().endswith("the store is open for tenant 'acme': open it with --tenant "
                                "of the receipt")


def test_a_hostile_receipt_file_is_refused_in_one_escaped_line(lineage: Home) -> None:
    Path(lineage.tmp / "evil.json").write_bytes(b'{"format": "\x1b]52;c;aGk=\x07"}')
    code, out, err = lineage.run("verify-deleted", "--receipt", "evil.json")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "is not a memlens receipt: not JSON" in err and "aGk" not in err
    assert terminal_controls(out + err) == []
