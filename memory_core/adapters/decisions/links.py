"""Supersedes links between decision records (`memlens import --format decisions`).

Records say `Supersedes: ADR-001`, `superseded-by: HDR-0040`, `Superseded by [3. Use X]
(0003-use-x.md)` or put the link in their status. A reference is resolved by number (`ADR-1`
= `ADR-0001`; a bare number takes the record's own prefix; within the same file first when the
number names records in several files) or by a link to a record's file. "A superseded-by B"
and "B supersedes A" are one edge, from the newer record (B) to the older (A), as
`memory_core.causal.expansion.successor` reads them; references that resolve to nothing are
skipped with a reason.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memory_core.adapters.base import edge_record, stable_id
from memory_core.adapters.decisions.fields import references_of
from memory_core.adapters.decisions.markdown import RawRecord
from memory_core.exchange.readers.base import ExportSource, SourceRecord

NAME = "decisions"
_REF_KEY = re.compile(r"\b([A-Z]{2,8})[-_ ]?(\d{1,6})\b")
_REF_LINK = re.compile(r"\]\(\s*([^)\s]+?\.md)(?:#[^)]*)?\s*\)")


@dataclass
class Decision:
    """One record found in the input, with where it came from and what it resolved to."""

    raw: RawRecord
    file: Path
    rel: str
    where: str  # for skips and record places: "rel" or "rel line N"
    error_at: str  # for errors: the file path, with the line for multi-record files
    key: tuple[str, int] | None = None
    label: str | None = None
    id: str = ""
    created_at: str = ""
    imported: bool = False


@dataclass
class _Edges:
    """Supersedes edges by (newer id, older id), each with the references that declared it."""

    found: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    ends: dict[tuple[str, str], tuple[Decision, Decision]] = field(default_factory=dict)


def supersedes_edges(decisions: list[Decision], source: ExportSource
                     ) -> Iterator[SourceRecord]:
    """One `supersedes` edge (newer -> older) per pair of imported records that a reference
    of either names; the rest go to `source.skips` with their reason."""
    by_key: dict[tuple[str, int], list[Decision]] = defaultdict(list)
    by_file: dict[Path, list[Decision]] = defaultdict(list)
    for decision in decisions:
        by_file[decision.file.resolve()].append(decision)
        if decision.key is not None:
            by_key[decision.key].append(decision)
    edges = _Edges()
    for decision in (d for d in decisions if d.imported):
        said = dict.fromkeys((kind, text) for kind, value in decision.raw.references
                             for text in references_of(value, decision.error_at, kind))
        for kind, text in said:
            _link(decision, kind, text, by_key, by_file, edges, source)
    for (newer_id, older_id), evidence in edges.found.items():
        newer, older = edges.ends[(newer_id, older_id)]
        yield edge_record(
            f"{newer.where}: supersedes {older.label or older.rel}",
            id=stable_id(NAME, "supersedes", newer_id, older_id), source_id=newer_id,
            target_id=older_id, relation="supersedes", created_at=newer.created_at,
            evidence=evidence, metadata={"newer": newer.label or newer.rel,
                                         "older": older.label or older.rel})


def _targets(decision: Decision, text: str, by_key: dict[tuple[str, int], list[Decision]],
             by_file: dict[Path, list[Decision]]) -> tuple[list[Decision], list[str]]:
    """The records a reference names, and the reasons for each part that names none."""
    keys = [(p.upper(), int(n)) for p, n in _REF_KEY.findall(text)]
    links = _REF_LINK.findall(text)
    if not keys and not links and (bare := re.match(r"^#?\s*(\d{1,6})\b", text)):
        keys = [((decision.key or ("ADR", 0))[0], int(bare[1]))]
    if not keys and not links:
        return [], ["unreadable supersedes reference"]
    found: list[Decision] = []
    problems: list[str] = []
    candidates = [by_key.get(key, []) for key in keys] + \
        [by_file.get((decision.file.parent / link).resolve(), []) for link in links]
    for named in candidates:
        same_file = [d for d in named if d.file == decision.file]
        if not named:
            problems.append("supersedes reference to a record not in the input")
        elif len(named) > 1 and len(same_file) != 1:
            problems.append("ambiguous supersedes reference (it names records in several "
                            "files, or a file of several records)")
        else:
            found.extend(same_file or named)
    return list({d.id: d for d in found}.values()), problems


def _link(decision: Decision, kind: str, text: str,
          by_key: dict[tuple[str, int], list[Decision]],
          by_file: dict[Path, list[Decision]], edges: _Edges,
          source: ExportSource) -> None:
    said = "Supersedes" if kind == "supersedes" else "Superseded by"
    where = f"{decision.where}: {said} {text}"
    targets, problems = _targets(decision, text, by_key, by_file)
    for problem in problems:
        source.skips.skip(problem, where)
    for target in targets:
        newer, older = (decision, target) if kind == "supersedes" else (target, decision)
        pair = (newer.id, older.id)
        if newer.id == older.id:
            source.skips.skip("a record that supersedes itself", where)
        elif not target.imported:
            source.skips.skip("supersedes reference to a record left out by --limit", where)
        elif (older.id, newer.id) in edges.found:
            source.skips.skip("supersedes cycle (the reverse edge is declared too)", where)
        elif pair in edges.found:
            edges.found[pair].append(where)
        else:
            edges.found[pair], edges.ends[pair] = [where], (newer, older)
