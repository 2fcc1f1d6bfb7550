"""The `locomo` import format: the LoCoMo benchmark's `locomo10.json` (Maharana et al., ACL 2024,
"Evaluating Very Long-Term Conversational Memory of LLM Agents").

The file is a JSON array of samples `{sample_id, conversation, qa, observation,
session_summary, event_summary}`. `conversation` holds `speaker_a`, `speaker_b`, `session_N`
(lists of turns `{speaker, dia_id: "D<session>:<turn>", text, img_url?, blip_caption?,
query?}`) and `session_N_date_time` ("1:56 pm on 8 May, 2023"); some date keys have no session
and are ignored. `qa` items are `{question, answer | adversarial_answer, evidence: [dia_id],
category: 1-5}`.

Mapping (one project per sample):
- each dialog turn -> an `event` memory "speaker: text" (a shared photo appended as
  "[shares a photo: caption]"), id `stable_id("locomo", sample_id, dia_id)`, project =
  sample_id, session_id = "<sample_id>:session_N", agent = the speaker, source `transcript`,
  created_at = the session's date time + 1 s per turn before it in the session (the file
  gives one time per session; the offset keeps the turns in order). The time has no zone
  and is taken as UTC. Other turn fields (img_url, blip_caption, query, ...) go to metadata
  with the dia_id, session and turn numbers and the raw session date.
- `--param units=turns,observations,summaries` (default `turns`) adds `observation`
  memories (`observation.session_N_observation` -> {speaker: [[text, dia_id], ...]}, with a
  `derived_from` edge to each evidence turn when turns are imported) and `session_summary`
  memories (`session_summary.session_N_summary`); both have source `agent_inference` (the
  benchmark generated them) and the session's date time. `event_summary` is not imported.
- each question -> one query line per imported unit (docs/design/evaluation.md): qid
  "<sample_id>:q<n>" (turns) or "<sample_id>:q<n>:<unit>", relevant = the evidence turns
  (grade 1), the observations derived from them, or the summaries of their sessions; filter
  {project: sample_id, memory_type: the unit's type}; tags [category name, unit] with
  categories 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
  `--param answers=include` adds `answer` / `adversarial_answer` / `category` keys (which
  `memlens eval` does not read; the default leaves them out).

Evidence is normalised: "D8:6; D9:17" and "D8:6 D9:17" split, "D30:05" -> "D30:5". Evidence
that names no turn of the sample is dropped and reported, and a question left without
evidence is not written (reported). `--limit N` reads the first N samples; `--project ID`
only the sample ID.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memory_core.adapters.base import Adapter, edge_record, field_of, memory_record, stable_id
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

NAME = "locomo"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
              5: "adversarial"}
UNITS = ("turns", "observations", "summaries")
UNIT_TYPES = {"turns": "event", "observations": "observation", "summaries": "session_summary"}
PARAMS = {"units": "a comma list of turns, observations, summaries (default turns)",
          "answers": "omit|include (default omit)"}
TURN_FIELDS = ("speaker", "dia_id", "text")

_SESSION = re.compile(r"session_(\d+)$")
_DATE = re.compile(r"session_(\d+)_date_time$")
_OBSERVATION = re.compile(r"session_(\d+)_observation$")
_SUMMARY = re.compile(r"session_(\d+)_summary$")
_DIA_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_DATE_TIME = re.compile(
    r"(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})$", re.I)
_MONTHS = {name: number for number, names in enumerate(
    ["jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
     "aug august", "sep sept september", "oct october", "nov november", "dec december"],
    start=1) for name in names.split()}


def dialog_ids(text: str) -> list[str]:
    """The canonical dialog ids in an evidence string: split on anything between them,
    leading zeros dropped.

    >>> dialog_ids("D8:6; D9:17"), dialog_ids("D30:05"), dialog_ids("D1:2 D1:3")
    (['D8:6', 'D9:17'], ['D30:5'], ['D1:2', 'D1:3'])
    """
    return [f"D{int(s)}:{int(t)}" for s, t in _DIA_ID.findall(text)]


def parse_date_time(text: str) -> datetime | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" as a naive datetime; None when it is not one.

    >>> parse_date_time("1:56 pm on 8 May, 2023")
    datetime.datetime(2023, 5, 8, 13, 56)
    """
    match = _DATE_TIME.match(text.strip())
    if match is None or match[5].lower() not in _MONTHS:
        return None
    hour, minute = int(match[1]) % 12 + (12 if match[3].lower() == "p" else 0), int(match[2])
    try:
        return datetime(int(match[6]), _MONTHS[match[5].lower()], int(match[4]), hour, minute)
    except ValueError:
        return None


@dataclass
class _Sample:
    """What the queries of one sample need to know about its memories."""

    sid: str
    where: str
    dates: dict[int, tuple[datetime, str]] = field(default_factory=dict)
    turns: dict[str, str] = field(default_factory=dict)  # dia_id -> memory id
    skipped_turns: set[str] = field(default_factory=set)
    observations: dict[str, set[str]] = field(default_factory=dict)  # memory id -> dia_ids
    summaries: dict[int, str] = field(default_factory=dict)  # session -> memory id


class LocomoAdapter(Adapter):
    """LoCoMo `locomo10.json`: dialog turns as memories, its questions as a query set."""

    name = NAME
    sniff_order = 20
    summary = "LoCoMo benchmark (locomo10.json): dialog turns as memories, questions as queries"
    options = frozenset({"limit", "project"})
    params = tuple(PARAMS)
    #: every dialog turn is its own event, even when its words repeat another's
    dedup_content = False

    def sniff(self, path: Path, first_line: str) -> bool:
        head = array_head(path)
        if head is None or not re.match(r"\[\s*\{", head):
            return False
        return ('"sample_id"' in head and '"conversation"' in head) or (
            '"qa"' in head and '"evidence"' in head and '"category"' in head
            and _DIA_ID.search(head) is not None)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        units = tuple(u.strip().lower() for u in (options.param("units") or "turns").split(",")
                      if u.strip())
        wrong = [u for u in units if u not in UNITS]
        if wrong or not units:
            raise ExportFormatError(f"--param units={options.param('units')!r}: use a comma "
                                    f"list of {', '.join(UNITS)}")
        answers = choice_param(options, "answers", ("omit", "include"), "omit") == "include"
        info = SourceInfo(format=self.name, path=str(path), schema_version=1,
                          record_types=tuple(u for u in UNITS if u in units))
        source = ExportSource(info, lambda: self._records(path, source, options,
                                                          info.record_types, answers))
        return source

    def _records(self, path: Path, source: ExportSource, options: ReadOptions,
                 units: tuple[str, ...], answers: bool) -> Iterator[SourceRecord]:
        read = 0
        for number, item in iter_json_array(path, "LoCoMo samples"):
            if options.limit is not None and read >= options.limit:
                return
            where = f"{path}: item {number}"
            if not isinstance(item, dict):
                raise ExportFormatError(f"{where} is not a JSON object (a LoCoMo sample)")
            sid = field_of(item, "sample_id", str, where)
            if options.project is not None and sid != options.project:
                continue
            read += 1
            sample = _Sample(sid, f"{path}: sample {sid!r} (item {number})")
            conversation = field_of(item, "conversation", dict, sample.where)
            yield from self._turns(sample, conversation, source, "turns" in units)
            if "observations" in units:
                yield from self._observations(sample, item, source, "turns" in units)
            if "summaries" in units:
                yield from self._summaries(sample, item, source)
            self._queries(sample, item, source, units, answers)
        if not read:
            wanted = f"no sample {options.project!r}" if options.project else "no samples"
            raise ExportFormatError(f"{path} holds {wanted}")

    def _turns(self, sample: _Sample, conversation: Mapping[str, Any], source: ExportSource,
               emit: bool) -> Iterator[SourceRecord]:
        sessions: dict[int, list[Any]] = {}
        for key in conversation:
            if (match := _SESSION.match(key)) is not None:
                sessions[int(match[1])] = field_of(conversation, key, list,
                                                   f"{sample.where}: conversation")
            elif (match := _DATE.match(key)) is not None:
                text = field_of(conversation, key, str, f"{sample.where}: conversation")
                moment = parse_date_time(text)
                if moment is None:
                    raise ExportFormatError(f"{sample.where}: conversation.{key} {text!r} is not "
                                            f"a date time like '1:56 pm on 8 May, 2023'")
                sample.dates[int(match[1])] = (moment, text)
        for session in sorted(sessions):
            if session not in sample.dates:
                raise ExportFormatError(f"{sample.where}: conversation has session_{session} "
                                        f"but no session_{session}_date_time")
            start, raw_date = sample.dates[session]
            for index, turn in enumerate(sessions[session], start=1):
                where = f"{sample.where}: conversation.session_{session}[{index}]"
                record = self._turn(sample, session, index, turn, where, start, raw_date,
                                    source)
                if record is not None and emit:
                    yield record

    def _turn(self, sample: _Sample, session: int, index: int, turn: Any, where: str,
              start: datetime, raw_date: str, source: ExportSource) -> SourceRecord | None:
        if not isinstance(turn, dict):
            raise ExportFormatError(f"{where} is not a JSON object (a dialog turn)")
        speaker, raw_id, text = (field_of(turn, name, str, where) for name in TURN_FIELDS)
        ids = dialog_ids(raw_id)
        if len(ids) != 1:
            raise ExportFormatError(f"{where}: dia_id {raw_id!r} is not one 'D<session>:<turn>'")
        dia_id = ids[0]
        caption = field_of(turn, "blip_caption", str, where, required=False)
        parts = [text.strip()] if text.strip() else []
        if caption and caption.strip():
            parts.append(f"[shares a photo: {caption.strip()}]")
        place = f"sample {sample.sid} {dia_id}"
        if dia_id in sample.turns or dia_id in sample.skipped_turns:
            source.skips.skip("dialog turn repeats a dia_id (the first kept)",
                              f"{place} (session_{session} turn {index})")
            return None
        if not parts:
            sample.skipped_turns.add(dia_id)
            source.skips.skip("dialog turn without text", place)
            return None
        memory_id = stable_id(NAME, sample.sid, dia_id)
        sample.turns[dia_id] = memory_id
        metadata = {k: v for k, v in turn.items() if k not in TURN_FIELDS}
        metadata.update(dia_id=dia_id, session=session, turn=index, session_date_time=raw_date)
        if raw_id != dia_id:
            metadata["source_dia_id"] = raw_id
        return memory_record(
            place, id=memory_id, content=f"{speaker}: {' '.join(parts)}", memory_type="event",
            created_at=iso_at(start + timedelta(seconds=index - 1)), source="transcript",
            project=sample.sid, session_id=f"{sample.sid}:session_{session}", agent=speaker,
            tags=[NAME], metadata=metadata)

    def _observations(self, sample: _Sample, item: Mapping[str, Any], source: ExportSource,
                      link: bool) -> Iterator[SourceRecord]:
        observations = field_of(item, "observation", dict, sample.where, required=False)
        if not observations:
            source.skips.skip("sample has no observations", f"sample {sample.sid}")
            return
        for key, by_speaker in observations.items():
            where = f"{sample.where}: observation.{key}"
            match = _OBSERVATION.match(key)
            if match is None or not isinstance(by_speaker, dict):
                raise ExportFormatError(f"{where}: expected session_N_observation -> "
                                        f"{{speaker: [[text, dia_id], ...]}}")
            session = int(match[1])
            if session not in sample.dates:
                source.skips.skip("observation of a session without a date",
                                  f"sample {sample.sid} {key}")
                continue
            created = iso_at(sample.dates[session][0])
            for speaker in by_speaker:
                for index, entry in enumerate(field_of(by_speaker, speaker, list, where),
                                              start=1):
                    place = f"{where}.{speaker}[{index}]"
                    text, evidence = _observation_entry(entry, place)
                    memory_id = stable_id(NAME, sample.sid, "observation", session, speaker,
                                          index)
                    dia_ids = [d for raw in evidence for d in dialog_ids(raw)]
                    sample.observations[memory_id] = set(dia_ids)
                    short = f"sample {sample.sid} {key} {speaker} {index}"
                    yield memory_record(
                        short, id=memory_id, content=text, memory_type="observation",
                        created_at=created, source="agent_inference", project=sample.sid,
                        session_id=f"{sample.sid}:session_{session}", agent=speaker,
                        tags=[NAME], metadata={"evidence": dia_ids, "session": session,
                                               "speaker": speaker})
                    for dia_id in dict.fromkeys(dia_ids if link else []):
                        target = sample.turns.get(dia_id)
                        if target is None:
                            source.skips.skip("observation evidence names a turn that does "
                                              "not exist", f"{short}: {dia_id}")
                            continue
                        yield edge_record(
                            short, id=stable_id(NAME, sample.sid, "derived_from", memory_id,
                                                target),
                            source_id=memory_id, target_id=target, relation="derived_from",
                            created_at=created, evidence=[dia_id])

    def _summaries(self, sample: _Sample, item: Mapping[str, Any], source: ExportSource
                   ) -> Iterator[SourceRecord]:
        summaries = field_of(item, "session_summary", dict, sample.where, required=False)
        if not summaries:
            source.skips.skip("sample has no session summaries", f"sample {sample.sid}")
            return
        for key in summaries:
            match = _SUMMARY.match(key)
            where = f"{sample.where}: session_summary"
            if match is None:
                raise ExportFormatError(f"{where}: key {key!r} is not session_N_summary")
            text = field_of(summaries, key, str, where)
            session = int(match[1])
            if session not in sample.dates:
                source.skips.skip("summary of a session without a date",
                                  f"sample {sample.sid} {key}")
                continue
            if not text.strip():
                source.skips.skip("empty session summary", f"sample {sample.sid} {key}")
                continue
            memory_id = stable_id(NAME, sample.sid, "summary", session)
            sample.summaries[session] = memory_id
            yield memory_record(
                f"sample {sample.sid} {key}", id=memory_id, content=text,
                memory_type="session_summary", created_at=iso_at(sample.dates[session][0]),
                source="agent_inference", project=sample.sid,
                session_id=f"{sample.sid}:session_{session}", tags=[NAME],
                metadata={"session": session})

    def _queries(self, sample: _Sample, item: Mapping[str, Any], source: ExportSource,
                 units: tuple[str, ...], answers: bool) -> None:
        for number, qa in enumerate(field_of(item, "qa", list, sample.where), start=1):
            where = f"{sample.where}: qa[{number}]"
            if not isinstance(qa, dict):
                raise ExportFormatError(f"{where} is not a JSON object (a question)")
            question = field_of(qa, "question", str, where)
            category = field_of(qa, "category", int, where)
            if category not in CATEGORIES:
                raise ExportFormatError(f"{where}: category {category!r} is not 1-5 "
                                        f"({', '.join(f'{k} {v}' for k, v in CATEGORIES.items())})")
            for key in ("answer", "adversarial_answer"):
                field_of(qa, key, (str, int, float), where, required=False)
            evidence = _evidence(sample, qa, where, f"sample {sample.sid} q{number}", source)
            if not evidence:
                source.skips.skip("question has no evidence turn: not written as a query",
                                  f"sample {sample.sid} q{number}")
                continue
            extra = ({"category": category, **{k: qa[k] for k in ("answer", "adversarial_answer")
                                               if k in qa}} if answers else None)
            for unit in units:
                relevant = _relevant(sample, unit, evidence)
                if not relevant:
                    source.skips.skip(f"no {unit} hold the question's evidence: no {unit} query",
                                      f"sample {sample.sid} q{number}")
                    continue
                qid = f"{sample.sid}:q{number}" + ("" if unit == "turns" else f":{unit}")
                source.queries.append(query_line(
                    qid, question, relevant,
                    {"project": sample.sid, "memory_type": UNIT_TYPES[unit]},
                    [CATEGORIES[category], unit], extra))


def _observation_entry(entry: Any, where: str) -> tuple[str, list[str]]:
    """(text, evidence strings) of one `[text, dia_id]` observation."""
    if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str):
        raise ExportFormatError(f"{where}: expected [text, dia_id], got {entry!r:.80}")
    evidence = entry[1] if isinstance(entry[1], list) else [entry[1]]
    if not all(isinstance(e, str) for e in evidence):
        raise ExportFormatError(f"{where}: the dia_id must be text, got {entry[1]!r:.60}")
    return entry[0], evidence


def _evidence(sample: _Sample, qa: Mapping[str, Any], where: str, place: str,
              source: ExportSource) -> list[str]:
    """The question's evidence as canonical dia_ids of imported turns (others reported)."""
    raw = field_of(qa, "evidence", (list, str), where, required=False) or []
    found: dict[str, None] = {}
    for text in [raw] if isinstance(raw, str) else raw:
        if not isinstance(text, str):
            raise ExportFormatError(f"{where}: evidence items must be dia_id text, "
                                    f"got {text!r:.60}")
        ids = dialog_ids(text)
        if not ids:
            source.skips.skip("evidence is not a dialog id", f"{place}: {text!r}")
        for dia_id in ids:
            if dia_id in sample.turns:
                found[dia_id] = None
            elif dia_id in sample.skipped_turns:
                source.skips.skip("evidence names a turn without text", f"{place}: {dia_id}")
            else:
                source.skips.skip("evidence names a turn that does not exist",
                                  f"{place}: {dia_id}")
    return list(found)


def _relevant(sample: _Sample, unit: str, evidence: list[str]) -> dict[str, int]:
    """Relevant memory ids of one unit for the evidence turns (grade 1 each)."""
    if unit == "turns":
        return {sample.turns[d]: 1 for d in evidence}
    if unit == "observations":
        wanted = set(evidence)
        return {m: 1 for m, ids in sample.observations.items() if ids & wanted}
    sessions = dict.fromkeys(int(d[1:].split(":")[0]) for d in evidence)
    return {sample.summaries[s]: 1 for s in sessions if s in sample.summaries}
