"""The `longmemeval` import format: LongMemEval's question files (`longmemeval_s.json`,
`longmemeval_m.json`, `longmemeval_oracle.json`; Wu et al., ICLR 2025, "LongMemEval:
Benchmarking Chat Assistants on Long-Term Interactive Memory").

The file is a JSON array of questions `{question_id, question_type, question, answer,
question_date, haystack_session_ids, haystack_dates, haystack_sessions,
answer_session_ids}`; `haystack_sessions[i]` is the list of turns `{role, content,
has_answer?}` of session `haystack_session_ids[i]`, held on `haystack_dates[i]`
("2023/05/20 (Sat) 02:21"). Each question has its own haystack, and the same session ids
recur across questions (filler sessions come from a shared pool).

Mapping, `--param scope=question` (the default; faithful to the benchmark): one project per
question (project = question_id), so each query searches exactly its own haystack. Each turn
-> an `event` memory "role: content", id `stable_id("longmemeval", question_id, session_id,
turn)`, session_id = the haystack session id, agent = the role, source `transcript`,
created_at = the session's date + 1 s per turn before it (no zone in the file: UTC). The cost:
a session shared by k questions is stored (and embedded) k times; longmemeval_s holds about
50 sessions of ~10 turns per question, so its 500 questions give about 250,000 memories.
`--param scope=shared` stores each session once (id `stable_id("longmemeval", session_id,
turn)`, project "longmemeval", the date of the first question holding it) and scopes each
query with a `session_id` filter listing its haystack; a session whose turns differ between
questions keeps the first and is reported.

Queries: qid = question_id, query = question, tags [question_type], filter scoped to the
haystack. `--param relevance=turn`: turns flagged `has_answer` grade 2, the other turns of
the answer sessions grade 1 (only nDCG tells the two apart: recall, MRR and MAP count every
grade >= 1); `relevance=flagged`: only the flagged turns are relevant (grade 1), strict turn
level, and a question that flags none is skipped (reported); `relevance=session`: every turn
of the answer sessions grade 1; the default uses `turn` for a question that flags any turn and
`session` otherwise.
Abstention questions (ids ending in `_abs`) have no evidence and are skipped (reported).
`--param answers=include` adds `answer` and `question_date` keys (`memlens eval` does not read
them). `--limit N` reads the first N questions; `--project ID` only question ID.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memory_core.adapters.base import Adapter, field_of, memory_record, stable_id
from memory_core.adapters.benchmarks.common import (
    array_head,
    choice_param,
    iso_at,
    iter_json_array,
    query_line,
)
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
)
from memory_core.model.errors import ExportFormatError

NAME = "longmemeval"
SHARED_PROJECT = NAME
PARAMS = {"scope": "question|shared (default question)",
          "relevance": "auto|turn|flagged|session (default auto: turn when the question "
                       "flags has_answer turns, else session; flagged: only has_answer "
                       "turns are relevant)",
          "answers": "omit|include (default omit)"}
HAYSTACK = ("haystack_session_ids", "haystack_dates", "haystack_sessions")
TURN_FIELDS = ("role", "content", "has_answer")
_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]+\))?\s*(\d{1,2}):(\d{2})$")


def parse_date(text: str) -> datetime | None:
    """LongMemEval's "2023/05/20 (Sat) 02:21" as a naive datetime; None when it is not one.

    >>> parse_date("2023/05/20 (Sat) 02:21")
    datetime.datetime(2023, 5, 20, 2, 21)
    """
    match = _DATE.match(text.strip())
    if match is None:
        return None
    try:
        year, month, day, hour, minute = (int(part) for part in match.groups())
        return datetime(year, month, day, hour, minute)
    except ValueError:
        return None


@dataclass(frozen=True)
class _Turn:
    memory_id: str
    has_answer: bool


@dataclass(frozen=True)
class _Settings:
    shared: bool
    relevance: str
    answers: bool


class LongMemEvalAdapter(Adapter):
    """LongMemEval question files: haystack turns as memories, questions as a query set."""

    name = NAME
    sniff_order = 30
    summary = ("LongMemEval benchmark (longmemeval_s.json): haystack turns as memories, "
               "questions as queries")
    options = frozenset({"limit", "project"})
    params = tuple(PARAMS)
    #: every turn is its own event, even when its words repeat another's
    dedup_content = False

    def sniff(self, path: Path, first_line: str) -> bool:
        head = array_head(path)
        return head is not None and re.match(r"\[\s*\{", head) is not None \
            and '"question_id"' in head \
            and ('"haystack_sessions"' in head or '"haystack_session_ids"' in head)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        settings = _Settings(
            shared=choice_param(options, "scope", ("question", "shared"), "question") == "shared",
            relevance=choice_param(options, "relevance", ("auto", "turn", "flagged", "session"),
                                   "auto"),
            answers=choice_param(options, "answers", ("omit", "include"), "omit") == "include")
        info = SourceInfo(format=self.name, path=str(path), schema_version=1,
                          record_types=("turns",))
        source = ExportSource(info, lambda: self._records(path, source, options, settings))
        return source

    def _records(self, path: Path, source: ExportSource, options: ReadOptions,
                 settings: _Settings) -> Iterator[SourceRecord]:
        read = 0
        #: scope=shared: session id -> (digest of its turns, its turns)
        stored: dict[str, tuple[str, list[_Turn | None]]] = {}
        for number, item in iter_json_array(path, "LongMemEval questions"):
            if options.limit is not None and read >= options.limit:
                return
            if not isinstance(item, dict):
                raise ExportFormatError(f"{path}: item {number} is not a JSON object "
                                        f"(a LongMemEval question)")
            qid = field_of(item, "question_id", str, f"{path}: item {number}")
            if options.project is not None and qid != options.project:
                continue
            read += 1
            if qid.endswith("_abs"):
                source.skips.skip("abstention question (_abs): skipped", f"question {qid}")
                continue
            where = f"{path}: question {qid!r} (item {number})"
            yield from self._question(item, qid, where, source, settings, stored)
        if not read:
            wanted = f"no question {options.project!r}" if options.project else "no questions"
            raise ExportFormatError(f"{path} holds {wanted}")

    def _question(self, item: Mapping[str, Any], qid: str, where: str, source: ExportSource,
                  settings: _Settings, stored: dict[str, tuple[str, list[_Turn | None]]]
                  ) -> Iterator[SourceRecord]:
        question_type = field_of(item, "question_type", str, where)
        question = field_of(item, "question", str, where)
        field_of(item, "answer", (str, int, float), where, required=False)
        field_of(item, "question_date", str, where, required=False)
        session_ids, dates, sessions = (field_of(item, name, list, where) for name in HAYSTACK)
        if not len(session_ids) == len(dates) == len(sessions):
            raise ExportFormatError(
                f"{where}: haystack_session_ids, haystack_dates and haystack_sessions must be "
                f"as long as each other, got {len(session_ids)}, {len(dates)}, {len(sessions)}")
        answer_ids = field_of(item, "answer_session_ids", list, where)
        for name, values in (("haystack_session_ids", session_ids),
                             ("answer_session_ids", answer_ids), ("haystack_dates", dates)):
            for index, value in enumerate(values, start=1):
                if not isinstance(value, str):
                    raise ExportFormatError(f"{where}: {name}[{index}] must be text, got "
                                            f"{value!r:.60}")
        haystack: dict[str, list[_Turn | None]] = {}
        for index, (session_id, date, turns) in enumerate(zip(session_ids, dates, sessions,
                                                              strict=True), start=1):
            place = f"{where}: haystack_sessions[{index}] ({session_id})"
            if session_id in haystack:
                raise ExportFormatError(f"{place}: session id {session_id!r} appears twice in "
                                        f"the haystack")
            start = parse_date(date)
            if start is None:
                raise ExportFormatError(f"{where}: haystack_dates[{index}] {date!r} is not a "
                                        f"date like '2023/05/20 (Sat) 02:21'")
            if not isinstance(turns, list):
                raise ExportFormatError(f"{place} is not a list of turns")
            records, haystack[session_id] = self._session(
                qid, session_id, turns, start, date, place, source, settings, stored)
            yield from records
        self._query(item, qid, question, question_type, haystack, answer_ids, source,
                    settings, session_ids)

    def _session(self, qid: str, session_id: str, turns: list[Any], start: datetime,
                 date: str, where: str, source: ExportSource, settings: _Settings,
                 stored: dict[str, tuple[str, list[_Turn | None]]]
                 ) -> tuple[list[SourceRecord], list[_Turn | None]]:
        """The session's memories (none when scope=shared already stored it) and its turns
        (None for a turn left out), with has_answer as this question flags it."""
        checked = [_checked_turn(turn, f"{where}[{t}]") for t, turn in enumerate(turns, 1)]
        flags = [bool(turn.get("has_answer")) for turn in checked]
        if not checked:
            source.skips.skip("haystack session without turns", f"question {qid} {session_id}")
        digest = ""
        if settings.shared:
            digest = hashlib.sha256(json.dumps(
                [[t["role"], t["content"]] for t in checked]).encode()).hexdigest()
            if session_id in stored:
                first_digest, first = stored[session_id]
                if digest != first_digest:
                    source.skips.skip("session repeats with other turns (the first kept)",
                                      f"question {qid} {session_id}")
                return [], [None if kept is None else _Turn(kept.memory_id, flag)
                            for kept, flag in zip(first, flags, strict=False)]
        records: list[SourceRecord] = []
        turns_kept: list[_Turn | None] = []
        for t, (turn, flag) in enumerate(zip(checked, flags, strict=True), start=1):
            place = f"question {qid} {session_id} turn {t}"
            if not turn["content"].strip():
                source.skips.skip("turn with empty content", place)
                turns_kept.append(None)
                continue
            parts = (session_id, t) if settings.shared else (qid, session_id, t)
            memory_id = stable_id(NAME, *parts)
            metadata = {k: v for k, v in turn.items() if k not in TURN_FIELDS}
            metadata.update(role=turn["role"], turn=t, session_date=date)
            if not settings.shared:
                metadata["has_answer"] = flag
            records.append(memory_record(
                place, id=memory_id, content=f"{turn['role']}: {turn['content']}",
                memory_type="event", created_at=iso_at(start + timedelta(seconds=t - 1)),
                source="transcript", project=SHARED_PROJECT if settings.shared else qid,
                session_id=session_id, agent=turn["role"], tags=[NAME], metadata=metadata))
            turns_kept.append(_Turn(memory_id, flag))
        if settings.shared:
            stored[session_id] = (digest, turns_kept)
        return records, turns_kept

    def _query(self, item: Mapping[str, Any], qid: str, question: str, question_type: str,
               haystack: dict[str, list[_Turn | None]], answer_ids: list[str],
               source: ExportSource, settings: _Settings, session_ids: list[str]) -> None:
        answer_turns: list[_Turn] = []
        for session_id in dict.fromkeys(answer_ids):
            if session_id not in haystack:
                source.skips.skip("answer session not in the haystack",
                                  f"question {qid}: {session_id}")
                continue
            answer_turns += [turn for turn in haystack[session_id] if turn is not None]
        by_turn = settings.relevance == "turn" or (
            settings.relevance == "auto" and any(turn.has_answer for turn in answer_turns))
        if settings.relevance == "flagged":
            relevant = {turn.memory_id: 1 for turn in answer_turns if turn.has_answer}
            if answer_turns and not relevant:
                source.skips.skip("question flags no has_answer turn (relevance=flagged): not "
                                  "written as a query", f"question {qid}")
                return
        else:
            relevant = {turn.memory_id: 2 if by_turn and turn.has_answer else 1
                        for turn in answer_turns}
        if not relevant:
            source.skips.skip("question has no answer turn in its haystack: not written as "
                              "a query", f"question {qid}")
            return
        scope = ({"project": SHARED_PROJECT, "session_id": list(session_ids)}
                 if settings.shared else {"project": qid})
        extra = ({k: item[k] for k in ("answer", "question_date") if k in item}
                 if settings.answers else None)
        source.queries.append(query_line(qid, question, relevant, scope, [question_type],
                                         extra))


def _checked_turn(turn: Any, where: str) -> dict[str, Any]:
    """A haystack turn with `role` and `content` text and an optional boolean has_answer."""
    if not isinstance(turn, dict):
        raise ExportFormatError(f"{where} is not a JSON object (a turn)")
    field_of(turn, "role", str, where)
    field_of(turn, "content", str, where)
    field_of(turn, "has_answer", bool, where, required=False)
    return turn
