"""Query sets: NDJSON files of queries and their graded relevant memories.

One JSON object a line (docs/design/evaluation.md):

    {"qid": "q001", "query": "...", "relevant": {"<memory id>": 2, ...},
     "filter": {"project": "herd"}, "tags": ["paraphrase"]}

`qid`, `query` and `relevant` are required; `filter` (the fields of `Filter`) and `tags` are
optional. Grades are integers >= 1 (1 = relevant; higher = more useful, used by nDCG).
Blank lines are skipped. Every mistake is reported with the file and line it is on.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.model.errors import InvalidFilterError, QuerySetError
from memory_core.model.filters import Filter
from memory_core.model.untrusted import shown
from memory_core.model.values import canonical_json

REQUIRED_KEYS = ("qid", "query", "relevant")
OPTIONAL_KEYS = ("filter", "tags")
#: Keys benchmark query sets carry for people to read (the expected answer, the question's
#: date and category); kept out of scoring, accepted so such files load as they are.
INFORMATIONAL_KEYS = ("answer", "adversarial_answer", "category", "question_date")

#: The error a bad query-set line raises (a query is a record that failed validation).


@dataclass(frozen=True)
class Query:
    """One evaluation query: its text, what counts as relevant (graded) and how to filter.

    >>> Query("q1", "why uv?", {"m1": 2}).relevant_ids
    ('m1',)
    """

    qid: str
    query: str
    relevant: Mapping[str, int]
    filter: Filter = field(default_factory=Filter)
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # a tag given twice would count the query twice in the by-tag means
        object.__setattr__(self, "tags", tuple(dict.fromkeys(self.tags)))

    @property
    def relevant_ids(self) -> tuple[str, ...]:
        """The relevant memory ids, sorted."""
        return tuple(sorted(self.relevant))

    def to_dict(self) -> dict[str, Any]:
        """The query as its NDJSON object (`load_queries` reads it back)."""
        return {"qid": self.qid, "query": self.query, "relevant": dict(self.relevant),
                "filter": self.filter.to_dict(), "tags": list(self.tags)}


def _fail(where: str, message: str) -> QuerySetError:
    return QuerySetError(f"{where}: {message}")


def _text(where: str, doc: Mapping[str, Any], key: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"{key!r} must be non-empty text, got {shown(value)}")
    return value


def _grades(where: str, value: Any) -> dict[str, int]:
    if not isinstance(value, dict) or not value:
        raise _fail(where, f"'relevant' must be a non-empty object of memory id -> grade, "
                           f"got {shown(value)}")
    for memory_id, grade in value.items():
        # bool is an int in Python; a grade of `true` is a mistake, not a 1
        if isinstance(grade, bool) or not isinstance(grade, int) or grade < 1:
            raise _fail(where, f"grade of {shown(memory_id)} must be an integer >= 1 "
                               f"(1 = relevant), got {shown(grade)}")
        if not memory_id:
            raise _fail(where, "'relevant' has an empty memory id")
    return dict(value)


def _filter(where: str, value: Any) -> Filter:
    if value is None:
        return Filter()
    if not isinstance(value, dict):
        raise _fail(where, f"'filter' must be an object of Filter fields, got {shown(value)}")
    try:
        flt = Filter.from_dict(value)
        flt.to_predicate("default")  # checks every value now, so the line can be named
    except (InvalidFilterError, TypeError) as exc:
        raise _fail(where, f"bad filter: {exc}") from exc
    return flt


def _tags(where: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) and t for t in value):
        raise _fail(where, f"'tags' must be a list of non-empty text, got {shown(value)}")
    return tuple(value)


def parse_query(doc: Any, where: str = "query") -> Query:
    """A `Query` from one decoded NDJSON object; `where` prefixes error messages."""
    if not isinstance(doc, dict):
        raise _fail(where, f"expected a JSON object, got {type(doc).__name__}")
    unknown = sorted(set(doc) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS)
                     - set(INFORMATIONAL_KEYS))
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(unknown)}; known: "
                           f"{', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)}")
    return Query(qid=_text(where, doc, "qid"), query=_text(where, doc, "query"),
                 relevant=_grades(where, doc.get("relevant")),
                 filter=_filter(where, doc.get("filter")), tags=_tags(where, doc.get("tags")))


def load_queries(path: str | Path) -> list[Query]:
    """The queries of an NDJSON query set, in file order.

    Raises `QuerySetError` (an `InvalidRecordError`) naming the file and line of the first
    bad line: not JSON, a missing or empty qid/query, grades that are not integers >= 1, an
    unknown filter field, a repeated qid.
    """
    queries = list(_parsed(Path(path)))
    if not queries:
        raise QuerySetError(f"{path} holds no queries; write one JSON object a line")
    return queries


@dataclass(frozen=True)
class QuerySample:
    """Queries drawn from a query set: `queries` (in file order) of the `total` it holds."""

    queries: list[Query]
    total: int

    @property
    def sampled(self) -> bool:
        """Whether some of the set's queries were left out."""
        return len(self.queries) < self.total


def sample_queries(path: str | Path, size: int | None, *, seed: int = 0,
                   progress: Callable[[int], None] | None = None) -> QuerySample:
    """A sample of `size` queries of the query set at `path`, drawn with
    `random.Random(seed).sample` from its non-blank lines; every query when the set holds no
    more than `size` or `size` is None or 0.

    The file is read twice, a line at a time: once to count its queries, once to parse the
    sampled lines only, so a set of millions costs the memory of the sample. The lines left
    out are counted, not checked (`load_queries` checks every one). `progress(1)` is called
    per line read.
    """
    path = Path(path)
    total = 0
    for _ in _lines(path):
        total += 1
        if progress is not None:
            progress(1)
    if not total:
        raise QuerySetError(f"{path} holds no queries; write one JSON object a line")
    if not size or size >= total:
        return QuerySample(queries=load_queries(path), total=total)
    if size < 0:
        raise QuerySetError(f"a sample of {size} queries is not possible; give a size >= 1, "
                            f"or 0 for every query")
    chosen = frozenset(random.Random(seed).sample(range(total), size))
    return QuerySample(queries=list(_parsed(path, chosen.__contains__)), total=total)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line) of each non-blank line, streamed."""
    try:
        # split on "\n" only (newline="\n"): splitting also at U+2028 and the other
        # separators canonical (unescaped) JSON may hold in a string would cut a line in
        # two; utf-8-sig drops the byte-order mark Windows editors write first
        with path.open(encoding="utf-8-sig", newline="\n") as lines:
            for number, line in enumerate(lines, 1):
                if line.strip():
                    yield number, line
    except OSError as exc:
        raise QuerySetError(f"cannot read the query set {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise QuerySetError(f"{path} is not UTF-8 text: {exc.reason}") from exc


def _parsed(path: Path, keep: Callable[[int], bool] | None = None) -> Iterator[Query]:
    """The queries of `path` in file order: those whose index among its non-blank lines
    `keep` accepts (every one without `keep`). A qid must not repeat among them."""
    first_line: dict[str, int] = {}
    for index, (number, line) in enumerate(_lines(path)):
        if keep is not None and not keep(index):
            continue
        where = f"{path}:{number}"
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _fail(where, f"not JSON ({exc.msg} at column {exc.colno})") from exc
        query = parse_query(doc, where)
        if query.qid in first_line:
            raise _fail(where, f"qid {shown(query.qid)} repeats the one on line "
                               f"{first_line[query.qid]}; give every query its own qid")
        first_line[query.qid] = number
        yield query


def write_queries(path: str | Path, queries: Iterable[Query]) -> int:
    """Write `queries` as canonical NDJSON (sorted keys, one a line); returns how many.

    Repeated qids are refused before anything is written.
    """
    items = list(queries)
    seen: set[str] = set()
    for q in items:
        if q.qid in seen:
            raise QuerySetError(f"qid {shown(q.qid)} appears twice; give every query its own qid")
        seen.add(q.qid)
    text = "".join(canonical_json(q.to_dict()) + "\n" for q in items)
    Path(path).write_text(text, encoding="utf-8", newline="\n")
    return len(items)


def select_tags(queries: Sequence[Query], tags: Iterable[str]) -> list[Query]:
    """The queries that carry any of `tags` (all of them when `tags` is empty).

    Asking for tags none of the queries carry is an error listing the known tags.
    """
    wanted = set(tags)
    if not wanted:
        return list(queries)
    picked = [q for q in queries if wanted & set(q.tags)]
    if not picked:
        known = sorted({t for q in queries for t in q.tags})
        raise QuerySetError(f"no query has the tag(s) {', '.join(sorted(wanted))}; known "
                            f"tags: {', '.join(known) if known else 'none'}")
    return picked
