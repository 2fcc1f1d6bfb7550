"""`verify_deleted`: check every place a deleted memory could come back from.

The live table, vector search, BM25 search (a query of the memory's own rarest words), graph
edges and graph expansion, recall, recall sessions, events, map caches, a fresh export, and,
after a purge, every table version on disk, the audit's copies and the store's files. Each
check says pass, fail, skip (cannot be checked here) or info (kept on purpose: a plain delete
keeps the version history so that undo works; text another tenant holds too stays on disk with
it). The searches run for a seeded sample of at most `SEARCHED` of the memories (each costs a
few searches); every other check takes all of them, each reading its data once.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import cast

from memory_core.curation.byte_search import KEY, ByteNeedles
from memory_core.curation.checks import FAIL, INFO, PASS, SKIP, Check, found
from memory_core.curation.verify_disk import files_check, maps_check
from memory_core.model.errors import CurationError, EmbedderUnavailableError
from memory_core.model.filters import Filter, sql_in, sql_string
from memory_core.model.records import Memory
from memory_core.model.schema import AUDIT, EDGES, EVENTS, MEMORIES, STATUSES
from memory_core.model.untrusted import shown
from memory_core.retrieval.config import DEFAULT_PRESET, RECALL_PRESET, preset
from memory_core.retrieval.recall import session_db_path
from memory_core.retrieval.search import search
from memory_core.retrieval.session_dedup import SessionDedup
from memory_core.store import MemoryStore

_WORD = re.compile(r"\w{3,}")
_ANY_STATUS = Filter(status=STATUSES)
#: The search checks (vector, BM25, graph expansion, recall) run a few searches per memory:
#: they take a seeded sample of this many of the deleted memories. The exact checks (live
#: table, edges, sessions, events, maps, export, versions, files) take every one of them.
SEARCHED = 100


@dataclass(frozen=True)
class Verification:
    """The checks of `verify_deleted`; `passed` when none failed."""

    memory_ids: tuple[str, ...]
    purged: bool
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        return all(c.status != FAIL for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status == FAIL]

    def to_dict(self) -> dict[str, object]:
        return {"memory_ids": list(self.memory_ids), "purged": self.purged,
                "passed": self.passed, "checks": [asdict(c) for c in self.checks]}


class _Verifier:
    def __init__(self, store: MemoryStore, ids: list[str], known: dict[str, Memory]) -> None:
        self.store, self.ids, self.known = store, ids, known
        self.hashes = sorted({m.content_hash for m in known.values()})
        self.contents = [m.content for m in known.values()]
        self.tenant = f"tenant = {sql_string(store.tenant)}"
        ordered = sorted(known.values(), key=lambda m: m.id)
        #: the memories the search checks search for (all, or a sample: `SEARCHED`)
        self.searched = (random.Random(0).sample(ordered, SEARCHED)
                         if len(ordered) > SEARCHED else ordered)
        self.sample = (f" (searched for {len(self.searched)} of the {len(ordered)}, a seeded "
                       f"sample)" if len(ordered) > SEARCHED else "")

    def _is_ours(self, memory_ids: Sequence[str]) -> list[str]:
        """Of `memory_ids` (results of a search), those that are the deleted memories (by id
        or by content)."""
        wanted = set(self.ids)
        out = [i for i in memory_ids if i in wanted]
        if self.hashes:
            rest = [i for i in memory_ids if i not in wanted]
            found = self.store.get_many(rest)
            out += [i for i in rest if i in found and found[i].content_hash in self.hashes]
        return out

    def live(self) -> Check:
        # another tenant's row may carry the same id (written outside memlens): not this one
        by_id = self.store.bulk.count("memory", f"{self.tenant} AND {sql_in('id', self.ids)}")
        by_hash = (self.store.bulk.count("memory", f"{self.tenant} AND "
                                         f"{sql_in('content_hash', self.hashes)}")
                   if self.hashes else 0)
        if by_id or by_hash:
            return Check("live table", FAIL, f"{by_id} row(s) with the id, {by_hash} with the "
                                             f"same content")
        return Check("live table", PASS, "no row has the id" +
                     (" or the content" if self.hashes else ""))

    def _vectors(self) -> list[list[float]]:
        """The searched memories' vectors: the stored one when it is of the store's model and
        dimension, else their content embedded now."""
        dimension = self.store.embedder.dimension
        kept = {m.id: list(map(float, m.vector)) for m in self.searched
                if m.vector is not None and len(m.vector) == dimension}
        missing = [m for m in self.searched if m.id not in kept]
        if missing:
            vectors = self.store.embedder.embed([m.content for m in missing])
            kept.update({m.id: list(map(float, v)) for m, v in zip(missing, vectors,
                                                                    strict=True)})
        return [kept[m.id] for m in self.searched]

    def vector(self) -> Check:
        if not self.contents:
            return Check("vector search", SKIP, "the content is not known any more")
        try:
            vectors = self._vectors()
        except EmbedderUnavailableError as exc:
            return Check("vector search", SKIP, f"no embedder: {exc}")
        where = self.store.predicate(_ANY_STATUS)
        hits = [f.id for v in vectors for f in self.store.queries.nearest(v, where, 10)]
        ours = self._is_ours(hits)
        if ours:
            return Check("vector search", FAIL, found(ours, "returned"))
        return Check("vector search", PASS, f"its own vector finds other memories "
                                            f"only{self.sample}")

    @staticmethod
    def _words(content: str) -> list[str]:
        """The first 40 distinct words (3+ word characters) of `content`, lower-cased."""
        return list(dict.fromkeys(w.lower() for w in _WORD.findall(content)))[:40]

    @cached_property
    def _frequencies(self) -> dict[str, int]:
        """How many of the tenant's memories hold each word of the searched memories (as a
        word), counted in one pass over the tenant's contents."""
        import polars as pl

        wanted = sorted({w for m in self.searched for w in self._words(m.content)})
        column = self.store.scan(["content"], _ANY_STATUS)["content"]
        texts = cast(pl.Series, pl.from_arrow(column)).str.to_lowercase()  # a column
        words = (pl.DataFrame({"word": texts.str.extract_all(_WORD.pattern)})
                 .with_row_index("row").explode("word")
                 .filter(pl.col("word").is_in(wanted)).unique()
                 .group_by("word").len())
        counts = dict(zip(words["word"].to_list(), words["len"].to_list(), strict=True))
        return {w: int(counts.get(w, 0)) for w in wanted}

    def rarest_words(self, content: str) -> str:
        """The 6 words of `content` the fewest of the tenant's memories hold (longest first
        among equals): a BM25 query that finds it, were it still there."""
        words = self._words(content)
        counts = {w: self._frequencies.get(w, 0) for w in words}
        return " ".join(sorted(counts, key=lambda w: (counts[w], -len(w)))[:6])

    def bm25(self) -> Check:
        if not self.contents:
            return Check("BM25 search", SKIP, "the content is not known any more")
        if not self.store.fts.ensure():
            return Check("BM25 search", SKIP, "the store has no full-text index (read-only)")
        where = self.store.predicate(_ANY_STATUS)
        queries = [q for q in (self.rarest_words(m.content) for m in self.searched) if q]
        hits = [f.id for q in queries for f in self.store.queries.full_text(q, where, 10)]
        ours = self._is_ours(hits)
        if ours:
            return Check("BM25 search", FAIL, found(ours, "returned"))
        # the words themselves are not quoted: after a purge they are deleted content
        words = len(queries[0].split()) if queries else 0
        return Check("BM25 search", PASS, f"a query of its {words} rarest words finds other "
                                          f"memories only{self.sample}")

    def _searches(self, name: str, preset_name: str) -> Check:
        if not self.contents:
            return Check(name, SKIP, "the content is not known any more")
        hits = []
        for memory in self.searched:
            results = search(self.store, memory.content, _ANY_STATUS, preset(preset_name),
                             limit=10)
            hits += [h.memory.id for h in results.hits]
        ours = self._is_ours(hits)
        if ours:
            return Check(name, FAIL, found(ours, "returned"))
        return Check(name, PASS, f"the {preset_name} ranking of its own content returns "
                                 f"other memories only{self.sample}")

    def graph(self) -> list[Check]:
        edges = self.store.changes.edges_touching(self.ids)
        out = [Check("graph edges", FAIL, found([e.id for e in edges], "edges still link it"))
               if edges else Check("graph edges", PASS, "no edge has it as an end")]
        out.append(self._searches("graph expansion", DEFAULT_PRESET))
        return out

    def sessions(self) -> Check:
        path = session_db_path(self.store)
        if not path.exists():
            return Check("recall sessions", PASS, "no recall session is recorded for the store")
        held = SessionDedup(path).holding(self.ids, self.hashes)
        if held:
            entries = "entry" if held == 1 else "entries"
            return Check("recall sessions", FAIL, f"{held} session {entries} still name it")
        return Check("recall sessions", PASS, "no session entry names it")

    def events(self) -> Check:
        held = self.store.events.scan(memory_ids=self.ids, columns=["id"]).num_rows
        if held:
            return Check("events", FAIL, f"{held} recall/cite/correct event(s) still name it")
        return Check("events", PASS, "no recall, cite or correct event names it")

    def export(self) -> Check:
        from memory_core.exchange.export import export_store

        # the export is plaintext: in the store's scratch folder (swept if this process
        # dies), never the system temp folder
        with self.store.guard.scratch("verify") as folder:
            path = folder / "export.ndjson"
            export_store(self.store, path, filter=_ANY_STATUS)
            text = path.read_text(encoding="utf-8")
        wanted = set(self.ids)
        records = [json.loads(line) for line in text.splitlines()[1:]]
        # a record of it, or an edge to it (another memory naming its id, e.g. a merge's
        # `merged_from`, is a reference, not the memory)
        leaks = sorted({str(r.get(k)) for r in records for k in ("id", "source_id", "target_id")
                        if r.get(k) in wanted})
        # every content and hash looked for in one pass over the export (`ByteNeedles`)
        needles = {json.dumps(c)[1:-1].encode(): c[:40] for c in self.contents}
        needles |= {json.dumps(h).encode(): f"content hash {h[:12]}" for h in self.hashes}
        data = text.encode("utf-8")
        long = [n for n in needles if len(n) >= KEY]
        held = ByteNeedles(long).found(data) if long else set()
        leaks += [what for n, what in needles.items()
                  if (n in held if len(n) >= KEY else n in data)]
        if leaks:
            return Check("fresh export", FAIL, found(leaks, "the export holds"))
        return Check("fresh export", PASS, "a new export of the tenant holds neither its id, "
                                           "its content nor its content hash")

    def versions(self, purged: bool) -> list[Check]:
        leaks: list[str] = []
        mine = self.tenant
        queries = {
            MEMORIES: (f"{mine} AND ({sql_in('id', self.ids)}" + (
                f" OR {sql_in('content_hash', self.hashes)}" if self.hashes else "") + ")",
                ["id"]),
            EDGES: (f"{mine} AND ({sql_in('source_id', self.ids)} OR "
                    f"{sql_in('target_id', self.ids)})", ["id"]),
            AUDIT: (f"{mine} AND array_has_any(target_ids, "
                    f"[{', '.join(sql_string(i) for i in self.ids)}])", ["before", "after"]),
        }
        if self.store.events.present:
            queries[EVENTS] = (f"{mine} AND {sql_in('memory_id', self.ids)}", ["id"])
        total = 0
        for name, (where, columns) in queries.items():
            for version in self.store.changes.versions_on_disk(name):
                total += 1
                rows = self.store.changes.rows_in_version(name, version, where, columns)
                if name == AUDIT:
                    rows = [r for r in rows if self._holds_content(r)]
                if rows:
                    leaks.append(f"{name} v{version}")
        if not leaks:
            return [Check("table versions on disk", PASS,
                          f"none of {total} table versions holds it")]
        if purged:
            return [Check("table versions on disk", FAIL, found(leaks, "still held by"))]
        return [Check("table versions on disk", INFO,
                      f"{len(leaks)} older version(s) still hold it: the undo history; "
                      f"`delete --purge` removes them")]

    def _holds_content(self, row: dict[str, object]) -> bool:
        text = f"{row.get('before') or ''}{row.get('after') or ''}"
        return any(json.dumps(c)[1:-1] in text for c in self.contents)


def _purged_ids(store: MemoryStore, ids: Sequence[str]) -> dict[str, str]:
    """id -> content hash of those of `ids` a purge removed (from its tombstones)."""
    out: dict[str, str] = {}
    for entry in store.audit.query(target_ids=ids, action="purge", limit=None):
        before = entry.before if isinstance(entry.before, dict) else {}
        for record in before.get("records") or []:
            if isinstance(record, dict) and record.get("id") in ids:
                out[record["id"]] = str(record.get("content_hash"))
    return out


def _last_copies(store: MemoryStore, ids: Sequence[str]) -> dict[str, Memory]:
    """The newest copy of each id still in an older memories version (a plain delete)."""
    found: dict[str, Memory] = {}
    for version in reversed(store.changes.versions_on_disk(MEMORIES)):
        missing = [i for i in ids if i not in found]
        if not missing:
            break
        found.update(store.changes.records_at("memory", version, missing))
    return found


def verify_deleted(store: MemoryStore, memory_ids: str | Sequence[str], *,
                   known: Sequence[Memory] = ()) -> Verification:
    """Check that the deleted memories `memory_ids` are absent from every place they could
    resurface from (see the module doc). `known` gives their records when the caller has
    them (a purge does); otherwise the content comes from the version history, if it is
    still there. An id that is still live fails the first check."""
    ids = [memory_ids] if isinstance(memory_ids, str) else list(dict.fromkeys(memory_ids))
    if not ids:
        raise CurationError("give at least one memory id to verify")
    records = {m.id: m for m in known if m.id in ids}
    live = store.get_many(ids)
    records.update({i: m for i, m in live.items() if i not in records})
    missing = [i for i in ids if i not in records]
    if missing:
        records.update(_last_copies(store, missing))
    purged = _purged_ids(store, ids)
    unknown = [i for i in ids if i not in records and i not in purged]
    if unknown and not store.audit.query(target_ids=unknown, limit=1):
        raise CurationError(f"memory {shown(unknown[0])} was never in tenant "
                            f"{shown(store.tenant)} (no audit row names it); check the id")
    check = _Verifier(store, ids, records)
    if purged and not check.hashes:
        check.hashes = sorted(set(purged.values()))
    is_purged = bool(purged)
    checks = [check.live(), check.vector(), check.bm25(), *check.graph(),
              check._searches("recall", RECALL_PRESET), check.sessions(), check.events(),
              maps_check(store, ids, records, is_purged), check.export(),
              *check.versions(is_purged)]
    if is_purged:
        checks.append(files_check(store, records))
    return Verification(tuple(ids), is_purged, tuple(checks))
