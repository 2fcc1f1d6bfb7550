"""Export schema v1 -> v2: v2 adds `event` lines (recall, cite and correct events;
docs/design/events.md). A v1 file has none, so its records are unchanged and only the manifest's
`schema_version` moves. Both functions are pure.

>>> migrate_manifest({"schema_version": 1, "record_types": ["memory", "edge"]})["schema_version"]
2
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_core.exchange.migrations.registry import Migration


def migrate_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A v1 body record as v2: the same record."""
    return dict(record)


def migrate_manifest(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A v1 manifest as v2: schema_version 2, record types and counts unchanged."""
    return {**manifest, "schema_version": 2}


MIGRATION = Migration(source=1, target=2, record=migrate_record, manifest=migrate_manifest)
