"""Moving a tenant in and out of files (docs/design/exports.md): `export` (canonical NDJSON,
streamed), `importer` (all or nothing, through the format `readers` and the schema
`migrations`), `diff` (two sides, record by record) and `drill` (the recovery drill).
`memory_core.cli.exchange` is their command line."""
