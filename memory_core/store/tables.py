"""Connecting to a store location and opening (or creating) its four tables, checked.

Checks made here, before anything is read or written: the location is a folder (or an
object-storage URI), the tables' schema version is one this memlens reads, and the vectors
were made by the model memlens is configured to embed with.

A schema v1 store (memories, edges, audit; no `events` table) opens: with write access it is
upgraded in place (`upgrade_v1`: the empty `events` table is created, then each table's schema
version is set to 2, so a process killed half way just upgrades again); a read-only open
reads it as it is, with no events.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

from memory_core.model.codec import audit_schema, edges_schema, events_schema, memories_schema
from memory_core.model.errors import (
    MemlensError,
    ModelMismatchError,
    SchemaVersionError,
    StoreLocationError,
    StoreNotFoundError,
)
from memory_core.model.schema import (
    AUDIT,
    EDGES,
    EVENTS,
    MEMORIES,
    META_DIMENSION,
    META_MODEL_ID,
    META_SCHEMA_VERSION,
    SCHEMA_VERSION,
)
from memory_core.model.untrusted import shown
from memory_core.store.object_storage import is_remote, object_storage_error

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoreTables:
    """The open tables of one store and the model its vectors came from."""

    uri: str
    db: Any
    memories: Any
    edges: Any
    audit: Any
    model_id: str
    dimension: int
    #: None only for a schema v1 store opened read-only (it has no events yet)
    events: Any | None = None
    #: what the tables were opened with (object storage: endpoint, keys, ...), so that other
    #: readers of the same tables (a Ray job's workers) can open them too
    storage_options: dict[str, str] | None = None

    def named(self) -> dict[str, Any]:
        """The open tables by name (`events` left out when the store has none)."""
        out = {MEMORIES: self.memories, EDGES: self.edges, AUDIT: self.audit}
        if self.events is not None:
            out[EVENTS] = self.events
        return out


def _check_location(uri: str, *, create: bool) -> None:
    if is_remote(uri):
        return
    path = Path(uri.removeprefix("file://")).expanduser()
    if path.exists() and not path.is_dir():
        raise StoreLocationError(
            f"the store location {uri} is a file, not a folder; point --store (or "
            f"MEMLENS_STORE) at a folder, e.g. ./data/store"
        )
    if not path.exists() and not create:
        raise StoreNotFoundError(
            f"there is no memlens store at {uri}; run `memlens init --store {uri}` to create "
            f"one (only init, add and import create a store)"
        )


def _no_store(uri: str, present: set[str]) -> StoreNotFoundError:
    """The error for a location that exists but holds no memlens store: an empty one, or
    one holding other Lance tables (a foreign database, which `import` reads)."""
    foreign = sorted(present - {MEMORIES, EDGES, AUDIT, EVENTS})
    if foreign:
        names = ", ".join(shown(name) for name in foreign[:5])
        more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        return StoreNotFoundError(
            f"{uri} holds no memlens store (no '{MEMORIES}' table) but Lance tables {names}"
            f"{more}; use `memlens import --format lancedb {uri} --table NAME` to import a "
            f"foreign table into a memlens store")
    return StoreNotFoundError(
        f"{uri} holds no memlens store (no '{MEMORIES}' table); run `memlens init --store "
        f"{uri}` to create one (only init, add and import create a store)")


def store_exists(uri: str, *, storage_options: dict[str, str] | None = None) -> bool:
    """Whether a memlens store (its `memories` table) is at `uri`; creates nothing."""
    if not is_remote(uri):
        return (Path(uri.removeprefix("file://")).expanduser() / f"{MEMORIES}.lance").is_dir()
    import lancedb

    try:
        db = lancedb.connect(uri, storage_options=storage_options)
        return MEMORIES in _list_tables(db)
    except (OSError, ValueError, RuntimeError) as exc:
        raise _cannot_open(uri, exc) from exc


def _cannot_open(uri: str, exc: BaseException) -> MemlensError:
    """What a failure to reach the store means: an object-storage problem the user can fix
    (`object_storage_error`), else a `StoreLocationError` quoting LanceDB."""
    return object_storage_error(exc, uri) or StoreLocationError(
        f"cannot open the store at {uri}: {exc}")


def _list_tables(db: Any) -> set[str]:
    response = db.list_tables()
    names = getattr(response, "tables", response)
    return set(names or ())


def schema_version_of(schema: pa.Schema) -> int:
    """The memlens schema version recorded in a table schema (0 when absent)."""
    raw = (schema.metadata or {}).get(META_SCHEMA_VERSION)
    return int(raw) if raw else 0


def vector_model_of(schema: pa.Schema) -> tuple[str, int]:
    """(model id, dimension) recorded on the `vector` field of a memories schema."""
    field = schema.field("vector")
    meta = field.metadata or {}
    model = meta.get(META_MODEL_ID, b"unknown").decode()
    dimension = int(meta.get(META_DIMENSION, b"0")) or field.type.list_size
    return model, dimension


#: Older schema versions a store can be at and still open (and be upgraded in place).
UPGRADABLE = frozenset({1})


def _check_schema_version(uri: str, name: str, schema: pa.Schema) -> None:
    version = schema_version_of(schema)
    if version in UPGRADABLE:
        return
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"table {name!r} in {uri} has schema version {version}, but this memlens reads "
            f"up to version {SCHEMA_VERSION}; upgrade memlens (`pip install -U memlens`)"
        )
    if version < SCHEMA_VERSION:
        raise SchemaVersionError(
            f"table {name!r} in {uri} has schema version {version} (this memlens writes "
            f"{SCHEMA_VERSION}); export it with the memlens that wrote it and `memlens import` "
            f"the file, which migrates it"
        )


def add_missing_columns(table: Any, wanted: pa.Schema) -> list[str]:
    """Add the optional columns of `wanted` that `table` lacks, all null (columns memlens
    added within a schema version, e.g. the audit's `batch_id`); returns their names.

    Only a writable open does this; a read-only one reads a missing optional column as null.
    """
    have = set(table.schema.names)
    missing = [f for f in wanted if f.name not in have and f.nullable]
    if missing:
        log.info("adding columns %s to table %s", [f.name for f in missing], table.name)
        try:
            table.add_columns(missing)
        except (OSError, ValueError, RuntimeError):
            # another process opening the store at the same moment may have added them
            table.checkout_latest()
            if not {f.name for f in missing} <= set(table.schema.names):
                raise
    return [f.name for f in missing]


#: The Lance file format new tables are written in. Reading a search's hits back by row id
#: takes their 22 columns at once, which format 2.1 does faster than 2.2, LanceDB's default
#: (docs/performance.md has the search figures). Existing tables keep the format they were
#: made in.
FILE_FORMAT = "2.1"


def _create_or_open(db: Any, name: str, schema: pa.Schema) -> Any:
    try:
        return db.create_table(name, schema=schema, data_storage_version=FILE_FORMAT)
    except (OSError, ValueError, RuntimeError):
        # another process opening the store at the same moment may have created it
        if name not in _list_tables(db):
            raise
        return db.open_table(name)


def upgrade_v1(db: Any, tables: dict[str, Any]) -> Any:
    """Upgrade a schema v1 store in place: create its `events` table, then record schema
    version 2 on each table (the order makes a half-done upgrade safe to run again)."""
    log.info("upgrading the store to schema version %s (adding the events table)",
             SCHEMA_VERSION)
    events = (db.open_table(EVENTS) if EVENTS in _list_tables(db)
              else _create_or_open(db, EVENTS, events_schema()))
    for table in (*tables.values(), events):
        if schema_version_of(table.schema) < SCHEMA_VERSION:
            table.to_lance().update_schema_metadata(
                {META_SCHEMA_VERSION.decode(): str(SCHEMA_VERSION)})
            table.checkout_latest()
    return events


def check_model(uri: str, stored: tuple[str, int], wanted: tuple[str, int]) -> None:
    """Refuse a store whose vectors came from another model or dimension than `wanted`."""
    if stored == wanted:
        return
    (stored_model, stored_dim), (model, dim) = stored, wanted
    raise ModelMismatchError(
        f"the store {uri} holds {stored_dim}-d vectors from {stored_model!r}, but memlens is "
        f"set to embed with {model!r} ({dim}-d). Either set MEMLENS_EMBED_MODEL={stored_model} "
        f"to use the store as it is, or re-embed it: `memlens reembed --model {model} "
        f"--store {uri}`"
    )


def open_tables(
    uri: str,
    *,
    model_id: str,
    dimension: int,
    create: bool = True,
    writable: bool | None = None,
    check_vectors: bool = True,
    storage_options: dict[str, str] | None = None,
) -> StoreTables:
    """Open the store at `uri`, creating it when missing if `create` is true (else a missing
    store is a `StoreNotFoundError` and nothing is created, not even its folder).

    `writable` (default: `create`) lets the open bring an existing store up to date: add a
    missing table or optional column, upgrade schema v1. A read-only open does neither.

    `storage_options` go to LanceDB (`object_storage.storage_options` makes them); a store on
    object storage that cannot be reached raises an `ObjectStorageError` saying what to fix,
    and a table whose files Lance cannot read a `StoreDamagedError` (`memlens check`).
    """
    from memory_core.store.files.damage import remember_store, store_damage

    _check_location(uri, create=create)
    try:
        tables = _open_tables(uri, model_id=model_id, dimension=dimension, create=create,
                              writable=create if writable is None else writable,
                              check_vectors=check_vectors, storage_options=storage_options)
        remember_store(uri, storage_options)  # to name the table of a damaged file met later
        return tables
    except MemlensError:
        raise
    except (OSError, ValueError, RuntimeError) as exc:
        mapped: MemlensError | None = (object_storage_error(exc, uri) if is_remote(uri)
                                       else None) or store_damage(exc, uri, storage_options)
        if mapped is None:
            raise
        raise mapped from exc


def _open_tables(uri: str, *, model_id: str, dimension: int, create: bool, writable: bool,
                 check_vectors: bool, storage_options: dict[str, str] | None) -> StoreTables:
    import lancedb

    try:
        db = lancedb.connect(
            uri, storage_options=storage_options, read_consistency_interval=timedelta(0)
        )
        present = _list_tables(db)
    except (OSError, ValueError, RuntimeError) as exc:
        raise _cannot_open(uri, exc) from exc
    if MEMORIES not in present and not create:
        raise _no_store(uri, present)
    wanted = {
        MEMORIES: memories_schema(dimension, model_id),
        EDGES: edges_schema(),
        AUDIT: audit_schema(),
    }
    created = MEMORIES not in present
    tables: dict[str, Any] = {}
    for name, schema in wanted.items():
        if name in present:
            tables[name] = db.open_table(name)
            _check_schema_version(uri, name, tables[name].schema)
            if writable:
                add_missing_columns(tables[name], schema)
        elif not writable:  # a read-only open writes nothing, not even a missing table
            raise StoreNotFoundError(
                f"{uri} is an incomplete memlens store (no '{name}' table); open it once "
                f"with write access (e.g. `memlens stats --store {uri}`) to add it"
            )
        else:
            log.info("creating table %s in %s", name, uri)
            tables[name] = _create_or_open(db, name, schema)
    events = _open_events(db, uri, tables, present, create=writable, created=created)
    stored = vector_model_of(tables[MEMORIES].schema)
    if check_vectors:
        check_model(uri, stored, (model_id, dimension))
    return StoreTables(
        uri=uri,
        db=db,
        memories=tables[MEMORIES],
        edges=tables[EDGES],
        audit=tables[AUDIT],
        model_id=stored[0],
        dimension=stored[1],
        events=events,
        storage_options=storage_options,
    )


def _open_events(db: Any, uri: str, tables: dict[str, Any], present: set[str], *,
                 create: bool, created: bool) -> Any | None:
    """The `events` table: created with a new store, added to an older one opened with
    write access, absent (None) from an older one opened read-only."""
    old = any(schema_version_of(t.schema) < SCHEMA_VERSION for t in tables.values())
    if EVENTS in present and not old:
        events = db.open_table(EVENTS)
        _check_schema_version(uri, EVENTS, events.schema)
        return events
    if created:
        return _create_or_open(db, EVENTS, events_schema())
    if not create:
        return db.open_table(EVENTS) if EVENTS in present else None
    return upgrade_v1(db, tables)
