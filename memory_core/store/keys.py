"""An in-process index of the memories table's ids and content hashes, kept per table version.

Every add checks that its ids are new (in any tenant) and which contents already exist (in its
tenant). Scanning the table for that on every single-record add costs more than the rest of
the add together, so the keys are read once and then kept in step with this process's own
writes. The index is tied to the table version it has seen: when the version moved for any
other reason (another process wrote), it is read again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class KeyIndex:
    """ids -> tenant and (tenant, content_hash) -> first id, for one memories table
    (`store.keys`; content hashes are looked up in the store's tenant)."""

    def __init__(self, table: Any, tenant: str) -> None:
        self._handle = table
        self._tenant = tenant
        self._version: int | None = None
        self._tenant_of: dict[str, str] = {}
        self._by_hash: dict[tuple[str, str], str] = {}

    def _current(self) -> None:
        self._handle.checkout_latest()
        version = int(self._handle.version)
        if version == self._version:
            return
        columns = self._handle.search().select(["id", "tenant", "content_hash"]).limit(None)
        table = columns.to_arrow()
        ids = table["id"].to_pylist()
        tenants = table["tenant"].to_pylist()
        hashes = table["content_hash"].to_pylist()
        self._tenant_of = dict(zip(ids, tenants, strict=True))
        self._by_hash = {}
        for memory_id, tenant, digest in sorted(zip(ids, tenants, hashes, strict=True)):
            self._by_hash.setdefault((tenant, digest), memory_id)
        self._version = version

    def tenants_of(self, ids: Iterable[str]) -> dict[str, str]:
        """The tenant of each of `ids` that exists as a memory in any tenant."""
        self._current()
        return {i: self._tenant_of[i] for i in ids if i in self._tenant_of}

    def holder_of(self, digest: str) -> str | None:
        """The id of a memory of the store's tenant whose content hash is `digest`, if any."""
        self._current()
        return self._by_hash.get((self._tenant, digest))

    @property
    def version(self) -> int | None:
        """The table version the index reflects (None: must be read again)."""
        return self._version

    def added(self, rows: Iterable[tuple[str, str, str]], *, before: int | None, after: int,
              writes: int) -> None:
        """Record (id, tenant, content_hash) rows this process wrote in `writes` commits that
        took the table from version `before` to `after`.

        If anything else moved the version meanwhile, the index is read again later instead.
        """
        if self._version is None or self._version != before or after - before != writes:
            self._version = None
            return
        for memory_id, tenant, digest in rows:
            self._tenant_of[memory_id] = tenant
            self._by_hash.setdefault((tenant, digest), memory_id)
        self._version = after

    def invalidate(self) -> None:
        """Forget everything; the next question reads the table again."""
        self._version = None
