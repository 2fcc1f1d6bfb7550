"""Error messages name the offending value in a few dozen characters, never all 100 kB of it.

Messages name values with `memory_core.model.untrusted.shown` (80 characters of the repr and the
length); these are the messages user input reaches (CLI options, query sets, import files).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_core.evaluation.compare import check_stat_test
from memory_core.evaluation.metrics import check_ks
from memory_core.evaluation.queryset import load_queries, parse_query
from memory_core.exchange.diff_sides import load_side
from memory_core.model.errors import MemlensError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import normalise_memory_type
from memory_core.model.values import as_utc, canonical_json
from memory_core.retrieval.config import preset
from memory_core.retrieval.tiers import check_tier

BIG = "x" * 100_000
#: how long a message may be once it names a 100 kB value (the value shown in ~100)
MAX = 400


def _query(**changes: Any) -> dict[str, Any]:
    return {"qid": "q1", "query": "what", "relevant": {"m1": 1}, **changes}


CASES: list[tuple[str, Callable[[], object], str]] = [
    ("preset", lambda: preset(BIG), "unknown preset"),
    ("tier", lambda: check_tier(BIG), "unknown output tier"),
    ("stat test", lambda: check_stat_test(BIG), "unknown significance test"),
    ("cut-offs", lambda: check_ks([0] * 50_000), "cut-offs k must be integers >= 1"),
    ("status", lambda: Filter(status=BIG).to_predicate("t"), "unknown status"),
    ("importance", lambda: Filter(importance=BIG).to_predicate("t"), "unknown importance"),
    ("embedding status", lambda: Filter(embedding_status=BIG).to_predicate("t"),
     "unknown embedding_status"),
    ("since", lambda: Filter(created_after=BIG).to_predicate("t"), "is not ISO-8601"),
    ("filter shape", lambda: Filter(project={"a": BIG}).to_predicate("t"),  # type: ignore
     "takes text or a list of text"),
    ("filter item", lambda: Filter(project=[b"x" * 100_000]).to_predicate("t"),  # type: ignore
     "takes text values, got bytes"),
    ("tags mode", lambda: Filter(tags=["a"], tags_mode=BIG).to_predicate("t"),  # type: ignore
     "tags_mode must be 'any' or 'all'"),
    ("blank type", lambda: normalise_memory_type(" " * 100_000), "non-empty string"),
    ("timestamp", lambda: as_utc(BIG), "is not ISO-8601"),
    ("tags as text", lambda: Memory.new("c", "fact", tags=BIG), "tags must be a list"),
    ("project type", lambda: Memory.new("c", "fact", project=[BIG]),  # type: ignore[arg-type]
     "project must be text"),
    ("edge end", lambda: Edge.new(" " * 100_000, "m2", "related_to"), "an edge needs a"),
    ("qid", lambda: parse_query(_query(qid=[BIG])), "'qid' must be non-empty text"),
    ("grade", lambda: parse_query(_query(relevant={BIG: 0})), "must be an integer >= 1"),
    ("query filter", lambda: parse_query(_query(filter=[BIG])), "'filter' must be an object"),
    ("query tags", lambda: parse_query(_query(tags=BIG)), "'tags' must be a list"),
    ("diff side", lambda: load_side(f"version:{BIG}", object()),  # type: ignore[arg-type]
     "is not a table version"),
]


@pytest.mark.parametrize(("make", "problem"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_huge_value_is_named_briefly(make: Callable[[], object], problem: str) -> None:
    with pytest.raises(MemlensError) as caught:
        make()
    message = str(caught.value)
    assert problem in message
    assert len(message) < MAX, message[:500]
    assert "characters)" in message  # `shown` says how long the value was


def test_a_repeated_huge_qid_in_a_file_is_named_briefly(tmp_path: Path) -> None:
    line = canonical_json(_query(qid=BIG))
    path = tmp_path / "q.ndjson"
    path.write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(MemlensError, match="repeats the one on line 1") as caught:
        load_queries(path)
    assert len(str(caught.value)) < MAX
