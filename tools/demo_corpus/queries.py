"""The evaluation query set of the demo corpus (docs/design/evaluation.md).

Four kinds, named in each query's `tags`: `keyword` (shares words with its targets),
`paraphrase` (the storyline in other words; few shared content words), `filtered` (a
`Filter`-shaped `filter`, and only matching memories are relevant) and `why` (a decision
graded 3, what caused or supports it graded 2, one hop further graded 1, found by edges).
Grades: 3 highly relevant, 2 relevant, 1 marginally relevant. Only active memories are
relevant unless the filter asks for a status; exact and near copies of a relevant memory
carry its grade.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memory_core.model.records import Edge, Memory
from tools.demo_corpus.builder import Builder, Draft, Trace

KINDS = ("keyword", "paraphrase", "filtered", "why")
#: kind -> (number of variants of its builder, number of queries); variants share the count.
PLAN = {"keyword": (5, 34), "paraphrase": (1, 40), "filtered": (8, 40), "why": (4, 30)}
FILTER_FIELDS = ("project", "repo", "agent", "session_id", "memory_type", "tags", "status",
                 "importance")
STOPWORDS = frozenset(
    "the and for with that this from into when what why how did does was were are our has had "
    "have not but all any can could would should they them their there then than its it's out "
    "over about after before again also each just only some such very more most one two get "
    "got kept keep made make who whom which while because been being nobody anyone everyone "
    "someone something nothing even though still at on of to in by as is be".split()
)
#: Roles at the heart of a storyline: what a searcher of its topic most wants back.
CORE = ("decision2", "decision", "decision_context2", "decision_context", "topic")


def content_words(text: str) -> set[str]:
    """Lower-case words of 3+ characters that are not stopwords."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3
            and w not in STOPWORDS}


def matches(memory: Memory, filter: Mapping[str, Any]) -> bool:
    """Whether `memory` passes `filter` (`tags` matches any listed tag)."""
    for name, value in filter.items():
        if name == "tags":
            if not set(value) & set(memory.tags):
                return False
        elif getattr(memory, name) != value:
            return False
    return True


@dataclass
class _Ctx:
    b: Builder
    memories: dict[str, Memory]
    edges: tuple[Edge, ...]


def build_queries(b: Builder, memories: tuple[Memory, ...], edges: tuple[Edge, ...]
                  ) -> tuple[dict, ...]:
    """About 150 queries over the corpus, shuffled and numbered `q001`..."""
    ctx = _Ctx(b, {m.id: m for m in memories}, edges)
    rng = b.rng
    keys = list(b.traces)
    made: list[dict] = []
    for kind, builder in (("keyword", _keyword), ("paraphrase", _paraphrase),
                          ("filtered", _filtered), ("why", _why)):
        variants, total = PLAN[kind]
        for variant in range(variants):
            quota = total // variants + (variant < total % variants)
            for key in rng.sample(keys, len(keys)):
                if quota == 0:
                    break
                query = builder(ctx, b.traces[key], variant)
                if query is not None and max(query["relevant"].values(), default=0) >= 2 and all(
                        q["query"] != query["query"] or q["filter"] != query["filter"]
                        for q in made):
                    query["tags"] = [kind, b.traces[key].story.tags[0]]
                    made.append(query)
                    quota -= 1
    made.extend(_extra(ctx))
    rng.shuffle(made)
    return tuple({"qid": f"q{n:03d}", **q} for n, q in enumerate(made, start=1))


def _qrels(ctx: _Ctx, grades: Mapping[str, int], filter: Mapping[str, Any]) -> dict[str, int]:
    """`grades` with copies added, then cut to memories that exist, pass `filter` and are
    active (or carry the status the filter asks for)."""
    out: dict[str, int] = {}
    for mid, grade in grades.items():
        for copy_id in [mid] + [d.id for d in ctx.b.duplicates.get(mid, [])]:
            memory = ctx.memories.get(copy_id)
            if memory is None or not matches(memory, filter):
                continue
            if "status" not in filter and memory.status != "active":
                continue
            out[copy_id] = max(grade, out.get(copy_id, 0))
    return out


def _query(ctx: _Ctx, text: str, grades: Mapping[str, int],
           filter: Mapping[str, Any] | None = None) -> dict:
    filter = dict(filter or {})
    return {"query": text, "relevant": _qrels(ctx, grades, filter), "filter": filter}


def _ids(*groups: list[Draft] | Draft | None, grade: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for group in groups:
        items = group if isinstance(group, list) else [group]
        for draft in items:
            if draft is not None:
                out.setdefault(draft.id, grade)
    return out


def _merge(*gradings: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for grading in gradings:
        for mid, grade in grading.items():
            out[mid] = max(grade, out.get(mid, 0))
    return out


def _keyword(ctx: _Ctx, t: Trace, variant: int) -> dict | None:
    story = t.story
    if variant in (2, 3, 4):
        token = (t.ticket, story.file, t.hdr)[variant - 2]
        grades = {d.id: (3 if d.role in CORE else 2) for d in t.all() if token in d.content}
        return _query(ctx, token, grades)
    text = story.topic if variant == 0 else (
        f"{story.component.removeprefix('the ')} {story.metric.name}")
    words = content_words(text)
    grades = {}
    for draft in t.all():
        share = len(words & content_words(draft.content)) / len(words)
        if share >= 0.99 and draft.role in CORE:
            grades[draft.id] = 3
        elif share >= 0.6:
            grades[draft.id] = 2
        elif share >= 0.34 and draft.role in CORE:
            grades[draft.id] = 1
    if not any(g >= 2 for g in grades.values()):
        return None
    return _query(ctx, text, grades)


def _paraphrase(ctx: _Ctx, t: Trace, variant: int) -> dict:
    # The paraphrase retells the storyline's symptom in a user's words, so the memories
    # stating that symptom are its target; what explains or settled it is relevant too.
    strained = t.first("decision2") is not None
    grades = _merge(
        _ids(t.get("symptom"), grade=3),
        _ids(t.final_decision, t.get("cause"), grade=2),
        _ids(t.get("decision_context2" if strained else "decision_context"), t.get("lesson"),
             t.get("topic"), t.get("reflection"),
             t.get("decision_context") if strained else None, grade=1),
    )
    return _query(ctx, t.story.paraphrase, grades)


def _filtered(ctx: _Ctx, t: Trace, kind: int) -> dict | None:
    story = t.story
    if kind == 0:
        return _query(ctx, f"what did we decide about {story.topic}",
                      _ids(t.final_decision, grade=3), {"memory_type": "decision"})
    if kind == 1:
        agents = [d.session.agent for d in t.all()]
        agent = max(sorted(set(agents)), key=agents.count)
        return _query(ctx, story.topic, _story_grades(t), {"agent": agent})
    if kind == 2:
        tag = story.tags[0]
        grades = {d.id: 3 if d.story and ctx.b.traces[d.story].story.tags[0] == tag else 2
                  for d in ctx.b.drafts if d.role in ("decision", "decision2")}
        return _query(ctx, f"{tag} decisions", grades,
                      {"project": story.project, "memory_type": "decision", "tags": [tag]})
    if kind == 3:
        return _query(ctx, f"lessons from {story.topic}", _ids(t.get("lesson"), grade=3),
                      {"memory_type": "lesson"})
    if kind == 4:
        if t.first("decision2") is None:
            return None
        return _query(ctx, f"original approach to {story.topic} before we changed it",
                      _ids(t.first("decision"), grade=3), {"status": "superseded"})
    if kind == 5:
        grades = _merge(_ids(t.get("cause"), grade=3),
                        _ids(t.final_decision, t.get("decision_context"), grade=2),
                        _ids(t.get("symptom"), grade=1))
        return _query(ctx, f"root cause of {story.topic}", grades, {"tags": [story.tags[-1]]})
    if kind == 6:
        return _query(ctx, story.topic, _story_grades(t), {"repo": story.repo})
    decision = t.first("decision")
    if decision is None:
        return None
    session = decision.session
    summary = ctx.b.summaries[session.id]
    grades = _merge(_ids(summary, grade=3), _ids(
        [d for d in ctx.b.by_session[session.id] if d.role in ("decision", "decision2")],
        grade=2))
    return _query(ctx, "what was worked on and decided in this session", grades,
                  {"session_id": session.id})


def _story_grades(t: Trace) -> dict[str, int]:
    return _merge(_ids(t.final_decision, t.get("topic"), grade=3),
                  _ids(t.get("decision_context"), t.get("decision_context2"), t.get("cause"),
                       grade=2),
                  _ids(t.get("symptom"), t.get("verify"), t.get("lesson"), grade=1))


#: Supporting memories of these types are reasons for a decision (not after-the-fact checks).
REASON_TYPES = ("decision_context", "pattern", "preference", "principle", "decision")


def _why(ctx: _Ctx, t: Trace, variant: int) -> dict | None:
    story = t.story
    if t.first("decision2") is not None:
        target = t.first("decision2")
        text = f"why did we move {story.component} from {story.choice} to {story.later}?"
    else:
        target = t.first("decision")
        text = (f"why did we choose {story.choice} for {story.component}?",
                f"why {story.choice} instead of {story.old}?",
                f"what led to the decision on {story.topic}?",
                f"what was wrong with {story.old}?")[variant]
    if target is None:
        return None
    grades = {target.id: 3}
    hop1 = []
    for edge in ctx.edges:
        if edge.target_id != target.id:
            continue
        source = ctx.memories[edge.source_id]
        if edge.relation == "caused" or (edge.relation == "supports"
                                         and source.memory_type in REASON_TYPES):
            grades.setdefault(source.id, 2)
            hop1.append(source.id)
    for edge in ctx.edges:
        if edge.relation not in ("caused", "derived_from"):
            continue
        for near, far in ((edge.source_id, edge.target_id), (edge.target_id, edge.source_id)):
            if near in hop1 and far not in grades:
                grades[far] = 1
    return _query(ctx, text, grades)


def _extra(ctx: _Ctx) -> list[dict]:
    """Hand-written queries for agent patterns (keyword) and rules (filtered)."""
    out = []
    for entry, pattern, observations in ctx.b.patterns[::2]:
        query = _query(ctx, entry.query, _merge(_ids(pattern, grade=3),
                                                _ids(observations, grade=2)))
        out.append(dict(query, tags=["keyword", entry.tags[0]]))
    for rule, draft in ctx.b.constitutional[:4]:
        query = _query(ctx, rule.query, _ids(draft, grade=3), {"importance": "constitutional"})
        out.append(dict(query, tags=["filtered", rule.tags[0]]))
    return out
