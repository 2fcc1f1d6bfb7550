"""An in-process index of where each memory sits in its session, kept per table version.

Session context (`retrieval/context.py`) needs, for a few dozen candidates, the memories of
the same session and type within an hour of each. Asked of LanceDB as one query (an OR of
`session_id = .. AND memory_type = .. AND created_at BETWEEN ..` per candidate), the scalar
indexes intersect row sets as large as the sessions and the types, which on a large store
whose sessions hold thousands each is most of a search's time. This index answers the same
question from sorted arrays: one scan of six columns per table version, then binary searches.

It holds every row of one tenant that has a session, whatever its status, and keeps to the
statuses a caller asks for; a caller with any other filter reads the rows it names under
that filter (`store.rows.read`), so a filter that drops a row drops it there, as the one
query did. Row ids are LanceDB's row addresses at the version the index was read at; a row
read back by one is checked against the id this index holds for it, so a write landing
between the index and the read (which can move rows) drops the moved rows instead of mixing
them up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memory_core.model.filters import sql_string

_COLUMNS = ["id", "session_id", "memory_type", "created_at", "status", "agent"]
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SessionRange:
    """A time range of one (session, type): the memories around one or more candidates."""

    session_id: str
    memory_type: str
    #: the bounds in microseconds since 1970, UTC (`start` and `end` as datetimes)
    lo: int
    hi: int

    @property
    def start(self) -> datetime:
        return _as_time(self.lo)

    @property
    def end(self) -> datetime:
        return _as_time(self.hi)


@dataclass(frozen=True)
class Around:
    """The ranges around some candidates, and the row ids of the memories in each."""

    ranges: tuple[SessionRange, ...]
    #: row id -> the memory there
    rows: dict[int, Member]


@dataclass(frozen=True)
class Member:
    """A memory in one of the ranges: which range (an index into `Around.ranges`), its id,
    when it was created (microseconds since 1970, UTC) and its agent (a code: equal codes
    are the same agent, -1 is none)."""

    range: int
    id: str
    created: int
    agent: int = -1


class SessionOrder:
    """(session, type, created_at) of one tenant's memories, sorted, for one table version."""

    def __init__(self, table: Any, tenant: str,
                 latest_version: Callable[[], int] | None = None, *, keep: bool = True
                 ) -> None:
        self._handle = table
        self._keep = keep  # False: read again on every call, nothing kept between two
        self._tenant = tenant
        #: the table's latest version (`store.accel.latest.version`: no LanceDB hop)
        self._latest = latest_version or (lambda: int(table.version))
        self._version: int | None = None
        self._arrays: dict[str, Any] = {}
        self._lock = threading.Lock()  # the pages share a store between sessions' threads

    def _current(self) -> dict[str, Any]:
        with self._lock:
            version = self._latest()
            if version != self._version or not self._keep:
                self._arrays = self._read()
                self._version = version
            return self._arrays

    def _read(self) -> dict[str, Any]:
        where = f"tenant = {sql_string(self._tenant)} AND session_id IS NOT NULL " \
                f"AND session_id != ''"
        table = (self._handle.search().where(where).select(_COLUMNS).with_row_id(True)
                 .limit(None).to_arrow())
        sessions = pc.dictionary_encode(table["session_id"]).combine_chunks()
        kinds = pc.dictionary_encode(table["memory_type"]).combine_chunks()
        n_kinds = max(1, len(kinds.dictionary))
        group = (np.asarray(sessions.indices, dtype=np.int64) * n_kinds
                 + np.asarray(kinds.indices, dtype=np.int64))
        created = np.asarray(pc.cast(table["created_at"], pa.int64()).to_numpy(
            zero_copy_only=False), dtype=np.int64)
        row_ids = np.asarray(table["_rowid"].to_numpy(zero_copy_only=False), dtype=np.uint64)
        statuses = pc.dictionary_encode(table["status"]).combine_chunks()
        agents = pc.dictionary_encode(table["agent"]).combine_chunks()
        agent_codes = np.asarray(pc.fill_null(agents.indices, -1), dtype=np.int32)
        order = np.lexsort((created, group))
        # a scan returns rows in storage order, so row ids come sorted: no sort to undo
        by_row = (np.arange(len(row_ids)) if np.all(row_ids[1:] > row_ids[:-1])
                  else np.argsort(row_ids, kind="stable"))
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        times = np.unique(created)  # sorted
        stride = len(times) + 1
        return {
            # (group, created) of each sorted position as one integer that orders as the
            # pair does: group * stride + the time's rank among all the times (so a
            # position's time is times[key % stride])
            "key": group[order] * stride + np.searchsorted(times, created[order]),
            "times": times, "stride": stride,
            "row_id": row_ids[order],
            "status": np.asarray(statuses.indices, dtype=np.int32)[order],
            "statuses": statuses.dictionary.to_pylist(),
            "agent": agent_codes[order],
            # the ids stay in scan order: `order` maps a sorted position to its scan index
            "order": order, "id": table["id"].combine_chunks(),
            # as Python lists: a range names its session and type by index (an Arrow scalar
            # costs microseconds each, forty ranges a search)
            "sessions": sessions.dictionary.to_pylist(), "kinds": kinds.dictionary.to_pylist(),
            "n_kinds": n_kinds,
            # row id -> position in the sorted arrays
            "row_sorted": row_ids[by_row], "row_position": position[by_row],
        }

    @property
    def version(self) -> int | None:
        """The table version the arrays were last read at (None before the first read)."""
        return self._version

    def around(self, seeds: Mapping[int, str], span: timedelta,
               statuses: Collection[str] | None = None) -> Around:
        """The (session, type) time ranges `span` each side of the `seeds` (row id -> memory
        id; overlaps merged), and every memory in them (of `statuses` only, when given). A
        seed this index does not hold at that row id (no session, or the row moved since)
        has no range."""
        a = self._current()
        if not len(a["row_sorted"]) or not seeds:
            return Around((), {})
        wanted = np.asarray(sorted(seeds), dtype=np.uint64)
        at = np.searchsorted(a["row_sorted"], wanted)
        inside = at < len(a["row_sorted"])
        at, wanted = at[inside], wanted[inside]
        found = a["row_sorted"][at] == wanted
        positions = a["row_position"][at[found]]
        expected = [seeds[int(r)] for r in wanted[found]]
        held = a["id"].take(pa.array(a["order"][positions], type=pa.int64())).to_pylist()
        positions = [p for p, want, have in zip(positions, expected, held, strict=True)
                     if want == have]
        width = span // timedelta(microseconds=1)
        admitted = None if statuses is None else \
            [i for i, s in enumerate(a["statuses"]) if s in set(statuses)]
        if not positions:
            return Around((), {})
        spans = _spans(a, np.sort(np.asarray(positions, np.int64)), width)
        ranges = tuple(SessionRange(
            a["sessions"][group // a["n_kinds"]], a["kinds"][group % a["n_kinds"]], lo, hi)
            for group, lo, hi in zip(spans.group.tolist(), spans.lo.tolist(),
                                     spans.hi.tolist(), strict=True))
        counts = spans.last - spans.first
        owner = np.repeat(np.arange(len(counts)), counts)
        # each range's positions first..last-1, laid end to end
        members = np.arange(int(counts.sum())) + np.repeat(
            spans.first - (np.cumsum(counts) - counts), counts)
        if admitted is not None:
            keep = np.isin(a["status"][members], admitted)
            members, owner = members[keep], owner[keep]
        ids = a["id"].take(pa.array(a["order"][members], type=pa.int64())).to_pylist()
        rows = {row_id: Member(index, memory_id, when, agent)
                for row_id, index, memory_id, when, agent in zip(
                    a["row_id"][members].tolist(), owner.tolist(), ids,
                    _created(a, members).tolist(), a["agent"][members].tolist(),
                    strict=True)}
        return Around(ranges, rows)

    def invalidate(self) -> None:
        """Forget everything; the next question reads the table again."""
        with self._lock:
            self._version = None
            self._arrays = {}


@dataclass(frozen=True)
class _Spans:
    """Merged time ranges, one per row: the group (session x type), the bounds, and the
    first and past-the-last positions of the sorted arrays inside them."""

    group: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    first: np.ndarray
    last: np.ndarray


def _created(a: Mapping[str, Any], positions: np.ndarray) -> np.ndarray:
    """created_at (microseconds since 1970) at sorted `positions`, from their keys."""
    return a["times"][a["key"][positions] % a["stride"]]


def _spans(a: Mapping[str, Any], seeds: np.ndarray, width: int) -> _Spans:
    """The ranges `width` each side of the seeds (sorted positions into the session order's
    arrays `a`, sorted by (group, created)), overlapping ones of a group merged.

    Sorted seeds come in (group, time) order, so within a group both the starts and the ends
    of their spans ascend: a seed starts a new range when its group differs from the seed
    before it or its span starts after that one's ends. A range's first and past-the-last
    positions are two binary searches over the integer keys for all ranges at once: its
    bounds become the ranks of the first time at or after its start and of the last time at
    or before its end (each range holds its seeds' own times, so both ranks exist).
    """
    key, stride = a["key"], a["stride"]
    groups, times = key[seeds] // stride, _created(a, seeds)
    lo, hi = times - width, times + width
    starts = np.ones(len(seeds), dtype=bool)
    starts[1:] = (groups[1:] != groups[:-1]) | (lo[1:] > hi[:-1])
    begin = np.flatnonzero(starts)
    end = np.append(begin[1:], len(seeds)) - 1
    kept, low, high = groups[begin], lo[begin], hi[end]
    first = np.searchsorted(key, kept * stride + np.searchsorted(a["times"], low, "left"),
                            "left").astype(np.int64)
    last = np.searchsorted(key, kept * stride + np.searchsorted(a["times"], high, "right") - 1,
                           "right").astype(np.int64)
    return _Spans(kept, low, high, first, last)


def _as_time(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)
