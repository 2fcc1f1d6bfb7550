"""The `hades` import format: HADES experiential memory collections (docs/design/importers.md).

PATH is a folder holding any of `observations`, `reflections`, `entities`, `relationships`
and `sessions` as arangoexport files or an arangodump folder (see `files`); at least one
memory collection. Every document carries ArangoDB's `_key` / `_id` ("observations/obs_1"):
memlens ids are `stable_id("hades", _id)` and `_id` is kept in metadata, so a second import
finds the same ids.

Mapping (HADES schema v1.0):
* observations and reflections -> memories: content, memory_type (default observation /
  reflection), tags, created_at (or epoch `created_at_unix`), updated_at, session_id, status;
  `metadata.project` -> project, `metadata.confidence` -> confidence, `metadata.source`
  (user_statement, agent_inference, code_analysis) -> source (default `import:hades`).
* entities -> memories of type `entity`: content "name: description", first_seen ->
  created_at, last_updated -> updated_at, `metadata.certainty` -> confidence; entity_type,
  aliases and mention_count go into metadata.
* a reflection's `consolidates` -> one `derived_from` edge from the reflection to each
  document it lists.
* relationships -> edges: `_from` / `_to` resolved to memory ids, relationship_type mapped
  by the schema's aliases (causes -> caused, conflicts_with -> contradicts), strength,
  evidence (the `_id`s as given), created_at, last_reinforced, `metadata.decay_rate` ->
  decay_rate, status; the original type stays in the edge's `metadata.relationship_type`.
* sessions are not memories: a session's fields go into `metadata.session` of the memories
  that name it (`session_id`), and its `metadata.project` is their project when they have
  none.
Other fields (`_rev`, revision, turn_index, content_hash, source_count, ...) go into metadata;
`embedding` (2048-d Jina v4) is left out unless `--param embedding_model=ID` says the store
holds that model. `--limit N` reads N memory documents (observations, then reflections,
then entities).

Parameters: `unknown_relations` = relates_to (default: kept as relates_to) | skip | error;
`dangling` = skip (default: an edge to a document not imported is skipped) | keep (kept
for memories a previous import brought in); `embedding_model`, `embedding_dimension`
(default 2048).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.adapters.base import (
    Adapter,
    edge_record,
    field_of,
    memory_record,
    stable_id,
    timestamp,
)
from memory_core.adapters.hades.files import (
    COLLECTIONS,
    MEMORY_COLLECTIONS,
    collection_files,
    iter_documents,
    looks_like_hades,
)
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
)
from memory_core.model.errors import ExportFormatError, InvalidRecordError
from memory_core.model.schema import RELATIONS, normalise_relation

NAME = "hades"
#: The HADES schema version this reader follows ("schema v1.0").
HADES_SCHEMA = 1
DEFAULT_TYPE = {"observations": "observation", "reflections": "reflection",
                "entities": "entity"}
#: Top-level fields mapped onto memlens columns; every other field goes into metadata.
MEMORY_FIELDS = frozenset({"_key", "_id", "content", "memory_type", "tags", "embedding",
                           "created_at", "created_at_unix", "updated_at", "session_id",
                           "metadata", "status"})
ENTITY_FIELDS = frozenset({"_key", "_id", "name", "description", "tags", "embedding",
                           "first_seen", "last_updated", "session_id", "metadata",
                           "status"})
EDGE_FIELDS = frozenset({"_key", "_id", "_from", "_to", "relationship_type", "strength",
                         "evidence", "created_at", "last_reinforced", "metadata", "status"})
PARAMS = {"unknown_relations": ("relates_to", "skip", "error"), "dangling": ("skip", "keep"),
          "embedding_model": (), "embedding_dimension": ()}


@dataclass(frozen=True)
class HadesSettings:
    """The `--param` settings of a HADES import (see the module doc)."""

    unknown_relations: str = "relates_to"
    dangling: str = "skip"
    embedding: Mapping[str, Any] | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> HadesSettings:
        """Settings from `--param KEY=VALUE` pairs; unknown keys or values are errors."""
        for key, value in params.items():
            if key not in PARAMS:
                raise ExportFormatError(f"the hades format has no --param {key}; it takes "
                                        f"{', '.join(PARAMS)}")
            if PARAMS[key] and value not in PARAMS[key]:
                raise ExportFormatError(f"--param {key}={value}: use one of "
                                        f"{', '.join(PARAMS[key])}")
        embedding = None
        if params.get("embedding_model"):
            size = params.get("embedding_dimension", "2048")
            if not size.isdigit() or int(size) < 1:
                raise ExportFormatError(f"--param embedding_dimension={size}: use a positive "
                                        f"integer")
            embedding = {"model": params["embedding_model"], "dimension": int(size)}
        return cls(params.get("unknown_relations", "relates_to"),
                   params.get("dangling", "skip"), embedding)


def document_id(doc: Mapping[str, Any], collection: str, where: str) -> str:
    """A document's ArangoDB `_id` ("collection/key"), built from `_key` when absent."""
    full = field_of(doc, "_id", str, where, required=False)
    key = field_of(doc, "_key", str, where, required=False)
    if full is not None:
        if "/" not in full:
            raise ExportFormatError(f"{where}: '_id' {full!r} is not 'collection/key'")
        return str(full)
    if key:
        return f"{collection}/{key}"
    raise ExportFormatError(f"{where}: the document has no '_key' or '_id'; ArangoDB "
                            f"documents always carry them")


def _strings(doc: Mapping[str, Any], name: str, where: str) -> list[str]:
    values = field_of(doc, name, list, where, required=False) or []
    for value in values:
        if not isinstance(value, str):
            raise ExportFormatError(f"{where}: every item of {name!r} must be text, got "
                                    f"{value!r:.60}")
    return list(values)


def _time(doc: Mapping[str, Any], names: tuple[str, ...], where: str,
          required: bool = True) -> str | None:
    """The first of the fields `names` that is set, as ISO-8601 UTC."""
    for name in names:
        if doc.get(name) is not None:
            return timestamp(doc[name], where, name)
    if required:
        raise ExportFormatError(f"{where}: the record has no {' or '.join(map(repr, names))}")
    return None


def _metadata(doc: Mapping[str, Any], mapped: frozenset[str], inner: Mapping[str, Any],
              lifted: set[str]) -> dict[str, Any]:
    """HADES `metadata` (less the keys lifted into columns) with the unmapped top-level
    fields; a top-level field wins a clash and the inner value stays as `metadata.KEY`."""
    metadata = {k: v for k, v in inner.items() if k not in lifted}
    for key, value in doc.items():
        if key in mapped:
            continue
        if key in metadata and metadata[key] != value:
            metadata[f"metadata.{key}"] = metadata.pop(key)
        metadata[key] = value
    return metadata


class HadesAdapter(Adapter):
    """Seed 004 HADES collections (observations, reflections, entities, relationships,
    sessions) from arangoexport files or an arangodump folder."""

    name = NAME
    sniff_order = 90
    summary = ("HADES collections as JSON/NDJSON files or an ArangoDB export "
               "folder (observations, reflections, entities, relationships, sessions)")
    options = frozenset({"limit"})
    params = tuple(PARAMS)

    def sniff(self, path: Path, first_line: str) -> bool:
        return looks_like_hades(path)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        settings = HadesSettings.from_params(options.params)
        files = collection_files(path)
        info = SourceInfo(format=NAME, path=str(path), schema_version=HADES_SCHEMA,
                          record_types=tuple(c for c in COLLECTIONS if c in files),
                          embedding=settings.embedding)
        source = ExportSource(info, lambda: _Run(files, settings, source,
                                                 options.limit).records())
        return source


class _Run:
    """One pass over the collections: memories first, then the edges between them."""

    def __init__(self, files: dict[str, list[Path]], settings: HadesSettings,
                 source: ExportSource, limit: int | None) -> None:
        self.files, self.settings, self.limit = files, settings, limit
        self.skip = source.skips.skip
        self.emitted: dict[str, str] = {}  # HADES _id -> memlens id
        self.skipped: set[str] = set()
        self.sessions: dict[str, tuple[dict[str, Any], str]] = {}
        self.session_keys: dict[str, str] = {}  # key or _id -> key
        self.used_sessions: set[str] = set()
        self.consolidations: list[tuple[str, str, list[str], str]] = []
        self.cut = False

    def documents(self, collection: str) -> Iterator[tuple[Path, str, dict[str, Any]]]:
        for path in self.files.get(collection, ()):
            for place, doc in iter_documents(path, self.skip):
                yield path, place, doc

    def records(self) -> Iterator[SourceRecord]:
        for path, place, doc in self.documents("sessions"):
            where = f"{path}: {place}"
            key = document_id(doc, "sessions", where).partition("/")[2]
            fields = {k: v for k, v in doc.items() if k not in ("_key", "_id", "_rev")}
            self.sessions[key] = (fields, f"{path.name} {place}")
            self.session_keys.update({key: key, f"sessions/{key}": key})
        read = 0
        for collection in MEMORY_COLLECTIONS:
            for path, place, doc in self.documents(collection):
                if self.limit is not None and read >= self.limit:
                    self.cut = True
                    break
                read += 1
                record = self.memory(collection, path, place, doc)
                if record is not None:
                    yield record
        yield from self.consolidation_edges()
        for path, place, doc in self.documents("relationships"):
            edge = self.relationship(path, place, doc)
            if edge is not None:
                yield edge
        for key, (_, where) in self.sessions.items():
            if key not in self.used_sessions:
                self.skip("session with no memories read", where)

    def memory(self, collection: str, path: Path, place: str, doc: dict[str, Any]
               ) -> SourceRecord | None:
        where, short = f"{path}: {place}", f"{path.name} {place}"
        hades_id = document_id(doc, collection, where)
        inner = field_of(doc, "metadata", dict, where, required=False) or {}
        entity = collection == "entities"
        if entity:
            name = field_of(doc, "name", str, where)
            about = field_of(doc, "description", str, where, required=False)
            content = f"{name}: {about}" if about and about.strip() else name
            confidence_key = "confidence" if "confidence" in inner else "certainty"
            memory_type = DEFAULT_TYPE[collection]
        else:
            content = field_of(doc, "content", str, where)
            confidence_key = "confidence"
            memory_type = field_of(doc, "memory_type", str, where, required=False) \
                or DEFAULT_TYPE[collection]
        if not content.strip():
            self.skipped.add(hades_id)
            self.skip("empty content", short)
            return None
        created = _time(doc, ("first_seen", "created_at", "last_updated") if entity
                        else ("created_at", "created_at_unix"), where)
        updated = _time(doc, ("last_updated",) if entity else ("updated_at",), where,
                        required=False)
        lifted = {"project", "source", confidence_key}
        metadata = _metadata(doc, ENTITY_FIELDS if entity else MEMORY_FIELDS, inner, lifted)
        metadata["_id"] = hades_id
        session_id = field_of(doc, "session_id", str, where, required=False)
        project = inner.get("project")
        key = self.session_keys.get(session_id or "")
        if key is not None:
            self.used_sessions.add(key)
            session = self.sessions[key][0]
            metadata["session"] = session
            if project is None and isinstance(session.get("metadata"), dict):
                project = session["metadata"].get("project")
        consolidates = _strings(doc, "consolidates", where)
        if consolidates:
            self.consolidations.append((hades_id, str(created), consolidates, short))
        vector = doc.get("embedding") if self.settings.embedding else None
        memory_id = stable_id(NAME, hades_id)
        self.emitted[hades_id] = memory_id
        return memory_record(
            short, id=memory_id, content=content, memory_type=memory_type,
            created_at=str(created), updated_at=updated,
            source=inner.get("source") or f"import:{NAME}", metadata=metadata,
            tags=_strings(doc, "tags", where), line=int(place.split()[-1]),
            status=field_of(doc, "status", str, where, required=False),
            session_id=session_id, project=project,
            confidence=inner.get(confidence_key), vector=vector)

    def endpoint(self, hades_id: str) -> tuple[str | None, str]:
        """The memory id of a document `_id`, or None and why there is none."""
        if hades_id in self.emitted:
            return self.emitted[hades_id], ""
        if hades_id.partition("/")[0] not in MEMORY_COLLECTIONS:
            return None, "endpoint is not an observation, reflection or entity"
        if hades_id in self.skipped:
            return None, "endpoint was skipped"
        if self.settings.dangling == "keep":
            return stable_id(NAME, hades_id), ""
        if self.cut:
            return None, "endpoint not in the input or past --limit"
        return None, "endpoint not in the input"

    def consolidation_edges(self) -> Iterator[SourceRecord]:
        for reflection, created, targets, short in self.consolidations:
            for target in dict.fromkeys(targets):
                where = f"{short} consolidates {target}"
                target_id, reason = self.endpoint(target)
                if target_id is None:
                    self.skip(reason, where)
                    continue
                yield edge_record(
                    where, id=stable_id(NAME, "consolidates", reflection, target),
                    source_id=self.emitted[reflection], target_id=target_id,
                    relation="derived_from", created_at=created,
                    metadata={"_from": reflection, "_to": target, "via": "consolidates"})

    def relationship(self, path: Path, place: str, doc: dict[str, Any]
                     ) -> SourceRecord | None:
        where, short = f"{path}: {place}", f"{path.name} {place}"
        hades_id = document_id(doc, "relationships", where)
        ends = [field_of(doc, end, str, where) for end in ("_from", "_to")]
        for end, value in zip(("_from", "_to"), ends, strict=True):
            if "/" not in value:
                raise ExportFormatError(f"{where}: {end!r} {value!r} is not a document _id "
                                        f"like 'entities/abc'")
        kind = field_of(doc, "relationship_type", str, where)
        strength = field_of(doc, "strength", (int, float), where, required=False)
        evidence = _strings(doc, "evidence", where)
        inner = field_of(doc, "metadata", dict, where, required=False) or {}
        decay = field_of(inner, "decay_rate", (int, float), f"{where}: metadata",
                         required=False)
        created = _time(doc, ("created_at", "last_reinforced"), where)
        reinforced = _time(doc, ("last_reinforced",), where, required=False)
        status = field_of(doc, "status", str, where, required=False)
        try:
            relation, swap = normalise_relation(kind)
        except InvalidRecordError:
            if self.settings.unknown_relations == "error":
                raise ExportFormatError(
                    f"{where}: unknown relationship_type {kind!r}; known: "
                    f"{', '.join(RELATIONS)} (or --param unknown_relations=relates_to)"
                ) from None
            if self.settings.unknown_relations == "skip":
                self.skip(f"unknown relationship_type {kind!r}", short)
                return None
            relation, swap = "relates_to", False
        ids = [self.endpoint(end) for end in ends]
        for target_id, reason in ids:
            if target_id is None:
                self.skip(reason, short)
                return None
        source_id, target_id = (ids[1][0], ids[0][0]) if swap else (ids[0][0], ids[1][0])
        if source_id == target_id:
            self.skip("edge links a memory to itself", short)
            return None
        metadata = _metadata(doc, EDGE_FIELDS, inner, {"decay_rate"})
        metadata.update({"_id": hades_id, "_from": ends[0], "_to": ends[1],
                         "relationship_type": kind})
        return edge_record(
            short, id=stable_id(NAME, hades_id), source_id=str(source_id),
            target_id=str(target_id), relation=relation, created_at=str(created),
            line=int(place.split()[-1]), strength=strength, evidence=evidence,
            last_reinforced=reinforced, decay_rate=decay, status=status, metadata=metadata)
