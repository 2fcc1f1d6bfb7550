"""Golden files: a superagents export and a v0 memlens export, imported and exported.

Each input in data/ is imported into a fresh store (fake embedder) and exported again; the
export must equal its `.expected.ndjson` byte for byte. To regenerate after an intended
format change, run with UPDATE_GOLDEN=1 and review the diff of the expected files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from tests.memory_core.exchange.conftest import WHEN, fresh_store

DATA = Path(__file__).parent / "data"


def _golden(name: str, tmp_path: Path) -> tuple[list[dict], object]:
    store = fresh_store(tmp_path)
    report = import_file(store, DATA / f"{name}.ndjson")
    out = tmp_path / "out.ndjson"
    export_store(store, out, exported_at=WHEN)
    expected = DATA / f"{name}.expected.ndjson"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_bytes(out.read_bytes())
    assert out.read_bytes() == expected.read_bytes()
    docs = [json.loads(line) for line in expected.read_text(encoding="utf-8").splitlines()]
    return docs, report


def test_superagents_export_maps_types_agent_and_extra_fields(tmp_path: Path) -> None:
    docs, report = _golden("superagents_kani", tmp_path)
    assert report.format == "superagents" and report.schema_version == 1  # type: ignore[attr-defined]
    memories = {d["id"]: d for d in docs[1:]}
    assert {d["memory_type"] for d in memories.values()} == {"identity", "fact", "decision"}
    assert memories["kani-fact-001"]["agent"] == "kani"  # the manifest's agent_id
    assert memories["kani-fact-002"]["agent"] == "rem"  # a record's own agent_id wins
    assert memories["kani-fact-001"]["metadata"] == {"source_file": "docs/schema/v1.md"}
    assert memories["kani-decision-002"]["metadata"] == {"adr": "ADR-0002",
                                                         "deciders": ["Yao", "Rem", "Kani"]}
    assert memories["kani-fact-002"]["metadata"] == {
        "section": "Why no forward compatibility?", "session": "2026-02-20-am"}
    assert memories["kani-decision-002"]["importance"] == "critical"
    assert memories["kani-decision-002"]["stability"] == 480.0  # decision 120 d x critical 4
    assert memories["kani-fact-002"]["created_at"] == "2026-02-20T02:00:00.250000Z"
    assert {d["source"] for d in memories.values()} == {"import:superagents"}


def test_v0_export_is_migrated_field_by_field(tmp_path: Path) -> None:
    docs, report = _golden("v0_export", tmp_path)
    assert report.migrations == ("v0_to_v1", "v1_to_v2")  # type: ignore[attr-defined]
    assert docs[0]["counts"] == {"edge": 2, "event": 0, "memory": 3}
    by_id = {d["id"]: d for d in docs[1:]}
    first = by_id["m-001"]
    assert first["content"] == "Chose LanceDB over Chroma for embedded vector search"
    assert first["memory_type"] == "decision" and first["tags"] == ["storage", "search"]
    assert first["created_at"] == "2025-11-01T08:00:00Z"  # ts 1761984000.0
    assert first["session_id"] == "s-2025-11-01"
    assert first["metadata"] == {"hdr_number": "HDR-0007"}
    assert by_id["m-002"]["created_at"] == "2025-10-31T08:00:00.500000Z"  # ts 1761897600.5
    assert by_id["m-003"]["status"] == "archived"
    assert by_id["e-001"]["relation"] == "caused" and by_id["e-001"]["strength"] == 0.8
    # superseded_by points the other way: m-001 supersedes m-003
    assert (by_id["e-002"]["source_id"], by_id["e-002"]["relation"],
            by_id["e-002"]["target_id"]) == ("m-001", "supersedes", "m-003")


@pytest.mark.parametrize("name", ["superagents_kani", "v0_export"])
def test_golden_inputs_merge_again_unchanged(name: str, tmp_path: Path) -> None:
    store = fresh_store(tmp_path)
    import_file(store, DATA / f"{name}.ndjson")
    report = import_file(store, DATA / f"{name}.ndjson", mode="merge")
    assert report.inserted == report.updated == () and len(report.unchanged) >= 3
