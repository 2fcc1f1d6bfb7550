"""What store writes and history report back: small frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AddReport:
    """What an add did: ids inserted, duplicates skipped as (new id, existing id), pending."""

    inserted: tuple[str, ...]
    duplicates: tuple[tuple[str, str], ...]
    pending: int
    embedding_error: str | None
    table_version: int


@dataclass(frozen=True)
class UpsertReport:
    """What an upsert did, by id."""

    inserted: tuple[str, ...]
    updated: tuple[str, ...]
    unchanged: tuple[str, ...]
    pending: int
    table_version: int
    #: Memories embedded by this upsert (those written without a vector of their own).
    embedded: int = 0
    #: Why embedding failed (the memories were written pending), if it did.
    embedding_error: str | None = None


@dataclass(frozen=True)
class VersionInfo:
    """One version of the memories table."""

    version: int
    timestamp: Any
    rows: int | None
