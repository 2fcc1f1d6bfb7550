"""The one error hierarchy of memlens.

Every error a user can cause is a `MemlensError` subclass whose message names the offending
value and says what to do. The CLI turns these into one line on stderr and exit code 1; pages
show them with `st.error`. Anything that is not a `MemlensError` is a bug.
"""

from __future__ import annotations


class MemlensError(Exception):
    """Base class of every error memlens raises on purpose."""


class InvalidRecordError(MemlensError, ValueError):
    """A memory, edge or event failed validation (empty content, wrong vector size, bad
    vocabulary)."""


class QuerySetError(InvalidRecordError):
    """A query-set line is malformed (not JSON, no qid/query, grades not integers >= 1)."""


class InvalidFilterError(MemlensError, ValueError):
    """A filter value has the wrong type or is not allowed."""


class StoreLocationError(MemlensError):
    """The store URI cannot hold a memlens store (a file, not a folder; unreadable; ...)."""


class StoreNotFoundError(MemlensError):
    """There is no memlens store at the given location."""


class StoreDamagedError(MemlensError):
    """A file of one of the store's tables is missing, truncated or unreadable (Lance could
    not read it); `memlens check` lists every such problem and `--repair` fixes them."""

    def __init__(self, message: str, *, table: str = "", file: str = "") -> None:
        super().__init__(message)
        self.table = table
        self.file = file


class StoreNotAllowedError(MemlensError):
    """The web app may not open this store: it is neither MEMLENS_STORE nor listed in
    MEMLENS_STORES."""


class SchemaVersionError(MemlensError):
    """The store or file was written by a schema version this memlens cannot read."""


class ModelMismatchError(MemlensError):
    """The store's vectors came from another embedding model or dimension."""


class TenantNotFoundError(MemlensError):
    """No memory in the store belongs to the requested tenant."""


class MemoryNotFoundError(MemlensError, KeyError):
    """No memory with that id exists in this tenant."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else "memory not found"


class RecallNotFoundError(MemlensError, KeyError):
    """No recall with that id was recorded in this tenant (a recall that sent nothing writes
    no event, and a purge deletes the events of what it purges)."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else ""


class CandidateNotFoundError(MemlensError, KeyError):
    """No current consolidation candidate has that id: its members changed, one of them was
    consolidated, or it was rejected; list the current ones with `memlens consolidate
    suggest`."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else "consolidation candidate not found"


class ReadOnlyError(MemlensError):
    """The store was opened read-only (`--read-only` or MEMLENS_READ_ONLY), so writes are
    refused. Build it with `ReadOnlyError.refusing`, the one wording of the message."""

    @classmethod
    def refusing(cls, uri: str, action: str, *, hint: str = "") -> ReadOnlyError:
        """The error refusing `action` on the store at `uri`; `hint` says what else to do.
        Every read-only refusal is worded here, so the CLI, the API and the pages agree."""
        extra = f" ({hint})" if hint else ""
        return cls(f"the store {uri} is open read-only (--read-only or MEMLENS_READ_ONLY), so "
                   f"{action} is refused; run without --read-only and with MEMLENS_READ_ONLY "
                   f"unset to write{extra}")


class EmbedderUnavailableError(MemlensError):
    """The embedding model cannot be loaded (missing files, bad checksum, unknown name)."""


class VectorFileError(MemlensError):
    """A file of precomputed vectors (`memory_core/demo_data/demo_vectors.npz`) is missing,
    damaged or not in memlens' format."""


class ExportFormatError(MemlensError):
    """An export file is malformed: bad manifest, checksum, or record line."""


class InvalidConfigError(MemlensError, ValueError):
    """A ranking option or preset name is not valid."""


class ImportConflictError(MemlensError):
    """An import would replace data it must not: --mode empty into a tenant that has
    memories, or a record id that belongs to another tenant."""


class MigrationError(MemlensError):
    """A migration chain is broken (a gap, a duplicate step) or has no path between two
    schema versions."""


class UnknownFormatError(MemlensError, ValueError):
    """No export reader is registered under that name, or none recognises the file."""


class DiffError(MemlensError):
    """A diff side is not an export file, `live` or `version:N`, or a field to ignore is
    unknown."""


class StoreBusyError(MemlensError):
    """Another process kept the store's write lock longer than memlens waits for it."""


class CurationError(MemlensError):
    """A curation action cannot be done as asked (empty selection, a merge into a memory
    outside it, a duplicate content, ...); nothing was changed."""


class CurationConflictError(CurationError):
    """The memories changed since a preview, or an undo would overwrite a later change."""


class VersionGoneError(CurationConflictError):
    """A table version an undo needs is no longer on disk (a purge removes older versions)."""


class ImpactError(CurationError):
    """An impact preview cannot run: no queries to measure with (no saved query set, no
    recall events), a store on object storage (no scratch copy), or an interrupted write."""


class ReceiptError(MemlensError):
    """A deletion receipt cannot be written or checked: the file is not a memlens receipt,
    was altered, or names another tenant or purge than the store holds; or the path given
    for a new receipt cannot take it."""


class GraphError(MemlensError, ValueError):
    """A graph request or edge is not valid: an unknown relation, a depth or hop count out
    of range, a self loop, an edge already there."""


class InvalidMapParamsError(MemlensError, ValueError):
    """A map, cluster or near-duplicate parameter is out of range or its input is malformed
    (n_neighbors, min_dist, seed, dims, sample; a cluster size below 2, a threshold outside
    (0, 1], a layout without x and y, ...)."""


class MapError(MemlensError):
    """A map cannot be made or used as asked: too few embedded memories, or the fitted
    model a cached map needs to place a query is gone from the cache."""


class EngineUnavailableError(MemlensError):
    """A job was asked to run on an engine that is not installed or cannot start (`--engine
    ray` without the `ray` extra, an unreachable RAY_ADDRESS)."""


class ObjectStorageError(MemlensError):
    """A store on object storage (s3://...) cannot be reached or used as configured."""


class BucketNotFoundError(ObjectStorageError):
    """The bucket a store URI names does not exist at the object-storage endpoint."""


class ObjectStorageAuthError(ObjectStorageError):
    """The object-storage service refused the credentials (unknown key, wrong secret,
    expired token, or a policy that denies the request)."""


class ObjectStorageUnreachableError(ObjectStorageError):
    """The object-storage endpoint does not answer (connection refused, unknown host,
    timeout)."""


class ObjectStorageStalledError(ObjectStorageUnreachableError):
    """The object-storage endpoint accepted the connection but gave no answer within
    MEMLENS_STORAGE_TIMEOUT seconds (a stopped or overloaded server)."""


class ObjectStorageConfigError(ObjectStorageError):
    """An object-storage setting is malformed (an unparsable MEMLENS_STORAGE_OPTIONS item,
    AWS_ALLOW_HTTP not a boolean, a plain-http endpoint on another machine without
    AWS_ALLOW_HTTP)."""


class DiskFullError(MemlensError):
    """The disk holding the store filled up during a write; the write was put back (see
    `memory_core.store.disk_full`)."""
