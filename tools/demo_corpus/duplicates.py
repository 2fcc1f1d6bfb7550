"""Re-recorded memories for dedup tools to find: exact copies and near copies (HADES's
content_hash dedup). Each copy names its original in `metadata["duplicate_of"]` and says
`metadata["duplicate_kind"]`: "exact" (same content hash; some differ only in whitespace,
which the hash normalises away) or "near" (a small rewording, so a different hash)."""

from __future__ import annotations

from collections.abc import Callable

from memory_core.model.values import content_hash
from tools.demo_corpus.builder import Builder, Draft

EXACT = 30
NEAR = 30
#: Types an agent plausibly records again in a later session.
TYPES = ("observation", "fact", "lesson", "preference", "learning", "insight", "principle",
         "pattern")

_EDITS: tuple[Callable[[str], str], ...] = (
    lambda t: t[:-1] if t.endswith(".") else t + ".",
    lambda t: "Noted again: " + t[:1].lower() + t[1:],
    lambda t: t.replace(" because ", " since ", 1),
    lambda t: t.replace("; ", ". ", 1),
    lambda t: t.replace(", ", " - ", 1),
    lambda t: t.replace(" the ", " ", 1),
    lambda t: t + " (seen again)",
    lambda t: t.replace(" and ", " & ", 1),
    lambda t: t.replace(" is ", " was ", 1),
)


def near_variant(builder: Builder, text: str) -> str:
    """`text` with one or two small edits that change its content hash."""
    original = content_hash(text)
    variant = text
    for index in builder.rng.sample(range(len(_EDITS)), len(_EDITS)):
        edited = _EDITS[index](variant)
        if content_hash(edited) != original:
            variant = edited
            if not builder.chance(0.3):
                break
    return variant


def _whitespace_variant(builder: Builder, text: str) -> str:
    # Same words, different spacing: an exact duplicate once whitespace is normalised.
    words = text.split(" ")
    i = builder.rng.randrange(1, len(words)) if len(words) > 1 else 0
    return " ".join(words[:i]) + "  " + " ".join(words[i:]) + "\n"


def plan_duplicates(b: Builder) -> None:
    """Copy `EXACT` + `NEAR` memories into later sessions of the same project."""
    later: dict[str, list] = {}
    candidates: list[Draft] = []
    for draft in b.drafts:
        if (draft.memory_type in TYPES and draft.status == "active"
                and draft.importance != "constitutional"):
            sessions = later.setdefault(draft.session.id, [
                s for s in b.project_sessions(draft.session.project)
                if s.index > draft.session.index
            ])
            if sessions:
                candidates.append(draft)
    for n, original in enumerate(b.rng.sample(candidates, EXACT + NEAR)):
        session = b.rng.choice(later[original.session.id][:6])
        if n < EXACT:
            kind = "exact"
            text = _whitespace_variant(b, original.content) if n % 5 == 0 else original.content
        else:
            kind = "near"
            text = near_variant(b, original.content)
        metadata = dict(original.metadata, duplicate_of=original.id, duplicate_kind=kind)
        copy = b.add(text, original.memory_type, session, original.tags, repo=original.repo,
                     why=original.why, source=original.source, importance=original.importance,
                     metadata=metadata, story=original.story, role="duplicate")
        b.duplicates.setdefault(original.id, []).append(copy)
