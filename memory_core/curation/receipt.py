"""Deletion receipts: what a purge erased and how that was verified, as a JSON file a user
can keep and show, and `verify_receipt` to check it again later (docs/design/curation.md).

A receipt holds the store's URI and tenant, the purge's batch id and time, every purged id
with its content hash (and, for a memory taken along as derived, the `derived_from` path that
made it so), and the `verify_deleted` checks with their statuses. It holds no content: a
failed check keeps its name and status but not its detail, which may quote what was found.
Its `digest` (SHA-256 of the rest, canonical JSON) shows an accidental or naive change; the
proof is the store itself: `verify_receipt` refuses a receipt whose ids, hashes or batch do
not match the purge's tombstones in the store's audit, then runs `verify_deleted` again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.curation.checks import FAIL, PASS, SKIP, Check
from memory_core.curation.receipt_file import read_json, write_new
from memory_core.curation.report import CurationReport
from memory_core.curation.verify import Verification, verify_deleted
from memory_core.model.errors import ReceiptError
from memory_core.model.untrusted import shown
from memory_core.model.values import canonical_json, utcnow
from memory_core.store import MemoryStore

FORMAT, VERSION = "memlens-deletion-receipt", 1
#: What a failed check's detail becomes in a receipt (the detail may quote deleted text).
WITHHELD = "failed; `memlens verify-deleted --receipt FILE` shows what was found"


@dataclass(frozen=True)
class Erased:
    """One purged memory in a receipt (`path`: from a selected memory to it over
    `derived_from`, empty when it was selected itself)."""

    id: str
    content_hash: str
    purged_at: str
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Receipt:
    """A deletion receipt as written (`to_dict`) and read back (`parse`)."""

    store: str
    tenant: str
    batch_id: str
    written_at: str
    erased: tuple[Erased, ...]
    checks: tuple[Check, ...]
    passed: bool

    @property
    def ids(self) -> list[str]:
        return [e.id for e in self.erased]

    def body(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "store": self.store,
                "tenant": self.tenant, "batch_id": self.batch_id,
                "written_at": self.written_at, "passed": self.passed,
                "memories": [{"id": e.id, "content_hash": e.content_hash,
                              "purged_at": e.purged_at, "derived_path": list(e.path)}
                             for e in self.erased],
                "checks": [{"name": c.name, "status": c.status, "detail": c.detail}
                           for c in self.checks]}

    def to_dict(self) -> dict[str, Any]:
        body = self.body()
        return {**body, "digest": _digest(body)}


def _digest(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(dict(body)).encode("utf-8")).hexdigest()


def _tombstones(store: MemoryStore, batch_id: str) -> dict[str, dict[str, Any]]:
    """id -> the tombstone a purge batch left in the audit (id, content hash, who, when)."""
    out: dict[str, dict[str, Any]] = {}
    for entry in store.audit.query(batch_id=batch_id, action="purge", limit=None):
        before = entry.before if isinstance(entry.before, dict) else {}
        if before.get("kind") != "memory":
            continue
        for record in before.get("records") or []:
            if isinstance(record, dict) and record.get("purged") and isinstance(
                    record.get("id"), str):
                out[record["id"]] = record
    return out


def make_receipt(store: MemoryStore, report: CurationReport,
                 paths: Mapping[str, Sequence[str]] | None = None) -> Receipt:
    """The receipt of the purge `report` (of `delete(..., purge=True)`), from its
    verification and the tombstones its batch left; `paths` maps the derived memories it
    took along to their `derived_from` paths (`Derived.path`)."""
    if not report.purged or report.batch_id is None:
        raise ReceiptError("a receipt records a purge: run the delete with purge=True "
                           "(`--purge`), not a plain delete or a preview")
    if report.verification is None:
        raise ReceiptError("a receipt records a purge's verification: this purge ran with "
                           "verify=False; run `verify_deleted` on its ids instead")
    stones = _tombstones(store, report.batch_id)
    verification: Verification = report.verification
    erased = []
    for memory_id in verification.memory_ids:
        stone = stones.get(memory_id, {})
        erased.append(Erased(memory_id, str(stone.get("content_hash", "")),
                             str(stone.get("purged_at", "")),
                             tuple((paths or {}).get(memory_id, ()))))
    checks = tuple(Check(c.name, c.status, WITHHELD if c.status == FAIL else c.detail)
                   for c in verification.checks)
    return Receipt(store.uri, store.tenant, report.batch_id, utcnow().isoformat(),
                   tuple(erased), checks, verification.passed)


def default_receipt_path(batch_id: str, folder: Path | None = None) -> Path:
    """Where a receipt goes when no path is given: `memlens-receipt-<batch id>.json` in the
    current folder (where the user ran the purge, as a download would land)."""
    return (folder or Path.cwd()) / f"memlens-receipt-{batch_id}.json"


def write_receipt(store: MemoryStore, report: CurationReport, path: Path | str | None = None,
                  *, paths: Mapping[str, Sequence[str]] | None = None) -> Path:
    """Write the receipt of the purge `report` to `path` (a new file, mode 0600, written
    atomically; default `default_receipt_path`); returns the path written."""
    receipt = make_receipt(store, report, paths)
    target = Path(path) if path is not None else default_receipt_path(receipt.batch_id)
    text = canonical_json(receipt.to_dict()) + "\n"
    return write_new(target, text)


def receipt_text(receipt: Receipt) -> str:
    """The receipt's file content (the page offers it as a download)."""
    return canonical_json(receipt.to_dict()) + "\n"


# -- reading one back ----------------------------------------------------------------------

def _field(value: Mapping[str, Any], name: str, kind: type, where: str) -> Any:
    item = value.get(name)
    if not isinstance(item, kind) or (kind is int and isinstance(item, bool)):
        raise ReceiptError(f"{where}: field {name!r} is missing or not "
                           f"{'text' if kind is str else kind.__name__}")
    return item


def parse_receipt(value: Any, name: str = "the receipt") -> Receipt:
    """A `Receipt` from its JSON value; anything else (another format or version, a missing
    or mistyped field, a digest that does not match) is a `ReceiptError` naming the field."""
    where = f"{name} is not a memlens deletion receipt"
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise ReceiptError(f"{where} (its 'format' is not {FORMAT!r})")
    if value.get("version") != VERSION:
        raise ReceiptError(f"{where} of version {VERSION} (this memlens reads version "
                           f"{VERSION} only)")
    memories = _field(value, "memories", list, where)
    erased = []
    for i, item in enumerate(memories):
        at = f"{where}: memories[{i}]"
        if not isinstance(item, dict):
            raise ReceiptError(f"{at} is not an object")
        path = _field(item, "derived_path", list, at)
        if not all(isinstance(p, str) for p in path):
            raise ReceiptError(f"{at}: 'derived_path' must list ids (text)")
        erased.append(Erased(_field(item, "id", str, at), _field(item, "content_hash", str, at),
                             _field(item, "purged_at", str, at), tuple(path)))
    if not erased:
        raise ReceiptError(f"{where}: it lists no memory")
    checks = []
    for i, item in enumerate(_field(value, "checks", list, where)):
        at = f"{where}: checks[{i}]"
        if not isinstance(item, dict):
            raise ReceiptError(f"{at} is not an object")
        checks.append(Check(_field(item, "name", str, at), _field(item, "status", str, at),
                            _field(item, "detail", str, at)))
    receipt = Receipt(_field(value, "store", str, where), _field(value, "tenant", str, where),
                      _field(value, "batch_id", str, where),
                      _field(value, "written_at", str, where), tuple(erased), tuple(checks),
                      _field(value, "passed", bool, where))
    if value.get("digest") != _digest(receipt.body()) or set(value) != {*receipt.body(),
                                                                           "digest"}:
        raise ReceiptError(f"{name} was changed after it was written (its digest does not "
                           f"match its content); nothing was checked: use the file memlens "
                           f"wrote")
    return receipt


def read_receipt(path: Path | str) -> Receipt:
    """The receipt in the file `path` (`parse_receipt`)."""
    return parse_receipt(read_json(Path(path)), f"the receipt {shown(str(path))}")


@dataclass(frozen=True)
class ReceiptCheck:
    """A receipt checked again: the store's `verify_deleted` now, and the checks whose
    status moved since the receipt (name, then, now; a check new or gone: None)."""

    receipt: Receipt
    verification: Verification
    changed: tuple[tuple[str, str | None, str | None], ...]
    same_store: bool

    @property
    def passed(self) -> bool:
        return self.verification.passed

    @property
    def failed_since(self) -> list[str]:
        """The checks that fail now and did not in the receipt (a memory came back)."""
        return [n for n, then, now in self.changed if now == FAIL and then != FAIL]

    @property
    def unrepeatable(self) -> list[str]:
        """The checks that passed then and are skipped now: searching for a memory by its
        content needs the content, which the purge erased (the receipt does not keep it)."""
        return [n for n, then, now in self.changed if then == PASS and now == SKIP]

    def to_dict(self) -> dict[str, Any]:
        return {"batch_id": self.receipt.batch_id, "tenant": self.receipt.tenant,
                "receipt_store": self.receipt.store, "same_store": self.same_store,
                "written_at": self.receipt.written_at, "passed": self.passed,
                "verification": self.verification.to_dict(),
                "changed": [{"check": n, "then": a, "now": b} for n, a, b in self.changed],
                "failed_since": self.failed_since, "unrepeatable": self.unrepeatable}


def _match_store(store: MemoryStore, receipt: Receipt) -> None:
    """Refuse a receipt of another tenant, or one the store's purge record contradicts."""
    if receipt.tenant != store.tenant:
        raise ReceiptError(f"the receipt is for tenant {shown(receipt.tenant)}, the store is "
                           f"open for tenant {shown(store.tenant)}: open it with --tenant "
                           f"of the receipt")
    stones = _tombstones(store, receipt.batch_id)
    if not stones:
        raise ReceiptError(f"tenant {shown(store.tenant)} of this store holds no purge "
                           f"{shown(receipt.batch_id)}: the receipt is of another store, or "
                           f"was altered")
    listed = {e.id: e for e in receipt.erased}
    for memory_id in sorted(set(listed) | set(stones)):
        entry, stone = listed.get(memory_id), stones.get(memory_id)
        if entry is None or stone is None or entry.content_hash != stone.get("content_hash"):
            raise ReceiptError(f"memory {shown(memory_id)}: the receipt and the store's "
                               f"record of purge {shown(receipt.batch_id)} differ; the "
                               f"receipt was altered or is of another store")


def verify_receipt(store: MemoryStore, path: Path | str) -> ReceiptCheck:
    """Check the receipt file `path` against `store`: it must be a well-formed, unaltered
    receipt of this tenant and of a purge this store's audit records (else `ReceiptError`,
    nothing checked); then `verify_deleted` runs again for its ids. `passed` is False when a
    memory could come back now (e.g. its content was added again)."""
    receipt = read_receipt(path)
    _match_store(store, receipt)
    verification = verify_deleted(store, receipt.ids)
    then = {c.name: c.status for c in receipt.checks}
    now = {c.name: c.status for c in verification.checks}
    changed = tuple((n, then.get(n), now.get(n)) for n in dict.fromkeys([*then, *now])
                    if then.get(n) != now.get(n))
    return ReceiptCheck(receipt, verification, changed, receipt.store == store.uri)
