"""Session de-duplication on a read-only store: the session file is read, never written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_core.model.records import Memory
from memory_core.retrieval.recall import recall, session_db_path
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


@pytest.fixture
def uri(tmp_path: Path) -> str:
    writer = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    writer.add([Memory.new(f"refresh token note {i}", "decision", id=f"m{i}")
                for i in range(4)])
    return writer.uri


def _reader(uri: str) -> MemoryStore:
    return MemoryStore.open(uri, embedder=FakeEmbedder(), read_only=True)


def test_read_only_recall_creates_no_session_file(uri: str) -> None:
    store = _reader(uri)
    result = recall(store, "refresh token", limit=2, session_id="s1", now=NOW)
    assert len(result.items) == 2 and not result.session_recorded
    assert not session_db_path(store).exists()
    again = recall(store, "refresh token", limit=2, session_id="s1", now=NOW)
    assert again.items == result.items  # nothing recorded, so nothing held back


def test_read_only_recall_holds_back_earlier_sends_and_leaves_the_file_alone(uri: str) -> None:
    writer = MemoryStore.open(uri, embedder=FakeEmbedder())
    sent = {i["id"] for i in recall(writer, "refresh token", limit=2, session_id="s1",
                                    now=NOW).items}
    path = session_db_path(writer)
    before = path.read_bytes()
    files = sorted(p.name for p in path.parent.iterdir())
    result = recall(_reader(uri), "refresh token", limit=2, session_id="s1",
                    now=NOW + timedelta(minutes=1))
    assert set(result.skipped_as_sent) == sent
    assert not {i["id"] for i in result.items} & sent
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == files  # no -wal, no -shm
    expired = recall(_reader(uri), "refresh token", limit=2, session_id="s1",
                     now=NOW + timedelta(minutes=40))
    assert expired.skipped_as_sent == []


def test_cli_recall_read_only_says_the_session_is_not_recorded(
        uri: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    code, out, err = run_cli(["--read-only", "--store", uri, "recall", "refresh token",
                              "--session", "s1"], capsys)
    assert code == 0 and "refresh token note" in out
    assert "is read-only, so what this recall sent is not recorded for session 's1'" in err
    assert not session_db_path(_reader(uri)).exists()
