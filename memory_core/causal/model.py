"""What the causal-graph explorer returns: plain, frozen values (docs/design/graph.md).

Pages, the CLI and notebooks read these; `Neighbourhood.to_networkx()` gives notebooks a
`networkx.MultiDiGraph`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx
    import polars as pl

#: Relations that say what led to what (docs/design/graph.md), and for each whether the cause is
#: the edge's source (`A caused B`) or its target (`R derived_from O`: O led to R).
CAUSAL: dict[str, bool] = {"caused": True, "enabled": True, "supports": True,
                           "derived_from": False}


@dataclass(frozen=True)
class LineageStep:
    """One edge walked, oriented cause -> effect (`cause_id` led to `effect_id`)."""

    edge_id: str
    relation: str
    cause_id: str
    effect_id: str
    strength: float
    decayed_strength: float


@dataclass(frozen=True)
class LineagePath:
    """A memory reached from the focus: the path to it, its hops and its strength (the
    product of the decayed strengths along the path)."""

    memory_id: str
    hops: int
    steps: tuple[LineageStep, ...]
    strength: float


@dataclass(frozen=True)
class Lineage:
    """What led to a memory (`ancestors`) and what it led to (`descendants`), each memory once
    by its strongest shortest path; `cycles` lists each causal cycle met (node ids, first
    repeated at the end), never followed round."""

    memory_id: str
    depth: int
    relations: tuple[str, ...]
    ancestors: tuple[LineagePath, ...]
    descendants: tuple[LineagePath, ...]
    cycles: tuple[tuple[str, ...], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LineageFork:
    """A memory superseded by more than one successor."""

    memory_id: str
    successors: tuple[str, ...]


@dataclass(frozen=True)
class SupersessionChain:
    """oldest -> current along `supersedes`, from whichever member one starts; forks (two
    successors) and cycles are reported, not followed."""

    memory_id: str
    chain: tuple[str, ...]
    forks: tuple[LineageFork, ...] = ()
    cycle: bool = False

    @property
    def current(self) -> str:
        return self.chain[-1]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "current": self.current}


@dataclass(frozen=True)
class ContradictionSide:
    """One side of a contradiction."""

    memory_id: str
    status: str
    created_at: datetime
    importance: str
    confidence: float | None
    composite: float
    content: str


@dataclass(frozen=True)
class Contradiction:
    """A `contradicts` edge with both sides; which is newer and which is stronger (higher
    decay composite, then confidence)."""

    edge_id: str
    a: ContradictionSide
    b: ContradictionSide
    both_active: bool
    newer: str
    stronger: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GraphNode:
    """A memory in a neighbourhood (content cut to 200 characters: untrusted text)."""

    id: str
    memory_type: str
    project: str | None
    agent: str | None
    status: str
    importance: str
    composite: float
    created_at: datetime
    content: str
    focus: bool = False
    hops: int = 0


@dataclass(frozen=True)
class GraphEdge:
    """An edge in a neighbourhood."""

    id: str
    source_id: str
    target_id: str
    relation: str
    strength: float
    decayed_strength: float
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Neighbourhood:
    """A subgraph around focus memories: nodes, edges, and how many nodes the cap left out
    (and by what rule)."""

    focus: tuple[str, ...]
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    left_out: int = 0
    rule: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_frame(self) -> pl.DataFrame:
        """The nodes as a polars frame (one row per memory, focus first, then by hops)."""
        import polars as pl

        rows = [asdict(n) for n in self.nodes]
        return pl.DataFrame(rows, schema=None if rows else [f.name for f in fields(GraphNode)])

    def edges_frame(self) -> pl.DataFrame:
        """The edges as a polars frame."""
        import polars as pl

        rows = [{**asdict(e), "evidence": "; ".join(e.evidence)} for e in self.edges]
        return pl.DataFrame(rows, schema=None if rows else [f.name for f in fields(GraphEdge)])

    def to_networkx(self) -> nx.MultiDiGraph:
        """The subgraph as a networkx multigraph (node and edge attributes from the fields)."""
        import networkx as nx

        graph = nx.MultiDiGraph()
        for node in self.nodes:
            attrs = asdict(node)
            graph.add_node(attrs.pop("id"), **attrs)
        for edge in self.edges:
            attrs = asdict(edge)
            graph.add_edge(attrs.pop("source_id"), attrs.pop("target_id"), key=attrs["id"],
                           **attrs)
        return graph


@dataclass(frozen=True)
class HealthFinding:
    """One kind of graph-health problem and the ids it concerns."""

    kind: str
    description: str
    ids: tuple[str, ...] = ()
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class GraphHealth:
    """Every finding of `graph_health`, in a fixed order of kinds."""

    memories: int
    edges: int
    findings: tuple[HealthFinding, ...]

    def finding(self, kind: str) -> HealthFinding:
        return next(f for f in self.findings if f.kind == kind)

    def to_frame(self) -> pl.DataFrame:
        """kind, description and count of each finding, as a polars frame."""
        import polars as pl

        return pl.DataFrame([{"kind": f.kind, "description": f.description, "count": f.count}
                             for f in self.findings])

    def to_dict(self) -> dict[str, Any]:
        return {"memories": self.memories, "edges": self.edges,
                "findings": [{**asdict(f), "count": f.count} for f in self.findings]}
