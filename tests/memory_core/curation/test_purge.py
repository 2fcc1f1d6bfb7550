"""A purge leaves the content in no table version, no index result, no audit row and no
recall session; `verify_deleted` passes after a delete and fails on a planted leak."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_core.curation import delete, edit, verify_deleted
from memory_core.model.errors import CurationError
from memory_core.model.records import Memory
from memory_core.retrieval.recall import recall, session_db_path
from memory_core.retrieval.session_dedup import SessionDedup
from memory_core.store import MemoryStore
from tests.memory_core.curation.conftest import Corpus

SECRET = "the staging password is hunter2-quokka-7731, rotate it monthly"


def _with_secret(corpus: Corpus) -> str:
    store = corpus.store
    secret = store.add([Memory.new(SECRET, "fact", project="alpha")]).inserted[0]
    # an older content in the audit (an edit) and a recall session that was sent it
    edit(store, secret, why="noted by the agent")
    recall(store, "staging password hunter2-quokka", session_id="s1",
           now=datetime.now(UTC))
    assert SessionDedup(session_db_path(store)).count("s1") >= 1
    return secret


def _store_bytes(store: MemoryStore) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(Path(store.uri).rglob("*")) if p.is_file())


def test_purge_removes_the_content_from_everywhere(corpus: Corpus) -> None:
    store = corpus.store
    secret = _with_secret(corpus)
    assert SECRET.encode() in _store_bytes(store)
    report = delete(store, [secret], purge=True, reason="leaked credential")
    assert report.purged and report.action == "purge"
    assert any("older version" in n for n in report.notes)
    assert report.verification is not None and report.verification.passed, \
        report.verification.to_dict()
    names = {c.name: c.status for c in report.verification.checks}
    assert names["table versions on disk"] == "pass" and names["files on disk"] == "pass"
    # nothing on disk, in the audit (tombstones only) or in the recall session
    assert SECRET.encode() not in _store_bytes(store)
    assert "hunter2" not in json.dumps([(e.before, e.after) for e in
                                        store.audit.query(limit=None)], default=str)
    stones = [e for e in store.audit.query(target_ids=[secret], limit=None)
              if e.action == "purge"]
    record = stones[0].before["records"][0]
    assert record["purged"] and record["id"] == secret and record["why"] == "leaked credential"
    assert set(record) == {"id", "content_hash", "purged", "purged_by", "purged_at", "why"}
    assert SessionDedup(session_db_path(store)).holding([secret], []) == 0
    for version in store.changes.versions_on_disk("memories"):
        assert store.changes.rows_in_version("memories", version, f"id = '{secret}'", ["id"]) == []


def test_verify_deleted_passes_after_a_plain_delete(corpus: Corpus) -> None:
    store = corpus.store
    delete(store, [corpus.ids[2]])
    result = verify_deleted(store, corpus.ids[2])
    assert result.passed and not result.purged
    statuses = {c.name: c.status for c in result.checks}
    # the undo history still holds it, on purpose: said, not failed
    assert statuses["table versions on disk"] == "info"
    assert statuses["live table"] == statuses["BM25 search"] == statuses["fresh export"] == \
        "pass"


def test_verify_deleted_fails_on_a_planted_leak(corpus: Corpus) -> None:
    store = corpus.store
    secret = _with_secret(corpus)
    record = store.get(secret)
    delete(store, [secret], purge=True)
    assert verify_deleted(store, secret).passed
    # the same content comes back under another id (a stale import, say)
    store.add([Memory.new(SECRET, "fact")])
    # after a purge only the tombstone's content hash is known: found by it
    result = verify_deleted(store, secret)
    assert not result.passed
    assert {c.name for c in result.failures} >= {"live table", "fresh export"}
    assert {c.name: c.status for c in result.checks}["BM25 search"] == "skip"
    # who still has the content can have it searched for too
    known = verify_deleted(store, secret, known=[record])
    assert {c.name for c in known.failures} >= {"live table", "BM25 search", "vector search",
                                                "fresh export", "files on disk"}


def test_verify_deleted_fails_on_a_leaked_session_entry(corpus: Corpus) -> None:
    store = corpus.store
    secret = _with_secret(corpus)
    digest = store.get(secret).content_hash
    delete(store, [secret], purge=True)
    SessionDedup(session_db_path(store)).mark_sent("s2", [(secret, digest)],
                                                   datetime.now(UTC))
    result = verify_deleted(store, secret)
    assert [c.name for c in result.failures] == ["recall sessions"]


def test_verify_deleted_of_a_live_memory_fails_and_of_a_stranger_is_refused(
        corpus: Corpus) -> None:
    result = verify_deleted(corpus.store, corpus.ids[0])
    assert "live table" in {c.name for c in result.failures}
    with pytest.raises(CurationError, match="was never in tenant"):
        verify_deleted(corpus.store, "never-existed")


def test_purge_keeps_one_version_per_table(corpus: Corpus) -> None:
    store = corpus.store
    delete(store, [corpus.ids[5]], purge=True)
    tables = ("memories", "edges", "audit")
    assert [len(store.changes.versions_on_disk(n)) for n in tables] == [1, 1, 1]


def test_purging_a_merged_away_memory_verifies(corpus: Corpus) -> None:
    from memory_core.curation import merge

    store, ids = corpus.store, corpus.ids
    merge(store, [ids[0], ids[6]], ids[0])
    assert ids[6] in store.get(ids[0]).metadata["merged_from"]
    report = delete(store, [ids[6]], purge=True)
    assert report.verification.passed, report.verification.to_dict()


def test_the_verification_report_quotes_no_deleted_content(corpus: Corpus) -> None:
    secret = _with_secret(corpus)
    report = delete(corpus.store, [secret], purge=True)
    text = json.dumps(report.to_dict(), default=str)
    assert not any(word in text for word in ("hunter2", "quokka", "staging", "password"))


def test_a_purge_rewrites_big_data_files_too(store: MemoryStore) -> None:
    """LanceDB's compaction leaves a file alone under 10% deleted rows: one of 60 rows is
    still rewritten away, its vector's bytes gone from every file."""
    import numpy as np

    ids = store.add([Memory.new(f"row {i} of a large data file, marker{i}", "fact")
                     for i in range(60)]).inserted
    target = store.get(ids[17], with_vectors=True)
    assert target.vector is not None
    needle = np.asarray(target.vector[:32], dtype=np.float32).tobytes()
    assert needle in _store_bytes(store)
    report = delete(store, [ids[17]], purge=True)
    assert needle not in _store_bytes(store)
    assert {c.name: c.status for c in report.verification.checks}["files on disk"] == "pass"
    assert store.count() == 59


def test_a_large_purge_searches_for_a_seeded_sample_and_checks_all_exactly(
        corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.curation import verify

    monkeypatch.setattr(verify, "SEARCHED", 2)  # each searched memory costs a few searches
    report = delete(corpus.store, corpus.ids[:3], purge=True)
    assert report.verification is not None and report.verification.passed
    details = {c.name: c.detail for c in report.verification.checks}
    for name in ("vector search", "BM25 search", "graph expansion", "recall"):
        assert "(searched for 2 of the 3, a seeded sample)" in details[name]
    for name in ("live table", "fresh export", "table versions on disk", "files on disk"):
        assert "sample" not in details[name]
