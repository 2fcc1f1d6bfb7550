"""Helpers of the tenant isolation tests: the shared two-tenant store (built once per
process), everything a result holds as one text to look for the other tenant's marker in,
and one tenant's whole state to compare before and after another tenant writes."""

from __future__ import annotations

import dataclasses
import enum
import fcntl
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.hardening.tenants import MARK, TwoTenants, build, other
from tests.memory_core.projection.helpers import use_linear_map

_BUILT: dict[str, str] = {}


def two_tenants(factory: pytest.TempPathFactory) -> TwoTenants:
    """The two-tenant store, built once for the test run (pytest-xdist workers share the
    run's temporary folder and take turns under a lock); read it, `copy` it to write."""
    if "uri" not in _BUILT:
        base = factory.getbasetemp()
        shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        root = shared / "two-tenants"
        with open(shared / "two-tenants.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (root / "built").exists():
                shutil.rmtree(root, ignore_errors=True)
                root.mkdir()
                build(root, FakeEmbedder())
                (root / "built").touch()
        _BUILT["uri"] = str(root / "store")
    return TwoTenants(_BUILT["uri"], FakeEmbedder())


def text_of(value: Any, *, seen: set[int] | None = None) -> str:
    """Every string `value` holds, however deep (dataclasses, mappings, sequences, frames,
    Arrow tables, files named by a `Path`), joined: what a leak check searches."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return ""
    seen.add(id(value))

    def inner(item: Any) -> str:
        return text_of(item, seen=seen)

    if isinstance(value, str | bytes | int | float | bool | enum.Enum) or value is None:
        return str(value)
    if isinstance(value, pl.DataFrame):
        return repr(value.to_dicts())
    if isinstance(value, pa.Table):
        return repr(value.to_pylist())
    if isinstance(value, np.ndarray):
        return repr(value.tolist()) if value.dtype == object else ""
    if isinstance(value, Path):
        return value.read_text(errors="replace") if value.is_file() else str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return " ".join(inner(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return " ".join(f"{inner(k)} {inner(v)}" for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return " ".join(inner(item) for item in value)
    if hasattr(value, "__dict__"):
        return " ".join(inner(v) for v in vars(value).values())
    return repr(value)


def assert_only_own(value: Any, tenant: str, *, own_required: bool = True) -> None:
    """`value` holds nothing of the other tenant (and, when `own_required`, something of
    `tenant`'s, so that the check is not vacuous)."""
    text = text_of(value)
    assert MARK[other(tenant)] not in text, f"{tenant} sees the other tenant's records"
    if own_required:
        assert MARK[tenant] in text, f"{tenant}'s own records are missing: the check is vacuous"


def state(store: MemoryStore) -> tuple[Any, ...]:
    """Everything of the store's tenant: memories (any status, with vectors), edges (any
    status), audit rows and events."""
    memories = sorted(store.list(Filter(status=STATUSES), with_vectors=True),
                      key=lambda m: m.id)
    return (memories, store.edges.list(include_inactive=True),
            sorted(store.audit.query(limit=None), key=lambda e: e.id),
            sorted(store.events.query(), key=lambda e: e.id))


def use_fast_stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The map fits a linear stand-in for UMAP and the embedder loaded from settings is the
    fake one."""
    from memory_core import embedding
    from memory_core.store import memory_store

    use_linear_map(monkeypatch)
    for module in (memory_store, embedding):
        monkeypatch.setattr(module, "load_embedder", lambda settings=None: FakeEmbedder())
