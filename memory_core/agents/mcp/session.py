"""Who is calling: the actor and the MCP session of a tool call, and running it on the store.

The store and tenant are fixed when the server starts. The actor of every write and event is
`--agent` when given, else the client's name from the MCP initialize handshake. The session
that keys recall's de-duplication (ADR-003 in docs/design/seeds.md) is the streamable HTTP session
(`Mcp-Session-Id`), or on stdio the server process itself (one client per process).

Tool calls run in worker threads; one lock runs them one at a time on the store, which
also makes setting the store's actor for the call safe (its audit rows name it).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from memory_core.model.errors import MemlensError
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore

log = logging.getLogger(__name__)

#: The actor when neither `--agent` nor the client's handshake names one.
UNNAMED_CLIENT = "mcp-client"
#: Longest actor name kept from a client's handshake.
ACTOR_CHARS = 64
SESSION_HEADER = "mcp-session-id"


@dataclass(frozen=True)
class Caller:
    """The actor and the MCP session (None: a stateless HTTP request, no de-duplication);
    `client` is the client's `name/version` from the handshake (None: it gave none), what
    the server knows of the model writing a reflection."""

    actor: str
    session_id: str | None
    client: str | None = None


def clean_name(name: object) -> str | None:
    """A client-supplied name usable as an actor: printable, trimmed, at most
    `ACTOR_CHARS`; None when nothing usable is left."""
    if not isinstance(name, str):
        return None
    kept = "".join(c for c in name if c.isprintable()).strip()[:ACTOR_CHARS]
    return kept or None


class ToolState:
    """The store a server serves, the fixed agent, and the lock tool calls run under."""

    def __init__(self, store: MemoryStore, *, agent: str | None = None,
                 lock: threading.Lock | None = None) -> None:
        """`lock`: the one tool calls run under (`memory_core.agents.warm_up` may hold it
        while it warms the store)."""
        self.store = store
        self.agent = agent
        self.process_session = f"mcp-{uuid.uuid4().hex[:16]}"
        self._lock = lock or threading.Lock()

    def caller(self, ctx: Context[Any, Any]) -> Caller:
        """The actor and session of the call `ctx` belongs to."""
        params = ctx.session.client_params
        info = params.client_info if params else None
        actor = self.agent
        if actor is None:
            actor = clean_name(info.name) if info else None
        client = None
        if info is not None and clean_name(info.name):
            version = clean_name(info.version)
            client = clean_name(f"{info.name}/{version}" if version else info.name)
        headers = ctx.headers
        if headers is None:  # stdio: this process serves one client
            session: str | None = self.process_session
        else:
            raw = headers.get(SESSION_HEADER)
            session = f"mcp-{raw}" if raw else None
        return Caller(actor or UNNAMED_CLIENT, session, client)

    @contextmanager
    def reading(self) -> Iterator[MemoryStore]:
        """The store, one call at a time, for a read that has no caller (a resource)."""
        with self._lock:
            yield self.store

    @contextmanager
    def acting(self, caller: Caller) -> Iterator[MemoryStore]:
        """The store with `caller` as its actor, one call at a time; memlens' errors
        become tool errors (their text says what to do)."""
        with self._lock:
            before = self.store.actor
            self.store.actor = caller.actor
            try:
                yield self.store
            except MemlensError as exc:
                raise ToolError(str(exc)) from exc
            finally:
                self.store.actor = before


def refuse(message: str) -> ToolError:
    """A tool error for a bad argument (nothing was written)."""
    return ToolError(f"{message}; nothing was written")


def bad_value(name: str, value: object, fix: str) -> ToolError:
    """A tool error naming argument `name`, its value (shortened) and the fix."""
    return ToolError(f"{name} {shown(value)} is not valid: {fix}")
