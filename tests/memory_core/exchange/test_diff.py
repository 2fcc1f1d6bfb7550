"""`diff_sides`: added / removed / changed between exports, the live store and versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.exchange.diff import diff_sides, field_changes
from memory_core.exchange.diff_sides import load_side, without_vector
from memory_core.exchange.export import export_store
from memory_core.model.errors import DiffError, ExportFormatError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.memory_core.exchange.conftest import WHEN

DATA = Path(__file__).parent / "data"


@pytest.fixture
def before(filled: MemoryStore, tmp_path: Path) -> Path:
    path = tmp_path / "before.ndjson"
    export_store(filled, path, exported_at=WHEN)
    return path


def _edit(store: MemoryStore) -> None:
    """One memory changed (content and a metadata key), one removed, one added."""
    a = store.get("m-a")
    store.upsert([a.with_changes(content="Chose LanceDB, again",
                                 metadata={**a.metadata, "hdr_number": "HDR-0008"})])
    store.tables.memories.delete("id = 'm-b'")
    store.add([Memory.new("A new lesson", "lesson", id="m-n", project="herd", agent="iris")])


def test_export_against_live(filled: MemoryStore, before: Path) -> None:
    _edit(filled)
    result = diff_sides(load_side(str(before), filled), load_side("live", filled))
    memory = result.counts["memory"]
    assert (memory.added, memory.removed, memory.changed, memory.unchanged) == (1, 1, 1, 1)
    assert vars(result.counts["edge"]) == {"added": 0, "removed": 0, "changed": 0,
                                           "unchanged": 2}
    frame = result.to_frame()
    assert frame.select("id", "change").rows() == [("m-a", "changed"), ("m-b", "removed"),
                                                   ("m-n", "added")]
    assert frame.filter(frame["id"] == "m-a")["fields"].to_list() == [
        ["content", "content_hash", "metadata.hdr_number"]]
    changed = result.fields.filter(result.fields["field"] == "metadata.hdr_number")
    assert changed.select("old", "new").rows() == [('"HDR-0007"', '"HDR-0008"')]
    assert result.breakdown("memory_type").rows() == [("decision", 0, 0, 1), ("lesson", 1, 0, 0),
                                                      ("observation", 0, 1, 0)]
    assert result.breakdown("agent").rows()[0] == ("iris", 1, 1, 0)
    side = result.side_by_side("memory", "m-a")
    assert side.filter(side["changed"])["field"].to_list() == [
        "content", "content_hash", "metadata.hdr_number"]
    old, new = result.docs("memory", "m-b")
    assert old is not None and old["content"].startswith("Chroma") and new is None


def test_ignored_fields_count_as_unchanged(filled: MemoryStore, before: Path) -> None:
    filled.upsert([filled.get("m-c").with_changes(access_count=9)])
    plain = diff_sides(load_side(str(before)), load_side("live", filled))
    assert plain.counts["memory"].changed == 1
    ignoring = diff_sides(load_side(str(before)), load_side("live", filled),
                          ignore=["access_count", "updated_at"])
    assert ignoring.counts["memory"].changed == 0 and ignoring.identical
    assert ignoring.ignored == ("access_count", "updated_at")
    with pytest.raises(DiffError, match="unknown field 'acess_count' to ignore"):
        diff_sides(load_side(str(before)), load_side("live", filled), ignore=["acess_count"])


def test_a_table_version_against_live_uses_current_edges(filled: MemoryStore) -> None:
    version = filled.version
    _edit(filled)
    result = diff_sides(load_side(f"version:{version}", filled), load_side("live", filled))
    assert result.a == f"version:{version}"
    assert result.counts["memory"].changed == 1 and result.counts["edge"].unchanged == 2
    assert "its edges are the current ones" in result.notes[0]
    with pytest.raises(DiffError, match="has no version 999"):
        load_side("version:999", filled)
    with pytest.raises(DiffError, match="'version:x' is not a table version"):
        load_side("version:x", filled)


def test_vectors_are_left_out_of_the_comparison(filled: MemoryStore, before: Path,
                                                tmp_path: Path) -> None:
    export_store(filled, tmp_path / "v.ndjson", with_vectors=True)
    result = diff_sides(load_side(str(before)), load_side(str(tmp_path / "v.ndjson")))
    assert result.identical and result.counts["memory"].unchanged == 3
    assert without_vector('{"metadata":{"vector":[1]},"vector":[0.5],"why":"x"}') == (
        '{"metadata":{"vector":[1]},"why":"x"}')


def test_other_formats_are_diffed_in_canonical_form(tmp_path: Path) -> None:
    from memory_core.exchange.importer import import_file
    from tests.memory_core.exchange.conftest import fresh_store

    store = fresh_store(tmp_path)
    import_file(store, DATA / "v0_export.ndjson")
    result = diff_sides(load_side(str(DATA / "v0_export.ndjson")), load_side("live", store),
                        ignore=["embedding_status"])
    assert result.identical, result.to_dict()
    assert "migrated (v0_to_v1, v1_to_v2)" in result.notes[0]


def test_bad_sides(tmp_path: Path, before: Path) -> None:
    with pytest.raises(DiffError, match="no export file at nowhere.ndjson; a side is"):
        load_side("nowhere.ndjson")
    with pytest.raises(DiffError, match="'live' needs a store"):
        load_side("live")
    before.write_bytes(before.read_bytes().replace(b"Chroma", b"Chromb"))
    with pytest.raises(ExportFormatError, match="does not match"):
        load_side(str(before))


def test_to_dict_is_json(filled: MemoryStore, before: Path) -> None:
    _edit(filled)
    out = diff_sides(load_side(str(before)), load_side("live", filled)).to_dict(limit=2)
    assert json.loads(json.dumps(out))["counts"]["memory"]["added"] == 1
    assert len(out["changes"]) == 2 and out["changes"][0]["fields"][0]["field"] == "content"


def test_field_changes_compare_json_not_python_equality() -> None:
    assert field_changes({"metadata": {"n": 1}}, {"metadata": {"n": 1.0}}) == [
        ("metadata.n", "1", "1.0")]
    assert field_changes({"metadata": {"n": 1}}, {"metadata": {"n": True}}, ["metadata"]) == []


def test_each_side_says_its_tenant_and_a_mismatch_is_warned(filled: MemoryStore,
                                                            before: Path,
                                                            tmp_path: Path) -> None:
    from memory_core.exchange.diff_sides import file_tenant

    acme = MemoryStore.open(filled.uri, tenant="acme", embedder=filled.embedder)
    acme.add([Memory.new("acme only", "fact", id="m-acme", tenant="acme")])
    theirs = tmp_path / "acme.ndjson"
    export_store(acme, theirs, exported_at=WHEN)
    assert (file_tenant(before), file_tenant(theirs)) == ("default", "acme")
    assert file_tenant(tmp_path / "missing.ndjson") is None
    same = diff_sides(load_side(str(before), filled), load_side("live", filled))
    assert same.tenants == ("default", "default") and same.tenant_mismatch is None
    other = diff_sides(load_side(str(theirs), filled), load_side("live", filled))
    assert other.tenants == ("acme", "default")
    assert other.tenant_mismatch is not None
    assert "A is tenant 'acme', B is tenant 'default'" in other.tenant_mismatch
    assert other.to_dict()["tenants"] == {"a": "acme", "b": "default"}
    versions = diff_sides(load_side(f"version:{filled.version}", filled),
                          load_side(str(before)))
    assert versions.tenants == ("default", "default")


def _with_content(export: Path, out: Path, content_json: str) -> Path:
    """`export` with its first memory's content replaced by the JSON text `content_json`
    (escapes kept as written) and the manifest's digest recomputed."""
    import hashlib

    head, *body = export.read_bytes().splitlines(keepends=True)
    first = next(i for i, raw in enumerate(body) if json.loads(raw).get("kind") == "memory")
    record = json.loads(body[first])
    record["content"] = "PLACEHOLDER"
    line = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    body[first] = line.replace('"PLACEHOLDER"', content_json).encode() + b"\n"
    manifest = json.loads(head)
    manifest["body_sha256"] = hashlib.sha256(b"".join(body)).hexdigest()
    out.write_bytes(json.dumps(manifest).encode() + b"\n" + b"".join(body))
    return out


def test_a_lone_surrogate_in_an_export_is_one_clear_error(filled: MemoryStore, before: Path,
                                                          tmp_path: Path) -> None:
    """A lone surrogate escape is not text (no UTF-8 spelling): refused naming its line,
    as the importer refuses it, instead of failing inside polars; a pair is an emoji."""
    lone = _with_content(before, tmp_path / "lone.ndjson", r'"half \ud800 a pair"')
    with pytest.raises(ExportFormatError, match=r"line 2 holds a lone surrogate"):
        load_side(str(lone), filled)
    pair = _with_content(before, tmp_path / "pair.ndjson", r'"an emoji \ud83d\ude00"')
    escaped = _with_content(before, tmp_path / "text.ndjson", r'"written out \\ud800"')
    for path, content in ((pair, "an emoji \U0001f600"), (escaped, "written out \\ud800")):
        result = diff_sides(load_side(str(path), filled), load_side("live", filled))
        assert result.counts["memory"].changed == 1
        [old] = result.fields.filter(result.fields["field"] == "content")["old"].to_list()
        assert json.loads(old) == content


def test_an_event_whose_metadata_has_a_vector_key_loads(filled: MemoryStore,
                                                         tmp_path: Path) -> None:
    """A recall event keeps each engine's score in metadata (`engines.vector`); only a memory
    line's own vector is cut out of a side's lines, so the event line is not mangled into
    "not a record" and the export loads as a side."""
    from memory_core.model.records import Event

    filled.events.record([Event.new("recall", "m-a", tenant=filled.tenant,
                                       metadata={"engines": {"vector": 0.5, "bm25": 0.1},
                                                 "rank": 1})])
    path = tmp_path / "with_event.ndjson"
    export_store(filled, path, with_audit=True, exported_at=WHEN)
    side = load_side(str(path))
    result = diff_sides(side, load_side("live", filled))
    assert result.counts["memory"].changed == 0 and result.counts["memory"].unchanged == 3
