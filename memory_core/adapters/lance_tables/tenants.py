"""Which source tenant a multi-tenant LanceDB table is read for (the rule is stated in
`make_skills`, whose hosted variant has a tenant column)."""

from __future__ import annotations

from collections import Counter

from memory_core.adapters.lance_tables.source import LanceTable, iter_rows
from memory_core.model.errors import ExportFormatError

ALL_TENANTS = "*"


def tenant_name(tenant: str | None) -> str:
    """A source tenant as messages name it."""
    return "(no tenant_id)" if tenant is None else repr(tenant)


def source_tenant(table: LanceTable, column: str, wanted: str | None,
                  store_tenant: str | None) -> str | None:
    """The source tenant to read, or None for every row (see the module doc)."""
    if column not in table.schema.names:
        if wanted not in (None, ALL_TENANTS):
            raise ExportFormatError(
                f"{table.label} has no {column} column (a self-hosted table), so "
                f"--param tenant_id={wanted} selects nothing; drop it")
        return None
    if wanted is not None:
        return None if wanted == ALL_TENANTS else wanted
    counts = Counter(row[column] for _, row in iter_rows(table, [column], None))
    if store_tenant is not None and store_tenant in counts:
        return store_tenant
    if len(counts) <= 1:
        return next(iter(counts), None)
    listed = ", ".join(f"{tenant_name(t)}: {n} row{'s' if n > 1 else ''}"
                       for t, n in sorted(counts.items(), key=lambda c: str(c[0])))
    raise ExportFormatError(
        f"{table.label} holds the records of {len(counts)} tenants ({listed}), none of "
        f"them the store's tenant {store_tenant!r}; memlens imports one source tenant at a "
        f"time into the store's tenant: choose it with --param tenant_id=ID, or read "
        f"every row with --param tenant_id='*'")
