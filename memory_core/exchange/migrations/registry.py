"""`Migration`, `MigrationChain` and `MigrationRegistry`: ordered, gap-free schema steps."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memory_core.model.errors import MigrationError

Transform = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Migration:
    """One step from schema version `source` to `source + 1`."""

    source: int
    target: int
    record: Transform
    manifest: Transform

    @property
    def name(self) -> str:
        return f"v{self.source}_to_v{self.target}"


@dataclass(frozen=True)
class MigrationChain:
    """The steps between two versions, applied in order."""

    steps: tuple[Migration, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(step.name for step in self.steps)

    def record(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """`record` migrated through every step."""
        out = dict(record)
        for step in self.steps:
            out = step.record(out)
        return out

    def manifest(self, manifest: Mapping[str, Any]) -> dict[str, Any]:
        """`manifest` migrated through every step."""
        out = dict(manifest)
        for step in self.steps:
            out = step.manifest(out)
        return out


class MigrationRegistry:
    """Migration steps registered in order: v(k) -> v(k+1), then v(k+1) -> v(k+2), ..."""

    def __init__(self, migrations: Iterable[Migration] = ()) -> None:
        self._steps: dict[int, Migration] = {}
        for migration in migrations:
            self.register(migration)

    @property
    def base(self) -> int | None:
        """The oldest version a chain can start from (None while empty)."""
        return min(self._steps) if self._steps else None

    @property
    def head(self) -> int | None:
        """The version the newest step migrates to (None while empty)."""
        return max(self._steps) + 1 if self._steps else None

    def register(self, migration: Migration) -> None:
        """Add the next step; a duplicate, a gap or a multi-version step is an error."""
        if migration.target != migration.source + 1:
            raise MigrationError(
                f"migration {migration.name} skips versions; write one step per version "
                f"(v{migration.source}_to_v{migration.source + 1})"
            )
        if migration.source in self._steps:
            raise MigrationError(
                f"migration {migration.name} is registered twice; keep one function per step"
            )
        if self.head is not None and migration.source != self.head:
            raise MigrationError(
                f"migration {migration.name} leaves a gap: the chain ends at v{self.head}, "
                f"so the next step must be v{self.head}_to_v{self.head + 1}"
            )
        self._steps[migration.source] = migration

    def chain(self, source: int, target: int) -> MigrationChain:
        """The steps from `source` to `target`; `MigrationError` when there is no path."""
        if source == target:
            return MigrationChain(())
        if self.base is None or self.head is None or not (
                self.base <= source < target <= self.head):
            known = "none" if self.base is None else f"v{self.base} to v{self.head}"
            raise MigrationError(
                f"no migration path from schema_version {source} to {target} (migrations "
                f"cover {known}); the file was not written by a memlens this one can read"
            )
        return MigrationChain(tuple(self._steps[v] for v in range(source, target)))
