"""LanceDB tables of other programs, read in place: one adapter, each format a mapping.

`mapping` describes a format as data (`SourceFormat`: columns, sniffing, vectors, tenants);
`adapter` reads any of them; `herd`, `make_skills` and `generic` (the `lancedb` format) are the
three memlens ships; `source`, `columns` and `values` open the table, check its columns and
turn its values into memlens fields; `tenants` picks the source tenant of a multi-tenant
table.
"""
