"""Numbered export-schema migrations: one pure function per version step.

Versioned exports with ordered, pure migrations are what superagents' ADR-0002 decided
(docs/design/seeds.md, docs/design/exports.md).

Each step lives in `vN_to_vM.py` as a `Migration` (M = N + 1) with two pure functions: one
for a body record, one for the manifest. `MigrationRegistry` keeps the steps in order and
refuses duplicates and gaps, so `chain(n, SCHEMA_VERSION)` always runs every step between.
Seed 001: "Every runtime version must be able to read exports from any prior version."

>>> MIGRATIONS.chain(0, 2).names
('v0_to_v1', 'v1_to_v2')
"""

from __future__ import annotations

from memory_core.exchange.migrations import v0_to_v1, v1_to_v2
from memory_core.exchange.migrations.registry import Migration, MigrationChain, MigrationRegistry

__all__ = ["MIGRATIONS", "Migration", "MigrationChain", "MigrationRegistry"]

#: The steps of this memlens, oldest first; its head is `schema.SCHEMA_VERSION`.
MIGRATIONS = MigrationRegistry([v0_to_v1.MIGRATION, v1_to_v2.MIGRATION])
