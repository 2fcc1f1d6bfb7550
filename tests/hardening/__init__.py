"""The hardening suite (issue 18): tenants, filter injection, concurrent writers, kill -9 and
fuzzed importers, across the engine, the CLI and the pages. Every test here is marked
`hardening` (and so `slow`): `pytest -m hardening` runs the suite alone."""
