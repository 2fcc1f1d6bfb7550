"""The `decisions` import format: a folder of markdown decision records (HDRs, ADRs).

PATH is a folder (its `*.md` files, recursively, hidden folders left out) or one `.md` file.
A file holds one record (herd's HDRs, superagents' ADRs, adr-tools, MADR) or several
`## ADR-001: ...` sections (SpecKit's decision record); `markdown` finds titles,
numbers and header fields in every style those use. Each record becomes one
`decision_context` memory:

- id: `stable_id("decisions", "ADR-3")` from its number (`ADR-003` = `ADR-0003`); from its
  file path (and number) when it has none or the number names records in several files;
- content: `ADR-003: Title` and the first paragraph(s) of its Decision section;
- status: Accepted / Proposed / Draft -> active, Deprecated / Rejected -> archived,
  Superseded -> superseded (see `fields.STATUS_WORDS`); no status -> active;
- created_at: its `date` (many formats); without one `--param default_date`, else the file's
  modification time (a fallback that differs between clones; metadata `date_source` says
  which was used); updated_at: its `updated` / `last-updated` field, else created_at;
- agent: its decision-maker, when it names one (deciders stay in metadata); tags: its
  `tags`; why: the first sentence of a Rationale section; project: `--project`, its own
  `project` field, `--param project=`, else the folder's name (generic names like `adr` or
  `decisions` skip to the parent);
- metadata: path, line, key, number, title, status_raw, deciders, authors, every header field
  as written (`fields`), the supersedes references as written, date_source, document_title
  (multi-record files) and the record's full markdown (`text`).

`Supersedes: ADR-001` in B and `Superseded by ADR-004` in A become one `supersedes` edge from
the newer record to the older. References to records not in the input are skipped with a
reason, as are files that are no decision (README.md, templates) and sections of a
multi-record file outside any record. A binary or non-UTF-8 file, an unclosed front matter, a
status or date of the wrong type or form, or a record without a title is an error.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from memory_core.adapters.base import Adapter, memory_record, stable_id
from memory_core.adapters.decisions.fields import (
    names_of,
    parse_date,
    references_of,
    status_of,
)
from memory_core.adapters.decisions.links import NAME, Decision, supersedes_edges
from memory_core.adapters.decisions.markdown import (
    DECISION_SECTIONS,
    RATIONALE_SECTIONS,
    first_sentence,
    split_records,
    summary_of,
)
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    TEXT_ENCODING,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
    read_head,
)
from memory_core.model.canonical import iso
from memory_core.model.errors import ExportFormatError, InvalidRecordError
from memory_core.model.schema import STATUSES, normalise_importance

PARAMS = ("project", "prefix", "default_date", "unknown_status")
GENERIC_FOLDERS = {"adr", "adrs", "hdr", "hdrs", "decisions", "decision-records",
                   "decision_records", "docs", "doc", "architecture", "records"}
SNIFF_FILES, SNIFF_ENTRIES, SNIFF_BYTES = 20, 2000, 4096
_FILE_KEY = re.compile(r"^(?!\d{4}-\d{2}-\d{2})(?:(?P<prefix>[A-Za-z]{2,8})[-_]?)?"
                       r"(?P<digits>\d{1,6})(?:[-_. ]|$)")
_HEAD_SIGNS = re.compile(
    r"^(?:(?-i:#{1,3}\s+[A-Z]{2,8}-\d+\s*:)|\s*(?:[-*]\s+)?\*\*Status:?\*\*:?\s+\S"
    r"|\|\s*\**Status\**\s*\||Status:\s+\S|##\s+Status\s*$)", re.MULTILINE | re.IGNORECASE)


def _read(file: Path) -> str:
    data = file.read_bytes()
    if b"\x00" in data:
        raise ExportFormatError(f"{file} is a binary file, not a markdown decision record; "
                                f"check the path and --format")
    try:
        return data.decode(TEXT_ENCODING)
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ExportFormatError(f"{file}: line {line} is not UTF-8 text (byte {exc.start}); "
                                f"decision records must be UTF-8") from exc


def _visible(rel: Path) -> bool:
    return not any(part.startswith(".") or part == "node_modules" for part in rel.parts)


def markdown_files(path: Path) -> list[tuple[Path, str]]:
    """(file, path relative to PATH) of the `.md` files to read, in path order."""
    if path.is_file():
        return [(path, path.name)]
    if not path.is_dir():
        raise ExportFormatError(f"there is no file or folder at {path}")
    found = [(file, file.relative_to(path).as_posix()) for file in path.rglob("*")
             if file.suffix.lower() == ".md" and _visible(file.relative_to(path))
             and file.is_file()]
    if not found:
        raise ExportFormatError(f"{path} holds no .md files; give a folder of decision "
                                f"records or one record")
    return sorted(found, key=lambda pair: pair[1])


def default_project(path: Path) -> str | None:
    """The input folder's name, or its nearest ancestor's when the name is generic."""
    folder = path.resolve() if path.is_dir() else path.resolve().parent
    for part in (folder, *folder.parents):
        name = part.name.lstrip(".")
        if name and name.lower() not in GENERIC_FOLDERS:
            return name
    return None


def _key_of(decision: Decision, prefix: str) -> tuple[str, str] | None:
    """(prefix, digits as written) from the title, a `key`/`id`/`number` field or the file
    name (files of one record only)."""
    raw = decision.raw
    name = _FILE_KEY.match(Path(decision.rel).stem)
    file_prefix = (name["prefix"] or "").upper() if name else ""
    if raw.digits is not None:
        digits = raw.digits
        if raw.prefix is None and name and int(name["digits"]) == int(digits):
            digits = name["digits"]
        return (raw.prefix or file_prefix or prefix).upper(), digits
    given = raw.fields.get("key")
    if isinstance(given, int) and not isinstance(given, bool):
        return file_prefix or prefix, str(given)
    if isinstance(given, str) and (match := re.fullmatch(
            r"\s*(?:([A-Za-z]{2,8})[-_ ]?)?(\d{1,6})\s*", given)):
        return (match[1] or file_prefix or prefix).upper(), match[2]
    if name and not raw.multi:
        return file_prefix or prefix, name["digits"]
    return None


class DecisionRecordsAdapter(Adapter):
    """Markdown decision records (HDRs, ADRs): one decision_context memory per record."""

    name = NAME
    sniff_order = 100
    summary = "markdown decision records (HDR/ADR folders: front matter, metadata tables)"
    options = frozenset({"limit", "project"})
    params = PARAMS

    def sniff(self, path: Path, first_line: str) -> bool:
        try:
            if path.is_file():
                return path.suffix.lower() == ".md" and self._head_says(path)
            checked = seen = 0
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and d != "node_modules")
                for name in sorted(files):
                    seen += 1
                    if seen > SNIFF_ENTRIES or checked >= SNIFF_FILES:
                        return False
                    if name.lower().endswith(".md") and not name.startswith("."):
                        checked += 1
                        if self._head_says(Path(folder) / name):
                            return True
        except OSError:
            return False
        return False

    @staticmethod
    def _head_says(file: Path) -> bool:
        head = read_head(file, SNIFF_BYTES)
        if head.startswith("---") and re.search(r"^status\s*:", head, re.MULTILINE):
            return True
        return bool(_HEAD_SIGNS.search(head))

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        status = options.param("unknown_status")
        if status is not None and status not in STATUSES:
            raise ExportFormatError(f"--param unknown_status={status} is not one of "
                                    f"{', '.join(STATUSES)}")
        prefix = options.param("prefix") or "ADR"
        if not re.fullmatch(r"[A-Za-z]{1,8}", prefix):
            raise ExportFormatError(f"--param prefix={prefix} must be letters, like ADR or HDR")
        default = options.param("default_date")
        if default is not None:
            parse_date(default, "--param default_date")
        files = markdown_files(path)
        info = SourceInfo(format=NAME, path=str(path), schema_version=1,
                          record_types=("decision_context",))
        source = ExportSource(info, lambda: self._records(path, files, source, options))
        return source

    def _records(self, path: Path, files: list[tuple[Path, str]], source: ExportSource,
                 options: ReadOptions) -> Iterator[SourceRecord]:
        decisions = self._decisions(files, source, options)
        project = options.project or options.param("project") or default_project(path)
        kept: list[tuple[Decision, SourceRecord]] = []
        for decision in decisions:
            own = decision.raw.fields.get("project")
            if own is not None and not isinstance(own, str):
                raise ExportFormatError(f"{decision.error_at}: project must be text, got "
                                        f"{own!r:.60}")
            if options.project and own and own != options.project:
                source.skips.skip("another project than --project", decision.where)
                continue
            kept.append((decision, self._memory(decision, options.project or own or project,
                                                options)))
        for decision, doc in kept[:options.limit]:
            decision.imported = True
            yield doc
        yield from supersedes_edges([decision for decision, _ in kept], source)

    def _decisions(self, files: list[tuple[Path, str]], source: ExportSource,
                   options: ReadOptions) -> list[Decision]:
        """Every decision record of the input, with its key and id."""
        decisions: list[Decision] = []
        for file, rel in files:
            text = _read(file)
            if not text.strip():
                source.skips.skip("empty file", rel)
                continue
            if "template" in Path(rel).stem.lower():
                source.skips.skip("a template, not a decision record", rel)
                continue
            raws, outside = split_records(text, str(file))
            for line, heading in outside:
                source.skips.skip("section outside any decision record",
                                  f"{rel} line {line} ({heading})")
            for raw in raws:
                decision = Decision(raw, file, rel,
                                    f"{rel} line {raw.line}" if raw.multi else rel,
                                    f"{file} line {raw.line}" if raw.multi else str(file))
                if not raw.looks_like_decision:
                    source.skips.skip("not a decision record (no status, number or Decision "
                                      "section)", decision.where)
                    continue
                if raw.title is None:
                    raise ExportFormatError(f"{decision.error_at}: the decision record has no "
                                            f"title (a `# ADR-001: Title` heading or a "
                                            f"`title:` field)")
                decisions.append(decision)
        self._identify(decisions, (options.param("prefix") or "ADR").upper())
        return decisions

    @staticmethod
    def _identify(decisions: list[Decision], prefix: str) -> None:
        by_key: dict[tuple[str, int], list[Decision]] = defaultdict(list)
        for decision in decisions:
            found = _key_of(decision, prefix)
            if found is not None:
                decision.key = (found[0], int(found[1]))
                decision.label = f"{found[0]}-{found[1]}"
                same = [d for d in by_key[decision.key] if d.file == decision.file]
                if same:
                    raise ExportFormatError(
                        f"{decision.file}: {decision.label} appears twice (lines "
                        f"{same[0].raw.line} and {decision.raw.line})")
                by_key[decision.key].append(decision)
        for decision in decisions:
            if decision.key is None:
                decision.id = stable_id(NAME, decision.rel)
            elif len(by_key[decision.key]) == 1:
                decision.id = stable_id(NAME, f"{decision.key[0]}-{decision.key[1]}")
            else:
                decision.id = stable_id(NAME, decision.rel, f"{decision.key[0]}-"
                                                            f"{decision.key[1]}")

    def _memory(self, decision: Decision, project: str | None,
                options: ReadOptions) -> SourceRecord:
        raw, at = decision.raw, decision.error_at
        fields = raw.fields
        status_raw = fields.get("status")
        status = "active" if status_raw is None else \
            status_of(status_raw, at, options.param("unknown_status"))
        if fields.get("date") is not None:
            created, date_source = parse_date(fields["date"], at, "date"), "date"
        elif options.param("default_date") is not None:
            created = parse_date(options.param("default_date"), "--param default_date")
            date_source = "param default_date"
        else:
            mtime = int(decision.file.stat().st_mtime)
            created, date_source = datetime.fromtimestamp(mtime, UTC), "file mtime"
        updated = parse_date(fields["updated"], at, "updated") \
            if fields.get("updated") is not None else created
        decision.created_at = str(iso(created))
        makers = names_of(fields.get("decision_maker"), at, "decision-maker")
        deciders = list(dict.fromkeys(makers + names_of(fields.get("deciders"), at, "deciders")))
        agent = makers[0] if len(makers) == 1 else None
        importance = fields.get("importance") or "normal"
        try:
            importance = normalise_importance(importance)
        except InvalidRecordError as exc:
            raise ExportFormatError(f"{at}: {exc}") from exc
        section = next((body for name, body in raw.sections.items()
                        if name in DECISION_SECTIONS), None)
        summary = summary_of(section) if section is not None else ""
        rationale = next((body for name, body in raw.sections.items()
                          if name in RATIONALE_SECTIONS), None)
        heading = f"{decision.label}: {raw.title}" if decision.label else str(raw.title)
        references = {kind: [t for k, v in raw.references if k == kind
                             for t in references_of(v, at, kind.replace("_", "-"))]
                      for kind in ("supersedes", "superseded_by")}
        metadata = {
            "path": decision.rel, "line": raw.line if raw.multi else None,
            "key": decision.label,
            "number": decision.key[1] if decision.key else None, "title": raw.title,
            "status_raw": status_raw, "deciders": deciders,
            "authors": names_of(fields.get("authors"), at, "authors"),
            "fields": raw.written, **{k: list(dict.fromkeys(v)) for k, v in references.items()
                                      if v},
            "date_source": date_source, "document_title": raw.document_title, "text": raw.text,
        }
        return memory_record(
            decision.where, id=decision.id,
            content=f"{heading}\n\n{summary}" if summary else heading,
            memory_type="decision_context", created_at=decision.created_at,
            updated_at=str(iso(updated)), source=f"import:{NAME}", status=status,
            project=project, agent=agent, why=first_sentence(rationale) if rationale else None,
            tags=names_of(fields.get("tags"), at, "tags"), importance=importance,
            metadata={k: v for k, v in metadata.items() if v not in (None, [], {})})
