"""Deletion receipts: written after a purge (ids, hashes, checks, times; no content; a new
owner-only file), re-verified later, and refused when altered, malformed or of another
tenant; a memory that came back fails the re-check."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from memory_core.curation import delete
from memory_core.curation.lineage import derived_closure
from memory_core.curation.receipt import (
    default_receipt_path,
    make_receipt,
    read_receipt,
    verify_receipt,
    write_receipt,
)
from memory_core.model.errors import ReceiptError
from memory_core.model.records import Edge, Memory
from memory_core.model.values import canonical_json
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

SECRET = "the vault token is quokka-hunter2-5519 for the staging cluster"
SUMMARY = "summary: staging cluster credentials live in the vault quokka"


@pytest.fixture
def purged(store: MemoryStore, tmp_path: Path) -> tuple[MemoryStore, Path, list[str]]:
    """A purge of a secret and the summary derived from it, and its receipt."""
    store.add([Memory.new(SECRET, "fact", id="secret"),
               Memory.new(SUMMARY, "reflection", id="summary"),
               Memory.new("unrelated note about lunch", "fact", id="lunch")])
    store.edges.add([Edge.new("summary", "secret", "derived_from")])
    paths = {d.id: d.path for d in derived_closure(store, ["secret"])}
    report = delete(store, ["secret"], purge=True, with_derived=True, reason="leak")
    path = write_receipt(store, report, tmp_path / "receipt.json", paths=paths)
    return store, path, ["secret", "summary"]


def test_the_receipt_lists_ids_hashes_and_checks_without_content(
        purged: tuple[MemoryStore, Path, list[str]]) -> None:
    store, path, ids = purged
    text = path.read_text(encoding="utf-8")
    assert "quokka" not in text and "vault" not in text and "leak" not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    body = json.loads(text)
    assert body["tenant"] == store.tenant and body["store"] == store.uri and body["passed"]
    by_id = {m["id"]: m for m in body["memories"]}
    assert set(by_id) == set(ids)
    assert by_id["summary"]["derived_path"] == ["secret", "summary"]
    assert by_id["secret"]["derived_path"] == []
    assert len(by_id["secret"]["content_hash"]) == 64 and by_id["secret"]["purged_at"]
    names = {c["name"]: c["status"] for c in body["checks"]}
    assert names["live table"] == names["table versions on disk"] == "pass"


def test_a_receipt_is_verified_again_later(
        purged: tuple[MemoryStore, Path, list[str]]) -> None:
    store, path, ids = purged
    check = verify_receipt(store, path)
    assert check.passed and check.same_store and check.failed_since == []
    assert set(check.verification.memory_ids) == set(ids)
    # the content is gone with the purge: the searches for it cannot run again, every exact
    # check (ids and content hashes in the tables, versions, export, files) does
    assert {n for n, _, _ in check.changed} == set(check.unrepeatable) == {
        "vector search", "BM25 search", "graph expansion", "recall", "files on disk"}
    statuses = {c.name: c.status for c in check.verification.checks}
    assert statuses["live table"] == statuses["table versions on disk"] == "pass"


def test_a_memory_that_came_back_fails_the_receipt(
        purged: tuple[MemoryStore, Path, list[str]]) -> None:
    store, path, _ = purged
    store.add([Memory.new(SECRET, "fact")])  # the same text, re-imported under a new id
    check = verify_receipt(store, path)
    assert not check.passed
    assert {"live table", "fresh export"} <= set(check.failed_since)


def _rewrite(path: Path, change: dict[str, object], *, digest: bool = False) -> None:
    from memory_core.curation.receipt import _digest

    body = {**json.loads(path.read_text(encoding="utf-8")), **change}
    body.pop("digest")
    if digest:  # a forger who recomputes the digest
        body["digest"] = _digest(body)
    path.unlink()
    path.write_text(canonical_json(body), encoding="utf-8")


def test_an_altered_receipt_is_refused(
        purged: tuple[MemoryStore, Path, list[str]]) -> None:
    store, path, _ = purged
    _rewrite(path, {"written_at": "2020-01-01T00:00:00+00:00"})
    with pytest.raises(ReceiptError, match="changed after it was written"):
        verify_receipt(store, path)


def test_a_forged_receipt_is_refused_by_the_stores_purge_record(
        purged: tuple[MemoryStore, Path, list[str]]) -> None:
    store, path, _ = purged
    body = json.loads(path.read_text(encoding="utf-8"))
    memories = [dict(m, content_hash="0" * 64) if m["id"] == "secret" else m
                for m in body["memories"]]
    _rewrite(path, {"memories": memories}, digest=True)
    with pytest.raises(ReceiptError, match="'secret': the receipt and the store's record"):
        verify_receipt(store, path)
    _rewrite(path, {"batch_id": "not-a-batch"}, digest=True)
    with pytest.raises(ReceiptError, match="holds no purge 'not-a-batch'"):
        verify_receipt(store, path)


def test_another_tenants_receipt_is_refused(
        purged: tuple[MemoryStore, Path, list[str]], fake_embedder: FakeEmbedder) -> None:
    store, path, _ = purged
    other = MemoryStore.open(store.uri, embedder=fake_embedder, tenant="other")
    with pytest.raises(ReceiptError, match="for tenant 'default', the store is open for "
                                           "tenant 'other'"):
        verify_receipt(other, path)


@pytest.mark.parametrize("data", [
    b"\x1b]52;c;aGk=\x07\xff\xfe not json",           # not UTF-8, with a terminal escape
    b'{"format": "x\x1b[2J", "version": 1}',          # JSON of another format
    b"\x1b[31m{not json",                             # UTF-8, not JSON
    b'{"format": "memlens-deletion-receipt", "version": 1, "memories": [{"id": 3}]}',
    b"[" * 100_000,                                    # nested too deeply
])
def test_a_malformed_receipt_is_refused_without_echoing_it(
        store: MemoryStore, tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(ReceiptError, match="is not a memlens") as caught:
        verify_receipt(store, path)
    message = str(caught.value)
    assert "\x1b" not in message and "aGk" not in message and "not json" not in message


def test_a_receipt_never_replaces_a_file(
        purged: tuple[MemoryStore, Path, list[str]], tmp_path: Path) -> None:
    store, path, _ = purged
    audit = store.audit.query(action="purge", limit=1)[0]
    before = path.read_bytes()
    report = delete(store, ["lunch"], purge=True)
    with pytest.raises(ReceiptError, match="already exists"):
        write_receipt(store, report, path)
    assert path.read_bytes() == before
    with pytest.raises(ReceiptError, match="is a folder"):
        write_receipt(store, report, tmp_path)
    with pytest.raises(ReceiptError, match="does not exist"):
        write_receipt(store, report, tmp_path / "missing" / "r.json")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".memlens-receipt-")]
    assert default_receipt_path(audit.batch_id or "", tmp_path).name == \
        f"memlens-receipt-{audit.batch_id}.json"


def test_only_a_purge_has_a_receipt(store: MemoryStore) -> None:
    store.add([Memory.new("a plain note", "fact", id="plain")])
    report = delete(store, ["plain"])
    with pytest.raises(ReceiptError, match="a receipt records a purge"):
        make_receipt(store, report)


def test_a_receipt_reads_back_as_written(
        purged: tuple[MemoryStore, Path, list[str]]) -> None:
    _, path, ids = purged
    receipt = read_receipt(path)
    assert receipt.ids == ids and receipt.passed
    assert canonical_json(receipt.to_dict()) + "\n" == path.read_text(encoding="utf-8")
