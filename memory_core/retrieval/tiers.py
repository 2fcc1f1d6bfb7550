"""Output tiers for recall and the Search page: how much of a memory to send.

The four tiers follow ADR-006 (docs/design/seeds.md):

* minimal: id, type and the first line (about 100 characters): quick checks.
* compact: plus project, agent and tags, content cut at 200 characters.
* standard (default): the content up to `SHOWN_CHARS` characters (the whole of nearly every
  memory; a longer one is cut and says its length in `content_chars`), why, tags, project,
  agent, date.
* full: every field of the memory (no vector) and the ranking explanation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_core.model.errors import InvalidConfigError
from memory_core.model.records import Memory
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    from memory_core.retrieval.results import Hit

TIERS: tuple[str, ...] = ("minimal", "compact", "standard", "full")
#: Characters of content the standard tier sends, and that `memlens show` and the app's
#: result cards and Details show before their "show all" control (`show --full`, the pages'
#: "Show all" toggle): a 1 MB memory would otherwise be sent, printed or rendered whole.
SHOWN_CHARS = 2000


def cut_content(text: str, limit: int = SHOWN_CHARS) -> tuple[str, int]:
    """(`text` cut to `limit` characters, the last an ellipsis when cut; the length of
    `text` when it was cut, else 0).

    >>> cut_content("abcdef", 4)
    ('abc…', 6)
    >>> cut_content("abc", 4)
    ('abc', 0)
    """
    return (text, 0) if len(text) <= limit else (text[: limit - 1] + "…", len(text))


def _first_line(text: str, width: int) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def check_tier(tier: str) -> str:
    """`tier` if known, else `InvalidConfigError` naming the tiers."""
    if tier not in TIERS:
        raise InvalidConfigError(
            f"unknown output tier {shown(tier)}; use one of: {', '.join(TIERS)}")
    return tier


def render_tier(memory: Memory, tier: str = "standard", hit: Hit | None = None) -> dict[str, Any]:
    """The fields of `memory` that `tier` sends, as plain data."""
    check_tier(tier)
    if tier == "minimal":
        return {"id": memory.id, "type": memory.memory_type,
                "line": _first_line(memory.content, 100)}
    if tier == "compact":
        return {"id": memory.id, "type": memory.memory_type, "project": memory.project,
                "agent": memory.agent, "tags": list(memory.tags),
                "content": _cut(memory.content, 200)}
    if tier == "standard":
        content, total = cut_content(memory.content)
        item: dict[str, Any] = {
            "id": memory.id, "type": memory.memory_type, "content": content, "why": memory.why,
            "tags": list(memory.tags), "project": memory.project, "agent": memory.agent,
            "created": memory.created_at.date().isoformat()}
        if total:
            item["content_chars"] = total
        return item
    from memory_core.model.canonical import memory_doc

    doc = memory_doc(memory)
    doc.pop("kind", None)
    if hit is not None:
        doc["explanation"] = hit.explain()
    return doc


def render_text(item: dict[str, Any]) -> str:
    """One rendered item as the recall tool prints it (Make_Skills' format)."""
    head = item.get("line") or item.get("content") or ""
    lines = [f"[{item.get('type') or item.get('memory_type')}] {head}"]
    if item.get("tags"):
        lines.append(f"   - tags: {', '.join(item['tags'])}")
    if item.get("why"):
        lines.append(f"   - why: {item['why']}")
    if item.get("project") and "line" not in item:
        lines.append(f"   - project: {item['project']}")
    if item.get("content_chars"):
        lines.append(f"   - cut: the first {SHOWN_CHARS:,} of {item['content_chars']:,} "
                     f"characters (the full tier sends all)")
    return "\n".join(lines)
