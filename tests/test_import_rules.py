"""The layers of docs/design/index.md as data, and the rules they imply, checked on the code.

A module of `memory_core` imports only from its own layer or below; no two units (folders or
top-level modules, see `LAYERS`) import each other, directly or round a loop; no two modules do
either, not even inside one package (a part of the store depends on what it is given, not on
the class that owns it).
Imports under `if TYPE_CHECKING:` count for every rule: a type is a dependency too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "memory_core"

#: Lowest first: (layer, the units of memory_core in it). A unit is a top-level module or
#: package, or a part of a package named by its dotted path below `memory_core` when the
#: package spans two places in the order: `decay` holds the formulas retrieval ranks with and
#: `decay.analysis` the analytics that rank with retrieval; `causal.expansion` is the graph
#: expansion retrieval uses, `causal` the rest, which writes edges through curation. Each
#: module belongs to the longest unit its name starts with.
#: `seeding` loads the demo corpus through the importer. The generator of that corpus is
#: outside the engine (`tools/demo_corpus`, not shipped): no layer holds it, and memory_core
#: never imports it (tests/test_layering.py).
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("model", frozenset({"model"})),
    ("embedding", frozenset({"embedding"})),
    ("store", frozenset({"store"})),
    ("engines", frozenset({"retrieval", "decay", "decay.analysis", "causal.expansion",
                           "exchange", "adapters", "reembed", "stats", "curation", "causal",
                           "projection", "distributed", "integrity", "consolidation"})),
    ("evaluation", frozenset({"evaluation", "bench", "viz", "agents", "impact_preview"})),
    ("edge", frozenset({"cli", "seeding"})),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


UNITS = frozenset(unit for _, units in LAYERS for unit in units)


def _unit(module: str) -> str:
    """The unit of `memory_core` a module belongs to: the longest in `UNITS` that is it or
    holds it, else its top-level module or package."""
    parts = module.split(".")[1:]
    for end in range(len(parts), 1, -1):
        if ".".join(parts[:end]) in UNITS:
            return ".".join(parts[:end])
    return parts[0] if parts else module


def import_graph(*, with_type_checking: bool) -> dict[str, set[str]]:
    """module -> the memory_core modules it imports."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                typing_only.update(id(n) for n in ast.walk(node))
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only and not with_type_checking:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        graph[name] = {m for m in found if m in modules and m != name
                       # a package's own __init__, unless it is another unit's
                       and not (name.startswith(m + ".") and _unit(m) == _unit(name))}
    return graph


def upward_imports(graph: Mapping[str, Iterable[str]],
                   layers: tuple[tuple[str, frozenset[str]], ...]) -> list[str]:
    """`a imports b` lines where b's layer is above a's (the package root is exempt)."""
    rank = {unit: i for i, (_, units) in enumerate(layers) for unit in units}
    out = []
    for module, imported in graph.items():
        if module == "memory_core":
            continue
        for other in imported:
            if other != "memory_core" and rank[_unit(other)] > rank[_unit(module)]:
                out.append(f"{module} imports {other} "
                           f"({layers[rank[_unit(other)]][0]} above "
                           f"{layers[rank[_unit(module)]][0]})")
    return sorted(out)


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def unit_graph(graph: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """The module graph collapsed onto units."""
    units: dict[str, set[str]] = {}
    for module, imported in graph.items():
        if module == "memory_core":
            continue
        units.setdefault(_unit(module), set()).update(
            _unit(o) for o in imported if o != "memory_core" and _unit(o) != _unit(module))
    return units


def test_every_module_has_a_layer() -> None:
    placed = set(UNITS)
    present = {_unit(m) for m in import_graph(with_type_checking=True)} - {"memory_core"}
    assert present - placed == set(), "add the new module or package to LAYERS"
    assert placed - present == set(), "LAYERS names a module that no longer exists"


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    assert upward_imports(import_graph(with_type_checking=True), LAYERS) == []


def test_no_two_packages_import_each_other() -> None:
    assert cycles(unit_graph(import_graph(with_type_checking=True))) == []


def test_no_two_modules_import_each_other() -> None:
    assert cycles(import_graph(with_type_checking=True)) == []


@pytest.mark.parametrize(("graph", "upward", "loops"), [
    ({"memory_core.model.records": {"memory_core.store.tables"}, "memory_core.store.tables": set()},
     ["memory_core.model.records imports memory_core.store.tables (store above model)"], []),
    ({"memory_core.exchange.a": {"memory_core.adapters.b"},
      "memory_core.adapters.b": {"memory_core.exchange.c"}, "memory_core.exchange.c": set()},
     [], [["adapters", "exchange"]]),
    ({"memory_core.cli.x": {"memory_core.model.records"}, "memory_core.model.records": set()},
     [], []),
    # a package's parts are units of their own: the circle shows between them
    ({"memory_core.decay.analysis.frame": {"memory_core.retrieval.search"},
      "memory_core.retrieval.search": {"memory_core.decay"},
      "memory_core.decay": {"memory_core.decay.analysis.frame"}},
     [], [["decay", "decay.analysis", "retrieval"]]),
    ({"memory_core.causal.links": {"memory_core.curation.plan"},
      "memory_core.curation.plan": {"memory_core.retrieval.search"},
      "memory_core.retrieval.search": {"memory_core.causal.expansion"},
      "memory_core.causal.expansion": set()},
     [], []),
])
def test_the_rules_catch_what_they_are_for(graph: dict[str, set[str]], upward: list[str],
                                           loops: list[list[str]]) -> None:
    assert upward_imports(graph, LAYERS) == upward
    assert cycles(unit_graph(graph)) == loops
