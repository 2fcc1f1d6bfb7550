"""`memlens why | link | unlink | graph health | graph export`: the causal graph from the
command line (docs/design/graph.md).

`why` prints what led to a memory and what it led to as indented trees (relation, decayed
strength, shortened content), its supersession chain, the contradictions touching it and the
causal cycles met. `link` / `unlink` write one edge each as an audited batch (`memlens undo`
reverses it; `--dry-run` previews). `graph health` counts each finding with its first ids;
`graph export` writes GraphML (Gephi, yEd) or JSON. Memory text is untrusted: everything
printed goes through `echo`, values are shortened.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.curation_flow import act
from memory_core.cli.options import (
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    refuse_empty,
    store_options,
)
from memory_core.cli.output import echo, emit_json, shorten

if TYPE_CHECKING:
    from memory_core.causal import Contradiction, Lineage, LineagePath, SupersessionChain
    from memory_core.model.records import Memory
    from memory_core.store import MemoryStore

#: Characters of content a tree line shows (the first line of the memory).
CONTENT_CHARS = 60
#: Ids a health finding lists before "... and N more" (`--json` has them all).
FIRST_IDS = 3
#: Entries of a finding's breakdown (orphans by type) printed.
FIRST_KINDS = 8
#: What `graph export` writes, and the file it writes without --output.
FORMATS = {"graphml": "graph.graphml", "json": "graph.json"}


# -- why -----------------------------------------------------------------------------------

def _first_line(memory: Memory | None, memory_id: str) -> str:
    """`id  type  date  content` for a tree line; an id the store lacks says so."""
    if memory is None:
        return f"{memory_id}  (not in this tenant)"
    lines = memory.content.strip().splitlines()
    text = shorten(lines[0], CONTENT_CHARS) if lines else ""
    status = "" if memory.status == "active" else f" [{memory.status}]"
    return f"{memory.id}  {memory.memory_type}{status}  {memory.created_at:%Y-%m-%d}  {text}"


def _walk(focus: str, path: LineagePath) -> list[tuple[str, str, float]]:
    """(memory id, relation, decayed strength) of each hop from the focus outwards, whatever
    order the steps come in (a step is oriented cause -> effect, not focus -> outwards)."""
    hops, here, left = [], focus, list(path.steps)
    while left:
        step = next((s for s in left if here in (s.cause_id, s.effect_id)), left[0])
        left.remove(step)
        here = step.cause_id if step.effect_id == here else step.effect_id
        hops.append((here, step.relation, step.decayed_strength))
    return hops


def _tree(focus: str, paths: Sequence[LineagePath], rows: dict[str, Memory],
          arrow: str) -> None:
    """The paths as one indented tree under the focus, children strongest first."""
    trie: dict[tuple[str, ...], tuple[str, float]] = {}
    for path in sorted(paths, key=lambda p: (p.hops, -p.strength, p.memory_id)):
        key: tuple[str, ...] = ()
        for memory_id, relation, strength in _walk(focus, path):
            key = (*key, memory_id)
            trie.setdefault(key, (relation, strength))
    for key in sorted(trie, key=lambda k: [(-trie[k[:i + 1]][1], k[i]) for i in range(len(k))]):
        relation, strength = trie[key]
        link = arrow.format(relation=relation, strength=strength)
        echo(f"{'  ' * len(key)}{link} {_first_line(rows.get(key[-1]), key[-1])}")


def _print_chain(chain: SupersessionChain, focus: str) -> None:
    if len(chain.chain) < 2 and not chain.forks and not chain.cycle:
        echo("supersession: none")
        return
    members = [f"[{m}]" if m == focus else m for m in chain.chain]
    echo(f"supersession (oldest -> current): {' -> '.join(members)}")
    for fork in chain.forks:
        echo(f"  fork: {fork.memory_id} is superseded by {', '.join(fork.successors)}")
    if chain.cycle:
        echo("  cycle: the chain comes back to one of its members (not followed round)")


def _print_contradictions(found: Sequence[Contradiction], focus: str) -> None:
    echo(f"contradictions: {len(found) or 'none'}")
    for c in found:
        other = c.b if c.a.memory_id == focus else c.a
        text = shorten(other.content.strip().replace("\n", " "), CONTENT_CHARS)
        state = "both active" if c.both_active else f"it is {other.status}"
        newer = "newer" if c.newer == focus else "older"
        stronger = "stronger" if c.stronger == focus else "weaker"
        echo(f"  {other.memory_id}  {state}; this one is {newer} and {stronger}  "
             f"(edge {c.edge_id})  {text}")


def _print_why(store: MemoryStore, found: Lineage, chain: SupersessionChain,
               disagree: Sequence[Contradiction]) -> None:
    focus = found.memory_id
    ids = {focus, *chain.chain}
    for path in (*found.ancestors, *found.descendants):
        ids |= {x for s in path.steps for x in (s.cause_id, s.effect_id)}
    rows = store.get_many(sorted(ids))
    echo(_first_line(rows.get(focus), focus))
    relations = ", ".join(found.relations)
    echo(f"what led to it ({len(found.ancestors)} ancestors, depth {found.depth}; "
         f"{relations}):")
    _tree(focus, found.ancestors, rows, "<-[{relation} {strength:.2f}]-")
    echo(f"what it led to ({len(found.descendants)} descendants):")
    _tree(focus, found.descendants, rows, "-[{relation} {strength:.2f}]->")
    _print_chain(chain, focus)
    _print_contradictions(disagree, focus)
    if found.cycles:
        echo(f"causal cycles (reported, not followed): {len(found.cycles)}")
        for cycle in found.cycles:
            echo(f"  {' -> '.join(cycle)}")


def _contradictions_of(store: MemoryStore, memory_id: str) -> list[Contradiction]:
    """The `contradicts` pairs with `memory_id` on one side, whatever the sides' status."""
    from memory_core.causal import contradictions
    from memory_core.model.filters import Filter
    from memory_core.model.schema import STATUSES

    if not any(e.relation == "contradicts" for e in store.edges.list(memory_id=memory_id)):
        return []
    pairs = contradictions(store, Filter(ids=[memory_id], status=STATUSES))
    return [c for c in pairs if memory_id in (c.a.memory_id, c.b.memory_id)]


@click.command()
@store_options
@click.argument("memory_id")
@click.option("--depth", default=3, show_default=True, type=click.IntRange(min=1),
              help="Hops to follow each way.")
@click.option("--relation", "relations", multiple=True,
              callback=refuse_empty("for the causal ones"),
              help="A relation to follow (default: caused, enabled, supports, derived_from); "
                   "repeat for several.")
@json_option("Print the lineage, supersession chain and contradictions as JSON.")
@click.pass_context
def why(ctx: click.Context, memory_id: str, depth: int, relations: tuple[str, ...],
        as_json: bool) -> None:
    """Why the agents believe MEMORY_ID: what led to it and what it led to (with each edge's
    relation and decayed strength), what replaced it or what it replaced, and which memories
    contradict it. Causal cycles are reported, never followed round."""
    from memory_core.causal import CAUSAL, lineage, supersession_chain

    store = open_store(ctx, require_tenant=True)
    found = lineage(store, memory_id, depth=depth, relations=relations or tuple(CAUSAL))
    chain = supersession_chain(store, memory_id)
    disagree = _contradictions_of(store, memory_id)
    if as_json:
        emit_json({"memory_id": memory_id, "lineage": found.to_dict(),
                   "supersession": chain.to_dict(),
                   "contradictions": [c.to_dict() for c in disagree]})
        return
    _print_why(store, found, chain, disagree)


# -- link, unlink --------------------------------------------------------------------------

def _write_options(fn: Any) -> Any:
    """`--reason`, `--dry-run` and `--json` of an edge write (one edge: nothing to confirm)."""
    fn = json_option("Print the report (or with --dry-run the preview) as JSON.")(fn)
    fn = click.option("--dry-run", is_flag=True,
                      help="Print what would change and write nothing.")(fn)
    return click.option("--reason", callback=refuse_empty("to give no reason"),
                        help="Why: kept in the audit log.")(fn)


@click.command()
@store_options
@click.argument("source")
@click.argument("relation")
@click.argument("target")
@click.option("--strength", default=1.0, show_default=True, type=click.FloatRange(0.0, 1.0),
              help="How strong the link is, 0 to 1.")
@click.option("--evidence", multiple=True, callback=refuse_empty("for no evidence"),
              help="What shows the link (a commit, a URL, a quote); repeat for several.")
@_write_options
@click.pass_context
def link(ctx: click.Context, source: str, relation: str, target: str, strength: float,
         evidence: tuple[str, ...], reason: str | None, dry_run: bool, as_json: bool) -> None:
    """Add the edge SOURCE -RELATION-> TARGET (caused, enabled, supersedes, contradicts,
    derived_from, supports, uses, relates_to, improves).

    Both memories must be in the tenant and differ. The edge is an audited batch:
    `memlens undo BATCH` removes it again."""
    from memory_core.causal import link as link_edge

    store = open_store(ctx, require_tenant=True)
    act(ctx, store, link_edge, source, relation, target, strength=strength,
        evidence=evidence, reason=reason, yes=True, dry_run=dry_run, as_json=as_json,
        expect=False)


@click.command()
@store_options
@click.argument("edge_id")
@_write_options
@click.pass_context
def unlink(ctx: click.Context, edge_id: str, reason: str | None, dry_run: bool,
           as_json: bool) -> None:
    """Remove the edge EDGE_ID (ids: `memlens show MEMORY_ID`, `memlens why --json`).

    The removal is an audited batch: `memlens undo BATCH` brings the edge back."""
    from memory_core.causal import unlink as unlink_edge

    store = open_store(ctx, require_tenant=True)
    act(ctx, store, unlink_edge, edge_id, reason=reason, yes=True, dry_run=dry_run,
        as_json=as_json, expect=False)


# -- graph health, graph export ------------------------------------------------------------

@click.group()
def graph() -> None:
    """The tenant's graph as a whole: health findings and exports for Gephi / yEd."""


@graph.command()
@store_options
@json_option("Print every finding with all its ids as JSON.")
@click.pass_context
def health(ctx: click.Context, as_json: bool) -> None:
    """Orphans, dangling edges, edges touching archived or superseded memories, causal
    cycles, self loops, duplicate edges, superseded memories with no successor and
    reflections whose evidence changed: how many of each, and the first ids."""
    from memory_core.causal import graph_health

    store = open_store(ctx, require_tenant=True)
    report = graph_health(store)
    if as_json:
        emit_json(report.to_dict())
        return
    echo(f"{report.memories} memories, {report.edges} edges")
    width = max((len(f.kind) for f in report.findings), default=0)
    for f in report.findings:
        echo(f"{f.kind:<{width}}  {f.count:>7}  {f.description}")
        if not f.ids:
            continue
        for line in _breakdown(f.detail):
            echo(f"    {line}")
        more = f" … and {f.count - FIRST_IDS} more" if f.count > FIRST_IDS else ""
        echo(f"    {', '.join(f.ids[:FIRST_IDS])}{more}")


def _breakdown(detail: dict[str, Any]) -> list[str]:
    """A finding's detail as lines: counts by name (`by_type: decision 4, ...`), the
    length of a list (`groups: 2`)."""
    lines = []
    for key, value in detail.items():
        if isinstance(value, dict):
            parts = [f"{name} {n}" for name, n in list(value.items())[:FIRST_KINDS]]
            more = f" … and {len(value) - FIRST_KINDS} more" if len(value) > FIRST_KINDS else ""
            lines.append(f"{key.replace('_', ' ')}: {', '.join(parts)}{more}")
        elif isinstance(value, list | tuple):
            lines.append(f"{key.replace('_', ' ')}: {len(value)}")
    return lines


@graph.command()
@store_options
@click.option("--format", "fmt", type=click.Choice(tuple(FORMATS)), default="graphml",
              show_default=True, help="GraphML (Gephi, yEd) or JSON (nodes and edges).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path),
              help="The file to write (default: graph.graphml or graph.json here).")
@filter_options(status_default="active")
@json_option("Print the file written and the edge count as JSON.")
@click.pass_context
def export(ctx: click.Context, fmt: str, output: Path | None, as_json: bool,
           **filters: Any) -> None:
    """Write the tenant's graph (the memories the filter options select, and the edges
    between them) as GraphML for Gephi or yEd, or as JSON."""
    from memory_core.causal import write_graph

    flt = filter_from_options(filters) if any(filters.values()) else None
    path = output or Path(FORMATS[fmt])
    store = open_store(ctx, require_tenant=True)
    written = write_graph(store, path, format=fmt, filter=flt)
    if as_json:
        emit_json({"path": str(path), "format": fmt, "edges": written})
        return
    echo(f"wrote {written} edge{'s' if written != 1 else ''} to {path} ({fmt})")


#: What `memory_core.cli` registers from this family (the `graph` group holds the rest).
COMMANDS: tuple[click.Command, ...] = (why, link, unlink, graph)
