"""`write_graph`: the tenant's graph as GraphML (Gephi, yEd) or JSON, written atomically."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from memory_core.model.errors import GraphError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore

FORMATS = ("graphml", "json")
LABEL_CHARS = 80
#: Characters XML 1.0 cannot hold at all (not even escaped): written out as <U+XXXX>.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(value: Any) -> Any:
    """`value` with the characters XML cannot hold written out (text only).

    >>> xml_safe("bell\x07")
    'bell<U+0007>'
    """
    if not isinstance(value, str):
        return value
    return _NOT_XML.sub(lambda m: f"<U+{ord(m.group()):04X}>", value)


def _node_attrs(memory: Memory) -> dict[str, Any]:
    # GraphML takes text and numbers only: a missing value is the empty string
    return {"label": memory.content[:LABEL_CHARS], "content": memory.content,
            "memory_type": memory.memory_type, "project": memory.project or "",
            "agent": memory.agent or "", "status": memory.status,
            "importance": memory.importance, "created_at": memory.created_at.isoformat(),
            "tags": ", ".join(memory.tags)}


def write_graph(store: MemoryStore, path: Path | str, *, format: str = "graphml",
                filter: Filter | None = None) -> int:
    """Write the memories `filter` selects (active ones by default) and the active edges
    between them to `path`; returns how many edges were written."""
    import networkx as nx

    if format not in FORMATS:
        raise GraphError(f"unknown graph format {shown(format)}; use one of: "
                         f"{', '.join(FORMATS)}")
    memories = {m.id: m for m in store.iter_memories(filter)}
    # GraphML (XML) cannot hold some characters at all, ids included: written out there
    safe = xml_safe if format == "graphml" else (lambda value: value)
    graph = nx.MultiDiGraph()
    for memory_id in sorted(memories):
        graph.add_node(safe(memory_id), **{k: safe(v) for k, v in
                                           _node_attrs(memories[memory_id]).items()})
    count = 0
    for edge in store.edges.list():
        if edge.source_id in memories and edge.target_id in memories:
            attrs = {"id": edge.id, "relation": edge.relation,
                     "strength": float(edge.strength), "decay_rate": float(edge.decay_rate),
                     "evidence": "; ".join(edge.evidence),
                     "created_at": edge.created_at.isoformat()}
            graph.add_edge(safe(edge.source_id), safe(edge.target_id), key=safe(edge.id),
                           **{k: safe(v) for k, v in attrs.items()})
            count += 1
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    try:
        if format == "graphml":
            nx.write_graphml(graph, partial)
        else:
            data = nx.node_link_data(graph, edges="edges")
            partial.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1),
                               encoding="utf-8")
    except (OSError, ValueError) as exc:
        partial.unlink(missing_ok=True)
        raise GraphError(f"cannot write the graph to {shown(str(target))}: {exc}") from exc
    os.replace(partial, target)
    return count
