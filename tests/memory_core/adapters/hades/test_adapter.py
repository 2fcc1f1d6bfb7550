"""The `hades` adapter on its golden fixtures: a folder of the five collections
(JSON arrays, one NDJSON) and an arangodump folder; its parameters; broken inputs."""

from __future__ import annotations

import gzip
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.adapters.base import stable_id
from memory_core.adapters.hades.adapter import HadesAdapter
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader
from memory_core.model.errors import ExportFormatError, InvalidRecordError, UnknownFormatError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import run_cli

DATA = Path(__file__).parents[1] / "data" / "hades"
FULL, DUMP = DATA / "full", DATA / "arangodump"
ABC = "observations/obs_2025-09-29T12:34:56_abc123"
DEF = "observations/obs_2025-09-28T10:20:30_def456"
AA11 = "observations/obs_2025-09-28T11:05:00_aa11"
OLD = "observations/obs_2025-09-20T09:00:00_old001"
DEC = "observations/obs_2025-09-21T14:00:00_dec002"
DUP = "observations/obs_2025-09-29T12:40:10_dup777"
XYZ = "reflections/refl_2025-09-29T15:00:00_xyz789"
PAT = "reflections/refl_2025-09-29T16:10:00_pat002"
CLIENT, AUTH = "entities/ent_component_arango_client", "entities/ent_component_auth"
Q1, Q2 = "observations/obs_2025-09-30T08:00:00_q1", "observations/obs_2025-09-30T08:10:00_q2"
PLANNER = "entities/ent_tool_query_planner"
DUMP_OBS = "observations_b4120c940fffff695d925df1eaefd399.data.json"
DUMP_RELS = "relationships_eaa7c88f5c12467242826acb2d7a3ea7.data.json"
FULL_SKIPS = {
    "endpoint not in the input": {"count": 2, "examples": [
        "reflections.ndjson line 2 consolidates observations/obs_2025-09-01T08:00:00_gone99",
        "relationships.json item 5"]},
    "empty content": {"count": 1, "examples": ["observations.json item 6"]},
    "session with no memories read": {"count": 1, "examples": ["sessions.json item 3"]},
}


def hid(hades_id: str) -> str:
    """The memlens id of a HADES document `_id`."""
    return stable_id("hades", hades_id)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def links(store: MemoryStore) -> set[tuple[str, str, str]]:
    return {(e.relation, e.source_id, e.target_id) for e in store.edges.list(include_inactive=True)}


def copy_of(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / folder.name
    shutil.copytree(folder, target)
    return target


def test_full_fixture_counts_duplicates_and_skips(store: MemoryStore) -> None:
    report = import_file(store, FULL)
    assert report.format == "hades" and report.mode == "merge"
    assert report.records == {"memory": 9, "edge": 10, "audit": 0}
    assert len(report.inserted) == 9 and report.edges_added == 10
    # the duplicate differs by whitespace only, so content_hash finds it
    assert report.duplicates == {hid(DUP): hid(ABC)}
    assert report.skipped == FULL_SKIPS
    assert report.read == 9 + 10 + 1 + 4 and report.dangling_edges == 0
    assert store.count(Filter(status=STATUSES)) == 9
    assert store.count(Filter(status=("archived",))) == 1
    assert store.count(Filter(status=("superseded",))) == 1
    assert store.count(Filter(memory_type=("entity",))) == 2


def test_full_fixture_fields(store: MemoryStore) -> None:
    import_file(store, FULL)
    abc = store.get(hid(ABC))
    assert abc.content == "Fixed race condition in authentication by adding mutex locks"
    assert (abc.memory_type, abc.status, abc.project, abc.source) == (
        "observation", "active", "HADES", "user_statement")
    assert abc.tags == ("debugging", "concurrency", "authentication")
    assert abc.session_id == "chat_abc123" and abc.confidence == pytest.approx(0.9)
    assert abc.created_at == at("2025-09-29T12:34:56.789")
    assert abc.updated_at == at("2025-09-29T13:00:00")
    meta = abc.metadata
    assert meta["_id"] == ABC and meta["_rev"] == "_iWq4Bc6---" and meta["turn_index"] == 42
    assert meta["component"] == "auth_system" and meta["context_window"] == 5000
    assert meta["revision"] == 1 and meta["content_hash"].startswith("sha256:")
    assert not {"project", "confidence", "source", "embedding"} & set(meta)
    assert meta["session"]["session_name"] == "Bug fix in auth system - 2025-09-29"
    assert meta["session"]["stats"]["turns_count"] == 50 and "_rev" not in meta["session"]
    # epoch time only; project from its session's metadata
    dfn = store.get(hid(DEF))
    assert dfn.created_at == at("2025-09-28T10:20:30") == dfn.updated_at
    assert (dfn.project, dfn.source) == ("HADES-infra", "code_analysis")
    assert dfn.metadata["session"]["status"] == "completed"
    assert store.get(hid(AA11)).memory_type == "learning"
    assert (store.get(hid(OLD)).status, store.get(hid(OLD)).memory_type) == ("archived", "event")
    assert (store.get(hid(DEC)).status, store.get(hid(DEC)).memory_type) == (
        "superseded", "decision")
    xyz = store.get(hid(XYZ))
    assert (xyz.memory_type, xyz.source, xyz.session_id) == ("reflection", "import:hades", None)
    assert xyz.metadata["strength"] == 0.85 and xyz.metadata["source_count"] == 3
    assert xyz.metadata["model"] == "Qwen3-30B-A3B-Thinking-2507"
    assert xyz.metadata["consolidates"] == [ABC, DEF, AA11]
    assert store.get(hid(PAT)).memory_type == "pattern"
    client = store.get(hid(CLIENT))
    assert client.content == ("ArangoDB HTTP/2 Client: Optimized ArangoDB client using HTTP/2 "
                              "over Unix sockets for sub-millisecond latency")
    assert (client.memory_type, client.source) == ("entity", "codebase_analysis")
    assert client.confidence == pytest.approx(0.9)  # metadata.certainty
    assert client.created_at == at("2025-09-20T10:00:00")
    assert client.updated_at == at("2025-09-29T16:30:00")
    assert client.metadata["aliases"] == ["arango client", "database client", "optimized client"]
    assert client.metadata["entity_type"] == "component"
    assert client.metadata["mention_count"] == 45 and client.metadata["importance"] == 0.95
    assert store.get(hid(AUTH)).content == "Auth System"  # description null


def test_full_fixture_edges(store: MemoryStore) -> None:
    import_file(store, FULL)
    assert links(store) == {
        ("derived_from", hid(XYZ), hid(ABC)), ("derived_from", hid(XYZ), hid(DEF)),
        ("derived_from", hid(XYZ), hid(AA11)), ("derived_from", hid(PAT), hid(OLD)),
        ("uses", hid(AUTH), hid(CLIENT)),
        ("caused", hid(DEF), hid(ABC)),          # causes
        ("contradicts", hid(DEC), hid(ABC)),     # conflicts_with
        ("improves", hid(XYZ), hid(AUTH)),
        ("relates_to", hid(ABC), hid(AUTH)),     # mentions: unknown, kept as relates_to
        ("relates_to", hid(ABC), hid(CLIENT)),   # related_to, from the duplicate moved to ABC
    }
    edges = {e.id: e for e in store.edges.list(include_inactive=True)}
    uses = edges[hid("relationships/rel_abc123")]
    assert uses.strength == pytest.approx(0.9) and uses.decay_rate == pytest.approx(0.05)
    assert uses.evidence == (ABC, XYZ)
    assert uses.created_at == at("2025-09-29T16:45:00")
    assert uses.last_reinforced == at("2025-09-29T17:00:00")
    assert uses.metadata == {"_id": "relationships/rel_abc123", "_rev": "_iWr0Ij3---",
                             "_from": AUTH, "_to": CLIENT, "relationship_type": "uses",
                             "evidence_count": 2, "confidence": 0.85,
                             "method": "co_occurrence"}
    assert edges[hid("relationships/rel_conflict01")].status == "archived"
    assert edges[hid("relationships/rel_cause01")].metadata["relationship_type"] == "causes"
    mentions = edges[hid("relationships/rel_mentions01")]
    assert mentions.metadata["relationship_type"] == "mentions"
    consolidated = edges[stable_id("hades", "consolidates", XYZ, DEF)]
    assert consolidated.strength == 1.0 and consolidated.created_at == at("2025-09-29T15:00")
    assert consolidated.metadata == {"_from": XYZ, "_to": DEF, "via": "consolidates"}


def test_a_second_import_adds_nothing(store: MemoryStore) -> None:
    import_file(store, FULL)
    versions, rows = store.table_versions(), store.tables.edges.count_rows()
    again = import_file(store, FULL)
    assert again.inserted == () and again.updated == () and len(again.unchanged) == 9
    assert again.edges_added == 0 and again.edges_skipped == 10
    assert store.table_versions() == versions and store.tables.edges.count_rows() == rows
    assert store.count(Filter(status=STATUSES)) == 9


def test_dry_run_reports_and_writes_nothing(store: MemoryStore) -> None:
    versions = store.table_versions()
    report = import_file(store, FULL, dry_run=True)
    assert report.dry_run and len(report.inserted) == 9 and report.existing == ()
    assert report.edges_added == 10 and report.pending == 9
    assert report.skipped == FULL_SKIPS
    assert store.table_versions() == versions and store.count(Filter(status=STATUSES)) == 0


def test_limit_reads_n_memory_documents(store: MemoryStore) -> None:
    report = import_file(store, FULL, options=ReadOptions(limit=3))
    assert set(report.inserted) == {hid(ABC), hid(DEF), hid(AA11)}
    assert links(store) == {("caused", hid(DEF), hid(ABC))}
    assert report.skipped["endpoint not in the input or past --limit"]["count"] == 6
    assert report.skipped["session with no memories read"]["count"] == 1
    with pytest.raises(ExportFormatError, match="hades format does not take --project"):
        import_file(store, FULL, options=ReadOptions(project="HADES"))


def test_arangodump_folder(store: MemoryStore) -> None:
    report = import_file(store, DUMP)
    assert report.records == {"memory": 3, "edge": 1, "audit": 0}
    assert report.skipped == {
        "arangodump line replaced or removed later in the dump": {
            "count": 2, "examples": [f"{DUMP_OBS} line 1", f"{DUMP_OBS} line 4"]},
        "arangodump removal marker": {"count": 1, "examples": [f"{DUMP_OBS} line 5"]},
        "endpoint not in the input": {"count": 1, "examples": [f"{DUMP_RELS} line 2"]},
    }
    q1 = store.get(hid(Q1))  # the later revision of the document wins
    assert q1.content.endswith("for OR filters on observations")
    assert q1.metadata["_rev"] == "_iX01Cc2---" and q1.confidence == pytest.approx(0.8)
    assert store.get(hid(Q2)).memory_type == "learning"
    assert store.get(hid(PLANNER)).memory_type == "entity"
    [edge] = store.edges.list()
    assert (edge.relation, edge.source_id, edge.target_id) == ("uses", hid(Q1), hid(PLANNER))
    assert edge.decay_rate == pytest.approx(0.03)
    assert import_file(store, DUMP).inserted == ()


def test_other_file_shapes(store: MemoryStore, tmp_path: Path) -> None:
    dump = copy_of(DUMP, tmp_path)
    data = dump / DUMP_OBS
    (dump / f"{DUMP_OBS}.gz").write_bytes(gzip.compress(data.read_bytes()))
    data.unlink()
    assert import_file(store, dump).records == {"memory": 3, "edge": 1, "audit": 0}
    full = copy_of(FULL, tmp_path)
    (full / "reflections.ndjson").rename(full / "reflections.jsonl")
    report = import_file(store, full, dry_run=True)
    assert report.records == {"memory": 9, "edge": 10, "audit": 0}
    single = import_file(store, full / "entities.json", format="hades", dry_run=True)
    assert single.records == {"memory": 2, "edge": 0, "audit": 0}


def test_params(store: MemoryStore) -> None:
    def run(**params: str) -> Any:
        return import_file(store, FULL, dry_run=True, options=ReadOptions(params=params))

    skipped = run(unknown_relations="skip")
    assert skipped.skipped["unknown relationship_type 'mentions'"]["count"] == 1
    assert skipped.edges_added == 9
    with pytest.raises(ExportFormatError, match=r"relationships.json: item 6: unknown "
                                                r"relationship_type 'mentions'"):
        run(unknown_relations="error")
    kept = run(dangling="keep")
    assert "endpoint not in the input" not in kept.skipped
    assert kept.edges_added == 12 and kept.dangling_edges == 2
    with pytest.raises(ExportFormatError, match="no --param colour; it takes"):
        run(colour="red")
    with pytest.raises(ExportFormatError, match="--param dangling=maybe: use one of skip"):
        run(dangling="maybe")


def test_embeddings_kept_only_for_the_store_model(store: MemoryStore, tmp_path: Path) -> None:
    folder = tmp_path / "emb"
    folder.mkdir()
    doc = {"_key": "o1", "content": "vector kept", "created_at": "2025-09-29T12:00:00Z",
           "embedding": [0.25] * 16}
    (folder / "observations.json").write_text(json.dumps([doc]))
    dropped = import_file(store, folder, dry_run=True)
    assert dropped.vectors_kept == 0 and dropped.pending == 1
    model = {"embedding_model": store.tables.model_id, "embedding_dimension": "16"}
    kept = import_file(store, folder, options=ReadOptions(params=model))
    assert kept.vectors_kept == 1 and kept.embedded == 0
    vector = store.get(hid("observations/o1"), with_vectors=True).vector
    assert vector is not None and vector[0] == pytest.approx(0.25)


def _edit(folder: Path, name: str, index: int, change: dict[str, Any],
          drop: str | None = None) -> None:
    path = folder / name
    docs = json.loads(path.read_text())
    docs[index].update(change)
    if drop:
        del docs[index][drop]
    path.write_text(json.dumps(docs, indent=2))


def _truncate(folder: Path) -> None:
    text = (folder / "observations.json").read_text()
    (folder / "observations.json").write_text(text[: len(text) // 2])


def _binary(folder: Path) -> None:
    (folder / "observations.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20)


def _empty_folder(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.mkdir()
    (folder / "notes.txt").write_text("observations live elsewhere\n")
    (folder / "observations.csv").write_text("_key,content\n")


def _two_shapes(folder: Path) -> None:
    (folder / "observations.jsonl").write_text('{"_key": "x", "content": "y"}\n')


def _only_edges(folder: Path) -> None:
    for name in ("observations.json", "reflections.ndjson", "entities.json"):
        (folder / name).unlink()


def _no_key(folder: Path) -> None:
    _edit(folder, "entities.json", 1, {}, drop="_key")
    _edit(folder, "entities.json", 1, {}, drop="_id")


def _truncated_line(folder: Path) -> None:
    path = folder / "reflections.ndjson"
    path.write_text(path.read_text()[:-80])


BROKEN = [
    (_truncate, r"observations.json: invalid JSON at line \d+, column \d+ .*truncated"),
    (lambda f: _edit(f, "relationships.json", 0, {"strength": "0.9"}),
     r"relationships.json: item 1: 'strength' must be int or float, got str '0.9'"),
    (lambda f: _edit(f, "observations.json", 1, {}, drop="content"),
     r"observations.json: item 2: the record has no 'content'"),
    (_binary, r"observations.json is a binary file"),
    (_empty_folder, r"holds none of the HADES collections: expected observations, "),
    (_no_key,
     r"entities.json: item 2: the document has no '_key' or '_id'"),
    (lambda f: _edit(f, "relationships.json", 6, {"_to": "ent_component_auth"}),
     r"relationships.json: item 7: '_to' 'ent_component_auth' is not a document _id"),
    (lambda f: _edit(f, "observations.json", 0, {"tags": "debugging"}),
     r"observations.json: item 1: 'tags' must be list, got str"),
    (lambda f: _edit(f, "observations.json", 2, {"created_at": "yesterday"}),
     r"observations.json: item 3: created_at 'yesterday' is not an ISO-8601 time"),
    (lambda f: _edit(f, "observations.json", 3, {"status": "deleted"}),
     r"observations.json item 4: unknown status 'deleted'; use one of: active, archived"),
    (lambda f: _edit(f, "relationships.json", 0, {"metadata": {"decay_rate": "fast"}}),
     r"relationships.json: item 1: metadata: 'decay_rate' must be int or float"),
    (lambda f: _edit(f, "relationships.json", 1, {"strength": 1.5}),
     r"relationships.json item 2: edge .* has strength 1.5; use 0..1"),
    (_truncated_line, r"reflections.ndjson: line 2 is not JSON"),
    (_two_shapes, r"holds the observations collection more than once \(observations.json, "
                  r"observations.jsonl\)"),
    (_only_edges, r"holds only relationships and sessions: there is nothing to import"),
]


@pytest.mark.parametrize("break_it, message", BROKEN, ids=[
    "truncated-array", "strength-string", "no-content", "binary", "no-collections", "no-key",
    "bad-endpoint", "tags-string", "bad-time", "unknown-status", "decay-string",
    "strength-range", "truncated-ndjson", "two-shapes", "only-edges"])
def test_broken_inputs_name_the_problem_and_write_nothing(
        store: MemoryStore, tmp_path: Path, break_it: Any, message: str) -> None:
    import_file(store, DUMP)
    versions, count = store.table_versions(), store.count(Filter(status=STATUSES))
    folder = copy_of(FULL, tmp_path)
    break_it(folder)
    with pytest.raises((ExportFormatError, InvalidRecordError), match=message):
        import_file(store, folder, format="hades")
    assert store.table_versions() == versions
    assert store.count(Filter(status=STATUSES)) == count


def test_broken_dump_files(store: MemoryStore, tmp_path: Path) -> None:
    dump = copy_of(DUMP, tmp_path)
    data = dump / DUMP_OBS
    data.write_text(data.read_text()[:300])
    with pytest.raises(ExportFormatError, match=f"{DUMP_OBS}: line 1 is not JSON"):
        import_file(store, dump)
    (dump / f"{DUMP_OBS}.gz").write_bytes(gzip.compress(b"{}\n" * 50)[:20])
    data.unlink()
    with pytest.raises(ExportFormatError, match="cannot read the dump file"):
        import_file(store, dump, format="hades")
    assert store.count(Filter(status=STATUSES)) == 0


def test_auto_picks_hades_and_only_for_hades_folders(tmp_path: Path) -> None:
    assert detect_reader(FULL).name == "hades" and detect_reader(DUMP).name == "hades"
    adapter = HadesAdapter()
    roots = (DATA.parent, DATA.parent.parent / "exchange" / "data")
    others = [path for root in roots for path in root.rglob("*")
              if path != DATA and DATA not in path.parents]
    assert others and not any(adapter.sniff(p, "") for p in others)
    assert not adapter.sniff(FULL / "observations.json", "[")
    plain = tmp_path / "other"
    plain.mkdir()
    (plain / "entities.json").write_text('[{"name": "Ada", "entityType": "person"}]')
    assert not adapter.sniff(plain, "")
    with pytest.raises(UnknownFormatError, match="cannot tell the format"):
        detect_reader(plain)


@pytest.mark.model
def test_cli_import_prints_the_report(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    code, out, err = run_cli(["--store", store, "import", str(FULL)], capsys)
    assert code == 0, err
    assert "format: hades (--format auto chose it); mode merge" in out
    assert "read 24 records from" in out and "9 memory, 10 edge, 0 audit" in out
    assert "memories: 9 imported, 0 updated, 0 unchanged" in out
    assert "edges: 10 created, 0 already there" in out
    assert "duplicates by content_hash: 1" in out and "skipped: 4" in out
    assert "  2 endpoint not in the input (e.g. reflections.ndjson line 2 consolidates" in out
    code, out, _ = run_cli(["--store", store, "import", str(FULL), "--format", "hades"],
                           capsys)
    assert code == 0 and "memories: 0 imported, 0 updated, 9 unchanged" in out
    code, _, err = run_cli(["--store", store, "import", str(FULL), "--param", "dangling=x"],
                           capsys)
    assert code == 1 and "--param dangling=x: use one of skip, keep" in err
