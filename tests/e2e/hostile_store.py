"""A store whose memories are XSS payloads in every field a page shows (content, tags,
project, agent, metadata, why; the tenant too), a 1 MB memory, RTL, zero-width and NUL
characters; an agent's recall, citation and correction whose agent, session, query and
note are payloads; two alike observations of payloads (a consolidation candidate); and in its
exports folder, an export whose JSON escapes lone surrogates.

Embedded with the real model: the app opens stores with it and refuses another model's."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from memory_core import (
    Edge,
    Memory,
    MemoryStore,
    Settings,
    cite,
    correct,
    default_exports_dir,
    export_store,
    recall,
)
from tests.payloads import (
    HOSTILE,
    IMG_ONERROR,
    JS_LINK,
    NUL,
    RTL,
    SCRIPT,
    TEXTAREA,
    XSS,
    ZERO_WIDTH,
)

TENANT = f"t {IMG_ONERROR}"
#: What every hostile memory's content starts with: a query for it finds them all.
TOPIC = "caching decision"
BIG_CHARS = 1_000_000
#: An export taken before the XSS memory was edited.
BEFORE_EXPORT = "before.ndjson"
#: The export with lone surrogates, newest in the folder: Export Diff's default side A.
SURROGATE_EXPORT = "surrogates.ndjson"
LONE_SURROGATE = "\\ud800"  # as JSON text: a lone high surrogate, invalid in UTF-8


@dataclass(frozen=True)
class HostileStore:
    """The store's folder and tenant, and the ids of the memories that carry payloads."""

    store: Path
    tenant: str
    xss_id: str
    big_id: str


def _memories() -> list[Memory]:
    big = (f"{TOPIC} 1 MB {SCRIPT} " * (BIG_CHARS // 40))[:BIG_CHARS]
    hostile = [
        Memory.new(f"{TOPIC} {XSS}", "decision", project=f"proj {SCRIPT}", agent=IMG_ONERROR,
                   tags=[SCRIPT, JS_LINK, "plain"], why=TEXTAREA, tenant=TENANT,
                   metadata={SCRIPT: IMG_ONERROR, "link": JS_LINK}),
        Memory.new(f"{TOPIC} observed {RTL} {ZERO_WIDTH}", "observation", project=RTL,
                   agent=ZERO_WIDTH, tags=[ZERO_WIDTH, RTL], tenant=TENANT),
        Memory.new(f"{TOPIC} with a {NUL} inside", "fact", project="atlas", agent=NUL,
                   tags=["nul"], tenant=TENANT, metadata={"nul": NUL}),
        Memory.new(f"{TOPIC} in markdown {HOSTILE}", "lesson", project=HOSTILE, agent=HOSTILE,
                   tags=[HOSTILE], why=HOSTILE, tenant=TENANT),
        Memory.new(big, "observation", project="atlas", agent="bulk", tenant=TENANT),
    ]
    plain = [Memory.new(f"{TOPIC} plain note {i} about session caching and redis", "lesson",
                        project="atlas", agent="kai", tenant=TENANT) for i in range(10)]
    # two alike observations: a consolidation candidate whose members and draft are payloads
    alike = [Memory.new(f"Redis evicted session keys under peak load {XSS} ({when})",
                        "observation", project="atlas", agent=IMG_ONERROR, tenant=TENANT)
             for when in ("monday", "tuesday")]
    return hostile + plain + alike


def _surrogate_export(live: Path, out: Path) -> None:
    """`live` (an export) with a lone surrogate escaped into every memory's content,
    project and tags, its manifest's digest recomputed: a file anyone could hand over."""
    head, *body = live.read_bytes().splitlines(keepends=True)
    lines = []
    for raw in body:
        record = json.loads(raw)
        if record.get("kind") == "memory":
            record["content"] = f"{record['content'][:200]} MARK"
            record["project"] = f"{record['project']} MARK"
            record["tags"] = [*record["tags"], "MARK"]
        text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        lines.append(text.replace("MARK", f"lone {LONE_SURROGATE} surrogate").encode() + b"\n")
    manifest = json.loads(head)
    manifest["body_sha256"] = hashlib.sha256(b"".join(lines)).hexdigest()
    out.write_bytes(json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
                    + b"\n" + b"".join(lines))


def build(folder: Path, model_cache: Path) -> HostileStore:
    """The hostile store under `folder` (its exports beside it)."""
    settings = Settings.from_env(env={}, store_uri=str(folder / "store"), tenant=TENANT,
                                 model_cache=model_cache)
    store = MemoryStore.open(settings=settings)
    memories = _memories()
    store.add(memories)
    xss, rtl, nul, markdown, big = memories[:5]
    store.edges.add([Edge.new(rtl.id, xss.id, "caused"), Edge.new(nul.id, xss.id, "supports"),
                     Edge.new(markdown.id, xss.id, "derived_from"),
                     Edge.new(big.id, rtl.id, "caused"),
                     *(Edge.new(m.id, xss.id, "supports") for m in memories[5:8])])
    # an agent named by a payload recalls with a payload query in a payload session, cites
    # and corrects (before the export, so the diff's one change stays the edit below): the
    # Agents page shows these, and the memories they name
    session = f"s {SCRIPT}"
    recall(store, f"{TOPIC} {XSS}", session_id=session, actor=IMG_ONERROR)
    cite(store, [xss.id], session_id=session, query=f"cited {XSS}", actor=IMG_ONERROR)
    correct(store, markdown.id, "modified", note=f"note {XSS}", actor=IMG_ONERROR,
            session_id=session)
    exports = default_exports_dir(store.uri)
    export_store(store, exports / BEFORE_EXPORT)
    # after the export, the XSS memory changes: the diff's side-by-side view shows both
    store.upsert([xss.with_changes(content=f"{TOPIC} edited {XSS}", why=f"edited {TEXTAREA}")])
    _surrogate_export(exports / BEFORE_EXPORT, exports / SURROGATE_EXPORT)
    return HostileStore(folder / "store", TENANT, xss.id, big.id)
