"""One store holding two tenants with the same memory ids and texts, for the isolation tests.

Each tenant gets the same memories (ids m-1..m-8, same contents) but its own project, agent,
session, tags, a memory of its own under a shared id and one under its own id, all holding
its marker word; then edges (caused,
contradicts, supersedes), curation (an edit, an archive, a supersession), events (a recall,
a citation, a correction) and their audit rows. memlens refuses to reuse an id across tenants,
so tenant B is written in a scratch store the same way and its rows appended to the shared
tables as they are: what agents writing LanceDB directly (or an older memlens) leave behind,
and the case where any read or write keyed by id alone leaks.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory_core.causal import link
from memory_core.curation import archive, cite, correct, edit, supersede
from memory_core.model.records import Memory
from memory_core.model.schema import TABLE_OF_KIND
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

A, B = "acme", "globex"
TENANTS = (A, B)
#: A word only that tenant's records hold (project, agent, tags, session, one memory).
MARK = {A: "acmezq", B: "globexzq"}
#: The memory each tenant holds alone (same id, different text).
OWN_ID = "m-own"
START = datetime(2026, 3, 1, tzinfo=UTC)
NOW = datetime(2026, 6, 1, tzinfo=UTC)

#: (id, type, content): the same in both tenants.
SHARED = (
    ("m-1", "decision", "postgres connection pool holds twenty sockets per worker"),
    ("m-2", "lesson", "pool exhaustion caused the checkout outage in march"),
    ("m-3", "fact", "the cache ttl for sessions is ten minutes"),
    ("m-4", "fact", "the cache ttl for sessions is one hour"),
    ("m-5", "decision", "deploys run on tuesdays after the standup"),
    ("m-6", "decision", "deploys run on wednesdays after the standup"),
    ("m-7", "observation", "retries with jitter stopped the thundering herd"),
    ("m-8", "observation", "the legacy queue worker is noisy in the logs"),
)
IDS = tuple(i for i, _, _ in SHARED) + (OWN_ID,)


def solo_id(tenant: str) -> str:
    """The id only this tenant has (so a leak shows in lists of ids too)."""
    return f"{MARK[tenant]}-solo"


def other(tenant: str) -> str:
    """The tenant that is not `tenant`."""
    return B if tenant == A else A


def memories(tenant: str) -> list[Memory]:
    """The tenant's memories: the shared ones with its own attribution, and its own one."""
    mark = MARK[tenant]
    rows = [*SHARED, (OWN_ID, "fact", f"the {mark} launch code sits in the blue vault"),
            (solo_id(tenant), "lesson", f"{mark} keeps the launch code rotation weekly")]
    return [Memory.new(content, kind, id=memory_id, project=f"{mark}-proj",
                       agent=f"{mark}-bot", session_id=f"{mark}-session",
                       tags=[mark, "shared"], metadata={"owner": mark},
                       created_at=START + timedelta(days=n))
            for n, (memory_id, kind, content) in enumerate(rows)]


def populate(store: MemoryStore) -> None:
    """Write one tenant's memories, edges, curation, events and audit rows into `store`."""
    mark = MARK[store.tenant]
    store.add(memories(store.tenant))
    link(store, "m-2", "caused", "m-1", evidence=[f"{mark} incident"])
    link(store, "m-3", "contradicts", "m-4")
    link(store, "m-7", "relates_to", OWN_ID)
    link(store, solo_id(store.tenant), "derived_from", OWN_ID)
    supersede(store, "m-5", by="m-6", reason=f"{mark} moved deploys")
    edit(store, "m-7", tags=[mark, "shared", "edited"], reason=f"{mark} tagging")
    archive(store, ["m-8"], reason=f"{mark} noise")
    recall(store, "postgres pool sockets", session_id=f"{mark}-session", now=NOW)
    cite(store, ["m-1", OWN_ID], session_id=f"{mark}-session", query=f"{mark} question",
         at=NOW)
    correct(store, "m-3", "rejected", note=f"{mark} says the ttl changed")


def build(root: Path, embedder: FakeEmbedder) -> str:
    """The two-tenant store under `root`; returns its URI."""
    uri, scratch = str(root / "store"), str(root / "scratch-b")
    populate(MemoryStore.open(uri, tenant=A, embedder=embedder))
    lone = MemoryStore.open(scratch, tenant=B, embedder=embedder)
    populate(lone)
    shared = MemoryStore.open(uri, tenant=B, embedder=embedder)
    for kind, name in TABLE_OF_KIND.items():
        source = getattr(lone.tables, name)
        if source is not None:
            shared.bulk.append(kind, source.to_arrow())
    shutil.rmtree(scratch)
    return uri


@dataclass(frozen=True)
class TwoTenants:
    """The built store (read it, or `copy` it before writing)."""

    uri: str
    embedder: FakeEmbedder

    def open(self, tenant: str, uri: str | None = None) -> MemoryStore:
        return MemoryStore.open(uri or self.uri, tenant=tenant, embedder=self.embedder)

    def copy(self, dest: Path) -> str:
        """A private copy of the store for a test that writes; returns its URI."""
        shutil.copytree(self.uri, dest)
        return str(dest)


def leaks(text: str, tenant: str) -> list[str]:
    """What of the other tenant's markers `text` holds (empty: nothing leaked)."""
    mark = MARK[other(tenant)]
    return [mark] if mark in text else []
