"""The `mem0` import format: the JSON that mem0's `Memory.get_all()` returns, saved to a file.

Either a bare list of memories (mem0 v1.0) or `{"results": [...], "relations": [...]}` (v1.1;
`relations` only with graph memory). A memory is `{"id", "memory", "hash", "metadata",
"created_at", "updated_at", "user_id", "agent_id", "run_id", ...}`; times are ISO-8601 with a
UTC offset (`2024-07-20T01:20:34.123456-07:00`), read as the instant they name.

Mapping: id kept (mem0 ids are uuids); memory -> content; agent_id -> agent; run_id ->
session_id; categories (mem0 platform) -> tags; memory_type as given (`procedural_memory`, ...),
`fact` otherwise; metadata kept; hash -> metadata `mem0_hash`; user_id -> metadata `user_id`
(or the tenant, see the params); every other field (actor_id, role, score, immutable, ...) ->
metadata under its name (`mem0_` in front when the name is taken). An empty memory is skipped.

Graph `relations` are entity triples (`{"source": "alice", "relationship": "likes",
"destination": "pizza"}`) between entity names, not between memories: each is skipped with the
reason, so the report counts them; import mem0's graph store separately if you need it.

Params: `--param user_id_as=metadata` (default: the user_id goes into metadata and every
memory lands in the store's tenant) or `--param user_id_as=tenant`: only the memories whose
user_id is the tenant imported into (`memlens --tenant T`) are imported, the others are skipped
with a reason naming their user_id; run one import per user. `--limit N` reads at most N
memories.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from memory_core.adapters.base import (
    Adapter,
    field_of,
    load_json,
    memory_record,
    timestamp,
)
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
    read_head,
)
from memory_core.model.errors import ExportFormatError

NAME = "mem0"
SNIFF_BYTES = 1 << 16
USER_ID_AS = ("metadata", "tenant")
PARAMS = ("user_id_as",)
#: Fields read into memlens columns; the rest goes into metadata.
MAPPED = frozenset({"id", "memory", "hash", "metadata", "created_at", "updated_at", "user_id",
                    "agent_id", "run_id", "categories", "memory_type"})


def _first_item(text: str) -> Any:
    """The first element of the JSON array that `text` opens (a list, or an object whose
    `results` array comes first), when it lies whole within `text`; else None."""
    decoder = json.JSONDecoder()
    start = text.lstrip()
    if start.startswith("{"):
        marker = start.find('"results"')
        if marker < 0:
            return None
        start = start[marker + len('"results"'):].lstrip()
        if not start.startswith(":"):
            return None
        start = start[1:].lstrip()
    if not start.startswith("["):
        return None
    try:
        item, _ = decoder.raw_decode(start[1:].lstrip())
    except json.JSONDecodeError:
        return None
    return item


def _merge_extra(metadata: dict[str, Any], extra: Mapping[str, Any]) -> None:
    for key, value in extra.items():
        if value is not None:
            metadata[f"mem0_{key}" if key in metadata else key] = value


def _categories(value: Any, at: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ExportFormatError(f"{at}: categories must be a list of text, got {value!r:.60}")
    return list(dict.fromkeys(v.strip() for v in value if v.strip()))


class Mem0Adapter(Adapter):
    """mem0's `get_all()` output: a list of memories, or `{"results": [...]}`."""

    name = NAME
    sniff_order = 50
    summary = "mem0 get_all() JSON (a list of memories, or {results, relations})"
    options = frozenset({"limit"})
    params = PARAMS

    def sniff(self, path: Path, first_line: str) -> bool:
        if not path.is_file():
            return False
        try:
            head = read_head(path, SNIFF_BYTES)
        except OSError:
            return False
        item = _first_item(head)
        return isinstance(item, dict) and "memory" in item and ("hash" in item or "id" in item)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        user_id_as = options.param("user_id_as", "metadata") or "metadata"
        if user_id_as not in USER_ID_AS:
            raise ExportFormatError(f"--param user_id_as={user_id_as} is not one of "
                                    f"{', '.join(USER_ID_AS)}")
        tenant = None
        if user_id_as == "tenant":
            if not options.tenant:
                raise ExportFormatError("--param user_id_as=tenant imports the memories of "
                                        "the user named by --tenant; give --tenant USER_ID")
            tenant = options.tenant
        document = load_json(path)
        relations: Any = []
        if isinstance(document, dict) and "results" in document:
            items, relations = document["results"], document.get("relations") or []
        else:
            items = document
        if not isinstance(items, list):
            raise ExportFormatError(f"{path}: a mem0 file is a JSON array of memories or an "
                                    f"object with a 'results' array (what get_all returns)")
        if not isinstance(relations, list):
            raise ExportFormatError(f"{path}: 'relations' must be a JSON array")
        info = SourceInfo(format=NAME, path=str(path), schema_version=1,
                          record_types=("memory",))
        source = ExportSource(info, lambda: self._records(
            path, items, relations, source, options.limit, tenant))
        return source

    def _records(self, path: Path, items: list[Any], relations: list[Any],
                 source: ExportSource, limit: int | None, tenant: str | None
                 ) -> Iterator[SourceRecord]:
        for index, item in enumerate(items[:limit] if limit is not None else items, start=1):
            place = f"item {index}"
            at = f"{path}: {place}"
            if not isinstance(item, dict):
                raise ExportFormatError(f"{at} is not a JSON object")
            record = self._memory(item, place, at, tenant)
            if isinstance(record, str):
                source.skips.skip(record, place)
                continue
            yield record
        for index, relation in enumerate(relations, start=1):
            triple = relation if isinstance(relation, dict) else {}
            ends = (triple.get("source"), triple.get("relationship"),
                    triple.get("destination", triple.get("target")))
            source.skips.skip("graph relation between entities, not memories",
                              f"relation {index} ({ends[0]} -{ends[1]}-> {ends[2]})")

    def _memory(self, item: Mapping[str, Any], place: str, at: str, tenant: str | None
                ) -> SourceRecord | str:
        memory_id = field_of(item, "id", str, at)
        content = field_of(item, "memory", str, at)
        user = field_of(item, "user_id", str, at, required=False)
        agent = field_of(item, "agent_id", str, at, required=False)
        run = field_of(item, "run_id", str, at, required=False)
        kind = field_of(item, "memory_type", str, at, required=False)
        digest = field_of(item, "hash", str, at, required=False)
        if "created_at" not in item or item["created_at"] is None:
            raise ExportFormatError(f"{at}: the record has no 'created_at'")
        created = timestamp(item["created_at"], at, "created_at")
        updated = item.get("updated_at")
        base = item.get("metadata")
        if base is not None and not isinstance(base, dict):
            raise ExportFormatError(f"{at}: metadata must be a JSON object, got "
                                    f"{type(base).__name__} {base!r:.60}")
        tags = _categories(item.get("categories"), at)
        if tenant is not None and user != tenant:
            return (f"user_id {user!r} is not the tenant {tenant!r} (user_id_as=tenant)"
                    if user is not None else "no user_id (user_id_as=tenant)")
        if not content.strip():
            return "empty memory"
        metadata = dict(base or {})
        _merge_extra(metadata, {"mem0_hash": digest,
                                "user_id": None if tenant is not None else user,
                                **{k: v for k, v in item.items() if k not in MAPPED}})
        return memory_record(
            place, id=memory_id, content=content, memory_type=(kind or "").strip() or "fact",
            created_at=created, source=f"import:{NAME}", tags=tags, metadata=metadata,
            agent=agent, session_id=run,
            updated_at=None if updated is None else timestamp(updated, at, "updated_at"))
