"""The migration registry: one step per version, no gaps, no duplicates, pure steps."""

from __future__ import annotations

import copy

import pytest

from memory_core.exchange.migrations import MIGRATIONS, Migration, MigrationRegistry
from memory_core.model.errors import MigrationError
from memory_core.model.schema import SCHEMA_VERSION


def _step(source: int, target: int | None = None, tag: str = "") -> Migration:
    def record(r):  # type: ignore[no-untyped-def]
        return {**r, "steps": [*r.get("steps", []), f"{source}{tag}"]}

    return Migration(source, source + 1 if target is None else target, record,
                     lambda m: {**m, "schema_version": source + 1})


def test_chain_runs_every_step_in_order() -> None:
    registry = MigrationRegistry([_step(0), _step(1), _step(2)])
    assert (registry.base, registry.head) == (0, 3)
    chain = registry.chain(1, 3)
    assert chain.names == ("v1_to_v2", "v2_to_v3")
    assert chain.record({"id": "x"}) == {"id": "x", "steps": ["1", "2"]}
    assert chain.manifest({"schema_version": 1}) == {"schema_version": 3}
    assert registry.chain(2, 2).steps == ()


def test_a_gap_is_refused() -> None:
    registry = MigrationRegistry([_step(0)])
    with pytest.raises(MigrationError, match="v2_to_v3 leaves a gap: the chain ends at v1, so "
                                             "the next step must be v1_to_v2"):
        registry.register(_step(2))


def test_a_duplicate_is_refused() -> None:
    registry = MigrationRegistry([_step(0), _step(1)])
    with pytest.raises(MigrationError, match="v1_to_v2 is registered twice"):
        registry.register(_step(1, tag="again"))


def test_a_step_over_two_versions_is_refused() -> None:
    with pytest.raises(MigrationError, match="v0_to_v2 skips versions"):
        MigrationRegistry([_step(0, 2)])


def test_no_path_outside_the_chain() -> None:
    registry = MigrationRegistry([_step(1)])
    with pytest.raises(MigrationError, match="no migration path from schema_version 0 to 2 "
                                             r"\(migrations cover v1 to v2\)"):
        registry.chain(0, 2)
    with pytest.raises(MigrationError, match="cover none"):
        MigrationRegistry().chain(0, 1)


def test_memlens_chain_reaches_the_current_schema_and_its_steps_are_pure() -> None:
    assert MIGRATIONS.head == SCHEMA_VERSION and MIGRATIONS.base == 0
    record = {"record": "memory", "id": "m", "text": "t", "type": "Decision", "ts": 0,
              "project_tags": ["a"], "meta": {"k": [1]}}
    frozen = copy.deepcopy(record)
    chain = MIGRATIONS.chain(0, SCHEMA_VERSION)
    first, second = chain.record(record), chain.record(record)
    assert record == frozen and first == second  # input untouched, same output
    assert first["content"] == "t" and first["created_at"] == "1970-01-01T00:00:00Z"
    assert chain.record({"record": "note", "x": 1}) == {"record": "note", "x": 1}
