"""Manifest names to versions, as Lance writes them (V2: u64 max - version; V1: version)."""

from __future__ import annotations

from memory_core.store.files.versions import version_of


def test_manifest_names_give_their_version() -> None:
    assert version_of("18446744073709551614.manifest") == 1  # 2**64 - 1 - 1
    assert version_of("18446744073709551609.manifest") == 6
    assert version_of("7.manifest") == 7
    assert version_of("latest_version_hint.json") is None
    assert version_of("x.manifest") is None
