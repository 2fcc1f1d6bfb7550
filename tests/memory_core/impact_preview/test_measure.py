"""`impact`: a batch's effect on retrieval, measured on a scratch copy; the live store is
only read. Real LanceDB in tmp_path, the fake (bag-of-words) embedder: a query shares its
words with the memories it should find."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from memory_core.curation import archive
from memory_core.evaluation.queryset import Query
from memory_core.impact_preview.measure import impact, impact_steps
from memory_core.impact_preview.queries import (
    RECALLS,
    SAVED,
    impact_queries,
    save_query_set,
    saved_query_set_path,
)
from memory_core.model.errors import CurationError, ImpactError, MemoryNotFoundError
from memory_core.model.records import Memory
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

MEMORIES = {
    "zeb": "zebra migrations roll back with the down script",
    "uv": "prefer uv over pip for installs",
    "ci": "ci cache key includes the lockfile hash",
    "ci2": "the ci cache key once missed the lockfile",
    "dash": "dashboards reuse one formula per panel",
}
#: The query only `zeb` answers (its relevant set), and one only the ci pair answers.
ZEBRA = Query("qz", "how do zebra migrations roll back", {"zeb": 2})
CACHE = Query("qc", "ci cache key lockfile", {"ci": 1, "ci2": 1})


@pytest.fixture
def home(store: MemoryStore) -> MemoryStore:
    store.add([Memory.new(text, "decision", id=i, project="herd") for i, text in
               MEMORIES.items()])
    return store


def files_of(uri: str) -> dict[str, str]:
    """Every file of the store's tables (the scratch folder left out), by content hash."""
    root = Path(uri)
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()
            and ".memlens-scratch" not in p.parts and not p.name.startswith(".memlens-")}


def test_archiving_loses_the_query_it_answers_and_says_why(home: MemoryStore) -> None:
    report = impact(home, "archive", ["zeb"], queries=[ZEBRA, CACHE])
    changed = {c.qid: c for c in report.changes}
    # the ci query loses zeb too (its tail: vector search ranks every memory) at no cost
    assert [m.memory_id for m in changed["qc"].lost] == ["zeb"]
    assert set(changed["qc"].deltas.values()) == {0.0}
    lost = {m.memory_id: m for m in changed["qz"].lost}
    assert lost["zeb"].why == "archived" and lost["zeb"].before == 1
    assert lost["zeb"].after is None
    rows = {r["metric"]: r for r in report.rows()}
    assert list(rows) == ["recall@10", "ndcg@10", "mrr@10"]
    # qz: zeb first (recall 1, MRR 1) -> gone (0); qc unchanged: the means drop by 1/2
    assert rows["recall@10"]["before"] - rows["recall@10"]["after"] == pytest.approx(0.5)
    assert rows["mrr@10"]["delta"] == pytest.approx(-0.5)
    assert rows["ndcg@10"]["losses"] == 1 and rows["ndcg@10"]["ties"] == 1
    assert rows["ndcg@10"]["p_value"] is not None  # the paired t-test over the 2 queries
    assert changed["qz"].deltas["mrr@10"] == pytest.approx(-1.0)
    assert report.batch.dry_run and report.batch.batch_id is None
    assert report.batch.memory_ids == ("zeb",)


def test_the_live_store_is_unchanged_even_by_a_purge(home: MemoryStore) -> None:
    versions, files = home.table_versions(), files_of(home.uri)
    report = impact(home, "delete", ["zeb"], purge=True, queries=[ZEBRA, CACHE])
    assert [m.why for m in report.changes[0].lost] == ["purged"]
    assert home.table_versions() == versions
    assert files_of(home.uri) == files
    assert home.get_many(["zeb"])["zeb"].status == "active"
    assert not list((Path(home.uri) / ".memlens-scratch").iterdir())  # the copy is gone
    assert home.audit.query(action="purge", limit=None) == []


def test_merge_and_supersede_name_the_memory_that_took_over(home: MemoryStore) -> None:
    merged = impact(home, "merge", ["ci", "ci2"], "ci", queries=[CACHE])
    lost = {m.memory_id: m.why for c in merged.changes for m in c.lost}
    assert lost == {"ci2": "merged into ci"}
    new = impact(home, "supersede", "zeb",
                 content="zebra migrations roll back with the down script and a backup",
                 queries=[ZEBRA])
    change = new.changes[0]
    created = new.batch.created[0]
    assert {m.memory_id: m.why for m in change.lost} == {"zeb": f"superseded by {created}"}
    assert {m.memory_id: m.why for m in change.gained} == {
        created: "new memory (made by the supersede)"}


def test_undo_restores_and_consolidate_adds_a_reflection(home: MemoryStore) -> None:
    batch = archive(home, ["zeb"]).batch_id
    undone = impact(home, "undo", batch, queries=[ZEBRA])
    assert [(m.memory_id, m.why) for m in undone.changes[0].gained] == [("zeb", "restored")]
    assert undone.rows()[0]["delta"] == pytest.approx(1.0)  # recall@10 of qz: 0 -> 1
    reflected = impact(home, "consolidate", ["ci", "ci2"],
                       "ci cache key lockfile hash: it once missed the lockfile",
                       queries=[CACHE])
    gained = [m.why for c in reflected.changes for m in c.gained]
    assert gained == ["new reflection"]


def test_correct_is_measured_too(home: MemoryStore) -> None:
    report = impact(home, "correct", "zeb", "rejected", queries=[ZEBRA])
    assert report.batch.action == "correct" and report.batch.memory_ids == ("zeb",)
    assert len(report.queries.queries) == 1


def test_recent_recalls_stand_in_for_a_missing_query_set(home: MemoryStore) -> None:
    sent = [item["id"] for item in recall(home, "zebra migrations roll back", limit=2).items]
    assert "zeb" in sent
    report = impact(home, "archive", ["zeb"])
    assert report.queries.source == RECALLS and report.queries.pseudo_relevance
    assert "pseudo-relevance" in report.queries.describe()
    (query,) = report.queries.queries
    assert query.query == "zebra migrations roll back"
    assert set(query.relevant) == set(sent)
    assert [m.why for m in report.changes[0].lost if m.memory_id == "zeb"] == ["archived"]


def test_a_saved_query_set_comes_first(home: MemoryStore, tmp_path: Path) -> None:
    source = tmp_path / "q.ndjson"
    source.write_text(json.dumps(ZEBRA.to_dict()) + "\n", encoding="utf-8")
    recall(home, "ci cache", limit=2)  # a recall too: the saved set still wins
    assert save_query_set(home, source) == saved_query_set_path(home)
    chosen = impact_queries(home)
    assert chosen.source == SAVED and [q.qid for q in chosen.queries] == ["qz"]


def test_no_queries_and_bad_batches_are_clear_errors(home: MemoryStore) -> None:
    with pytest.raises(ImpactError, match="no saved query set .* and no recall events"):
        impact(home, "archive", ["zeb"])
    with pytest.raises(CurationError, match="unknown curation action 'burn'"):
        impact(home, "burn", ["zeb"], queries=[ZEBRA])
    with pytest.raises(MemoryNotFoundError, match="no memory with id 'nope'"):
        impact(home, "archive", ["nope"], queries=[ZEBRA])
    assert impact_steps(4) == 14


def test_each_query_is_embedded_once_for_both_sides(home: MemoryStore,
                                                    fake_embedder: FakeEmbedder) -> None:
    texts: list[str] = []
    inner = fake_embedder.embed_batch
    fake_embedder.embed_batch = lambda batch: (texts.extend(batch), inner(batch))[1]  # type: ignore[method-assign]
    impact(home, "archive", ["uv"], queries=[ZEBRA, CACHE])
    assert sorted(texts) == sorted([ZEBRA.query, CACHE.query])


def test_cli_impact_prints_the_table_and_the_lost_memory_and_writes_nothing(
        home: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    queries = tmp_path / "q.ndjson"
    queries.write_text("".join(json.dumps(q.to_dict()) + "\n" for q in (ZEBRA, CACHE)),
                       encoding="utf-8")
    versions = home.table_versions()
    code, out, err = run_cli(["--store", home.uri, "archive", "zeb", "--impact",
                              "--impact-queries", str(queries)], capsys)
    assert code == 0, err
    assert "recall@10" in out and "ndcg@10" in out and "mrr@10" in out
    assert "qz" in out and "- zeb" in out and "archived" in out
    assert home.table_versions() == versions
    code, out, _ = run_cli(["--store", home.uri, "archive", "zeb", "--impact",
                            "--impact-queries", str(queries), "--json"], capsys)
    doc = json.loads(out)
    assert doc["impact"]["changed"][0]["lost"][0]["why"] == "archived"


def test_seeding_the_demo_saves_its_query_set(store: MemoryStore, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.seeding as seeding
    from memory_core.exchange.ndjson import write_export
    from memory_core.model.values import utcnow

    demo = tmp_path / "demo"
    demo.mkdir()
    write_export(demo / seeding.DEMO_EXPORT, [Memory.new(MEMORIES["zeb"], id="zeb")], [],
                 tenant="default", exported_at=utcnow())
    (demo / seeding.DEMO_QUERIES).write_text(json.dumps(ZEBRA.to_dict()) + "\n",
                                             encoding="utf-8")
    monkeypatch.setattr(seeding, "demo_dir", lambda: demo)
    seeding.seed_from_export(store)
    chosen = impact_queries(store)
    assert chosen.source == SAVED and [q.qid for q in chosen.queries] == ["qz"]


def test_cli_impact_refuses_yes_and_previews_a_correction(
        home: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    queries = tmp_path / "q.ndjson"
    queries.write_text(json.dumps(ZEBRA.to_dict()) + "\n", encoding="utf-8")
    versions = home.table_versions()
    code, _, err = run_cli(["--store", home.uri, "archive", "zeb", "--impact", "--yes",
                            "--impact-queries", str(queries)], capsys)
    assert code != 0 and "--impact is a preview and writes nothing" in err
    code, out, err = run_cli(["--store", home.uri, "correct", "zeb", "--verdict", "rejected",
                              "--impact", "--impact-queries", str(queries)], capsys)
    assert code == 0, err
    assert out.startswith("correct: would change 1 memory") and "ndcg@10" in out
    assert home.table_versions() == versions


def test_a_store_on_object_storage_is_refused_before_any_copy() -> None:
    from types import SimpleNamespace

    from memory_core.impact_preview.scratch import check_copyable

    remote = SimpleNamespace(uri="s3://bucket/memories")
    with pytest.raises(ImpactError, match="on object storage, where memlens makes no copy"):
        check_copyable(remote)  # type: ignore[arg-type]


def test_cli_impact_escapes_hostile_query_text(home: MemoryStore, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    hostile = Query("q\x1b]52;c;ZXZpbA==\x07", "zebra migrations \x1b[31mroll back\r", {"zeb": 1})
    queries = tmp_path / "q.ndjson"
    queries.write_text(json.dumps(hostile.to_dict()) + "\n", encoding="utf-8")
    code, out, err = run_cli(["--store", home.uri, "archive", "zeb", "--impact",
                              "--impact-queries", str(queries)], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "\\x1b[31mroll back" in out


def test_undoing_a_delete_brings_the_memory_back(home: MemoryStore) -> None:
    from memory_core.curation import delete

    batch = delete(home, ["zeb"]).batch_id
    report = impact(home, "undo", batch, queries=[ZEBRA])
    assert [(m.memory_id, m.why) for m in report.changes[0].gained] == [
        ("zeb", "back: the undone batch had deleted it")]


def test_cli_consolidate_accept_previews_its_impact(
        home: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from types import SimpleNamespace

    import memory_core.consolidation as consolidation
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    found = SimpleNamespace(id="cand1", members=("ci", "ci2"),
                            draft="ci cache key lockfile hash: it once missed the lockfile")
    monkeypatch.setattr(consolidation, "get_candidate", lambda store, candidate_id: found)
    queries = tmp_path / "q.ndjson"
    queries.write_text(json.dumps(CACHE.to_dict()) + "\n", encoding="utf-8")
    versions = home.table_versions()
    code, out, err = run_cli(["--store", home.uri, "consolidate", "accept", "cand1",
                              "--impact", "--impact-queries", str(queries)], capsys)
    assert code == 0, err
    assert out.startswith("consolidate: would change") and "new reflection" in out
    assert home.table_versions() == versions


def test_the_copy_links_data_files_and_copies_manifests(home: MemoryStore,
                                                        tmp_path: Path) -> None:
    from memory_core.impact_preview.scratch import scratch_copy

    side = scratch_copy(home, tmp_path / "copy", home.embedder)
    source, copied = Path(home.uri) / "memories.lance", tmp_path / "copy" / "memories.lance"
    data = next((source / "data").iterdir())
    manifest = next((source / "_versions").glob("*.manifest"))
    assert (copied / "data" / data.name).stat().st_ino == data.stat().st_ino
    assert (copied / "_versions" / manifest.name).stat().st_ino != manifest.stat().st_ino
    archive(side, ["zeb"])  # a write to the copy is the copy's only
    assert side.get_many(["zeb"])["zeb"].status == "archived"
    assert home.get_many(["zeb"])["zeb"].status == "active"
