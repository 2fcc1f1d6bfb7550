"""The focus memory's story: what led to it and what it led to ("A caused B enabled C"), and
its supersession chain, oldest to current. Memory text is escaped by `md`/`badges`."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from memlens_app.widgets.common.markup import badges, md
from memlens_app.widgets.graph.data import short
from memory_core import Lineage, LineagePath, Memory, SupersessionChain

#: How each causal relation reads from cause to effect (derived_from points effect -> cause).
VERBS = {"caused": "caused", "enabled": "enabled", "supports": "supports",
         "derived_from": "is the source of"}
SHOWN = 6


def _memory(memory_id: str, focus: str, known: Mapping[str, Memory]) -> str:
    if memory_id == focus:
        return "**this memory**"
    m = known.get(memory_id)
    if m is None:
        return f"{md(memory_id)} (not in this tenant)"
    marks = [("blue", m.memory_type)] + ([("red", m.status)] if m.status != "active" else [])
    return f"{badges(marks)} {md(short(m.content, 48))}"


def path_line(path: LineagePath, focus: str, known: Mapping[str, Memory]) -> str:
    """One path as a sentence from the first cause to the last effect."""
    steps = path.steps if path.steps[0].cause_id == focus else tuple(reversed(path.steps))
    words = [_memory(steps[0].cause_id, focus, known)]
    for step in steps:
        words += [f"*{VERBS.get(step.relation, md(step.relation))}*",
                  _memory(step.effect_id, focus, known)]
    hops = "1 hop" if path.hops == 1 else f"{path.hops} hops"
    return f"{hops}, strength {path.strength:.2f}: " + " ".join(words)


def longest(paths: tuple[LineagePath, ...]) -> list[LineagePath]:
    """The paths no other path extends (a path to X through Y already tells Y's story),
    longest first, then strongest."""
    prefixes = {p.steps[:n] for p in paths for n in range(1, len(p.steps))}
    return sorted((p for p in paths if p.steps not in prefixes),
                  key=lambda p: (-p.hops, -p.strength, p.memory_id))


def _paths(title: str, paths: tuple[LineagePath, ...], focus: str,
           known: Mapping[str, Memory]) -> None:
    st.markdown(f"**{title}** ({len(paths)} {'memory' if len(paths) == 1 else 'memories'})")
    if not paths:
        st.caption("None within the depth.")
        return
    stories = longest(paths)
    st.markdown("\n".join(f"{i}. {path_line(p, focus, known)}"
                          for i, p in enumerate(stories[:SHOWN], 1)))
    if len(stories) > SHOWN:
        st.caption(f"…and {len(stories) - SHOWN} more paths.")


def lineage_panel(story: Lineage, known: Mapping[str, Memory]) -> None:
    """Ancestors and descendants of the focus as numbered paths; causal cycles warned."""
    st.caption(f"over {', '.join(story.relations)}, up to {story.depth} hops; strength is the "
               f"product of the decayed edge strengths")
    _paths("What led to it", story.ancestors, story.memory_id, known)
    _paths("What it led to", story.descendants, story.memory_id, known)
    for cycle in story.cycles:
        st.warning("Causal cycle: " + " → ".join(md(short(i, 13)) for i in cycle))


def chain_panel(chain: SupersessionChain, known: Mapping[str, Memory]) -> None:
    """The supersession chain through the focus, oldest first, forks and cycles said."""
    if len(chain.chain) == 1 and not chain.forks:
        st.caption("Not part of a supersession chain: nothing replaced it, it replaced "
                   "nothing.")
        return
    lines = []
    for i, memory_id in enumerate(chain.chain, 1):
        tags = [("orange", "current")] if memory_id == chain.current else []
        focus = " ★" if memory_id == chain.memory_id else ""
        lines.append(f"{i}. {_memory(memory_id, '', known)}{focus} {badges(tags)}")
    st.markdown("\n".join(lines))
    for fork in chain.forks:
        st.warning(f"Fork: {md(short(fork.memory_id, 13))} was superseded by "
                   f"{len(fork.successors)} memories; the chain follows the newest.")
    if chain.cycle:
        st.warning("The supersedes edges form a cycle; the walk stopped there.")


def lineage_ids(story: Lineage, chain: SupersessionChain) -> list[str]:
    """Every memory the two panels name (to fetch their content once)."""
    ids = {s.cause_id for p in (*story.ancestors, *story.descendants) for s in p.steps}
    ids |= {s.effect_id for p in (*story.ancestors, *story.descendants) for s in p.steps}
    return sorted(ids | set(chain.chain))
