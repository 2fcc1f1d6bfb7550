"""A neighbourhood as one self-contained HTML page: a vis-network drawing built with pyvis,
every script and style inline (no CDN, works offline), every memory-derived text escaped.

pyvis builds the node and edge records and ships vis-network 9.1.2; its own page template is
not used: even with `cdn_resources="in_line"` it links Bootstrap from a CDN, and it switches
tooltips to an `innerHTML` popup whenever a title contains "href". Here tooltips are HTML
written by `for_html` (memory content is untrusted: `<img onerror=...>` shows as text) and
turned into DOM elements before vis-network sees them, so they render the same in any
vis-network version (9.x shows a string title as text, older ones as HTML).

>>> html = neighbourhood_html(neighbourhood(store, memory_id, hops=2))   # doctest: +SKIP
>>> Path("graph.html").write_text(html)                           # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.model.schema import MEMORY_TYPES
from memory_core.model.untrusted import for_html, visible

if TYPE_CHECKING:
    from memory_core.causal.model import GraphEdge, GraphNode, Neighbourhood

#: Fill colour of each known memory type (an open vocabulary: others are OTHER_COLOUR).
TYPE_COLOURS: dict[str, str] = dict(zip(MEMORY_TYPES, (
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#9c755f",   # herd
    "#e15759", "#76b7b2", "#edc948", "#bab0ac", "#86bcb6",   # Make_Skills
    "#8cd17d", "#d4a6c8", "#fabfd2", "#ff9d9a", "#499894", "#f1ce63",  # HADES
    "#d37295",                                               # superagents
), strict=True))
OTHER_COLOUR = "#c7c7c7"
#: Border of a node by status: (colour, width, dashes); archived memories are also faded.
STATUS_BORDERS: dict[str, tuple[str, float, list[int] | bool]] = {
    "active": ("#37474f", 1.5, False),
    "superseded": ("#e65100", 3.5, [6, 3]),
    "archived": ("#757575", 3.5, [2, 3]),
}
#: Edge colour and dash pattern by relation (False: solid); causal relations solid.
RELATION_STYLES: dict[str, tuple[str, list[int] | bool]] = {
    "caused": ("#d32f2f", False),
    "enabled": ("#f57c00", False),
    "derived_from": ("#7b1fa2", False),
    "supports": ("#388e3c", False),
    "supersedes": ("#455a64", [10, 6]),
    "contradicts": ("#c2185b", [3, 4]),
    "improves": ("#1976d2", False),
    "uses": ("#00897b", [6, 4]),
    "relates_to": ("#9e9e9e", [2, 5]),
}
OTHER_RELATION: tuple[str, list[int] | bool] = ("#bdbdbd", [2, 5])
FOCUS_GLOW = "rgba(255, 179, 0, 0.95)"
CONTENT_CHARS = 200
LABEL_CHARS = 24
#: The decay composite drawn largest: tier anchors lift important memories above 1.
COMPOSITE_TOP = 1.5
#: Above this many nodes the layout settles in fewer steps and edges are drawn straight.
LARGE = 300


@cache
def _vis_assets() -> tuple[str, str]:
    """vis-network's script and style sheet as pyvis ships them."""
    import pyvis

    lib = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2"
    return ((lib / "vis-network.min.js").read_text(encoding="utf-8"),
            (lib / "vis-network.css").read_text(encoding="utf-8"))


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no `</script>`, `<!--` or line separators."""
    text = json.dumps(value, ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


def _label(text: str) -> str:
    line = " ".join(visible(text).split())
    return line if len(line) <= LABEL_CHARS else line[:LABEL_CHARS - 1] + "…"


def _hops(hops: int) -> str:
    return f"{hops} hop{'' if hops == 1 else 's'} from the focus"


def node_tooltip(node: GraphNode) -> str:
    """The tooltip of a node as HTML: type, status, date, project/agent, first 200
    characters of content, id; every value escaped."""
    where = " · ".join(f"{k} {for_html(v)}" for k, v in (("project", node.project),
                                                         ("agent", node.agent)) if v)
    return (f"<b>{for_html(node.memory_type)}</b> · {for_html(node.status)} · "
            f"{for_html(node.importance)}<br>"
            f"{node.created_at:%Y-%m-%d %H:%M} UTC{' · ' + where if where else ''}<br>"
            f"decay composite {node.composite:.2f} · "
            f"{'the focus' if node.focus else _hops(node.hops)}"
            f"<div class=\"content\">{for_html(node.content[:CONTENT_CHARS])}</div>"
            f"<small>{for_html(node.id)}</small>")


def edge_tooltip(edge: GraphEdge) -> str:
    """The tooltip of an edge as HTML: relation, strength, decayed strength, evidence."""
    evidence = "".join(f"<div class=\"content\">{for_html(e[:CONTENT_CHARS])}</div>"
                       for e in edge.evidence[:3])
    return (f"<b>{for_html(edge.relation)}</b> · strength {edge.strength:.2f}, decayed "
            f"{edge.decayed_strength:.2f}{evidence}<small>{for_html(edge.id)}</small>")


def _node_record(node: GraphNode) -> dict[str, Any]:
    border, width, dashes = STATUS_BORDERS.get(node.status, STATUS_BORDERS["archived"])
    fill = TYPE_COLOURS.get(node.memory_type, OTHER_COLOUR)
    record: dict[str, Any] = {
        "label": _label(node.content), "title": node_tooltip(node), "shape": "dot",
        "size": 10 + 22 * min(max(node.composite, 0.0), COMPOSITE_TOP) / COMPOSITE_TOP,
        "color": {"background": fill, "border": border,
                  "highlight": {"background": fill, "border": "#000000"},
                  "hover": {"background": fill, "border": "#000000"}},
        "borderWidth": width, "shapeProperties": {"borderDashes": dashes},
        "opacity": 0.55 if node.status == "archived" else 1.0,
    }
    if node.focus:
        record["borderWidth"] = max(width, 4.0)
        record["size"] = max(record["size"], 36.0)  # found at a glance, however faded
        record["shadow"] = {"enabled": True, "color": FOCUS_GLOW, "size": 28, "x": 0, "y": 0}
        record["font"] = {"size": 16, "face": "sans-serif", "bold": {"size": 16}}
        record["label"] = f"★ {record['label']}"
    return record


def _edge_record(edge: GraphEdge) -> dict[str, Any]:
    colour, dashes = RELATION_STYLES.get(edge.relation, OTHER_RELATION)
    return {"id": edge.id, "title": edge_tooltip(edge), "color": colour, "dashes": dashes,
            "width": 0.5 + 5.5 * min(max(edge.decayed_strength, 0.0), 1.0),
            "arrows": "to"}


def _swatch(colour: str, text: str, border: str = "#37474f", dash: str = "") -> str:
    style = f"background:{colour};border:2px {dash or 'solid'} {border}"
    return f"<span class=\"item\"><i class=\"dot\" style=\"{style}\"></i>{text}</span>"


def _line(colour: str, dashes: list[int] | bool, text: str) -> str:
    pattern = " ".join(map(str, dashes)) if isinstance(dashes, list) else "none"
    return (f"<span class=\"item\"><svg width=\"26\" height=\"8\"><line x1=\"0\" y1=\"4\" "
            f"x2=\"26\" y2=\"4\" stroke=\"{colour}\" stroke-width=\"3\" "
            f"stroke-dasharray=\"{pattern}\"/></svg>{text}</span>")


def legend_html(hood: Neighbourhood, edges: Sequence[GraphEdge]) -> str:
    """The legend of what a drawing of `hood`'s nodes and `edges` shows: types, statuses,
    relations, sizes."""
    types = sorted({n.memory_type for n in hood.nodes})
    known = [t for t in types if t in TYPE_COLOURS]
    parts = [_swatch(TYPE_COLOURS[t], for_html(t)) for t in known]
    if len(known) < len(types):
        parts.append(_swatch(OTHER_COLOUR, "other type"))
    statuses = [s for s in STATUS_BORDERS if any(n.status == s for n in hood.nodes)]
    parts += ["<span class=\"sep\"></span>"] + [_swatch("#ffffff", s, STATUS_BORDERS[s][0],
                                 "dashed" if STATUS_BORDERS[s][2] else "")
                         for s in statuses]
    parts.append(_swatch("#ffffff", "focus", FOCUS_GLOW))
    relations = sorted({e.relation for e in edges})
    if relations:
        parts.append("<span class=\"sep\"></span>")
        parts += [_line(*RELATION_STYLES.get(r, OTHER_RELATION), for_html(r)) for r in relations]
    parts.append("<span class=\"sep\"></span><small>size: decay composite · edge width: "
                 "decayed strength</small>")
    return "".join(parts)


def _options(nodes: int, edges: int) -> dict[str, Any]:
    large = nodes > LARGE
    return {
        "physics": {"solver": "forceAtlas2Based",
                    "forceAtlas2Based": {"gravitationalConstant": -70, "springLength": 110,
                                         "avoidOverlap": 0.3},
                    "stabilization": {"iterations": 150 if large else 400,
                                      "updateInterval": 25}},
        "layout": {"improvedLayout": not large, "randomSeed": 7},
        "edges": {"smooth": False if large or edges > 600 else
                  {"enabled": True, "type": "curvedCW", "roundness": 0.12},
                  "arrows": {"to": {"scaleFactor": 0.5}}},
        "nodes": {"font": {"size": 11, "face": "sans-serif"}},
        "interaction": {"hover": True, "tooltipDelay": 120, "hideEdgesOnDrag": large,
                        "navigationButtons": False},
    }


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<style>{vis_css}</style>
<style>
html, body {{ margin: 0; padding: 0; font-family: sans-serif; }}
#wrap {{ display: flex; flex-direction: column; height: {height}px; border: 1px solid #e0e0e0;
  box-sizing: border-box; }}
#graph {{ flex: 1; min-height: 0; }}
#legend {{ flex: none; font-size: 11px; border-bottom: 1px solid #eeeeee; padding: 3px 6px;
  line-height: 1.7; background: #fafafa; }}
#legend summary {{ cursor: pointer; font-weight: bold; display: inline; margin-right: 8px; }}
#legend .item {{ margin-right: 8px; white-space: nowrap; }}
#legend .dot {{ display: inline-block; width: 10px; height: 10px; border-radius: 50%;
  margin-right: 3px; vertical-align: middle; }}
#legend .sep {{ display: inline-block; width: 1px; height: 10px; background: #bdbdbd;
  margin: 0 8px 0 0; vertical-align: middle; }}
#legend svg {{ vertical-align: middle; margin-right: 3px; }}
div.vis-tooltip {{ max-width: 380px; white-space: normal; font: 12px sans-serif; }}
div.vis-tooltip .content {{ margin: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; }}
</style></head>
<body>
<div id="wrap">
<details id="legend" open><summary>Legend</summary>{legend}</details>
<div id="graph"></div>
</div>
<script>{vis_js}</script>
<script>
(function () {{
  function tip(html) {{
    var div = document.createElement("div");
    div.innerHTML = html;  // written by memlens: every memory-derived value escaped
    return div;
  }}
  var nodes = {nodes}, edges = {edges}, options = {options};
  nodes.forEach(function (n) {{ n.title = tip(n.title); }});
  edges.forEach(function (e) {{ e.title = tip(e.title); }});
  var network = new vis.Network(document.getElementById("graph"),
    {{nodes: new vis.DataSet(nodes), edges: new vis.DataSet(edges)}}, options);
  window.memlensNetwork = network;  // for notebooks and browser checks
  function ready() {{
    network.setOptions({{physics: false}});  // settled: stop using the CPU
    document.body.setAttribute("data-ready", "1");
  }}
  network.once("stabilizationIterationsDone", ready);
  if (nodes.length < 2) {{ ready(); }}
}})();
</script>
</body></html>
"""


def neighbourhood_html(hood: Neighbourhood, *, height: int = 620) -> str:
    """`hood` drawn as a standalone HTML page `height` pixels high, legend included.

    Node colour is the memory type, size the decay composite, border the status; edge colour
    and dashes the relation, width the decayed strength; the focus glows. Edges whose ends
    are not both in `hood` are left out."""
    if not isinstance(height, int) or height < 100:
        raise ValueError(f"height must be a whole number of pixels, at least 100, not "
                         f"{height!r}")
    from pyvis.network import Network

    net = Network(directed=True)
    for node in hood.nodes:
        net.add_node(node.id, **_node_record(node))
    ids = {n.id for n in hood.nodes}
    drawn = [e for e in hood.edges if e.source_id in ids and e.target_id in ids]
    for edge in drawn:
        net.add_edge(edge.source_id, edge.target_id, **_edge_record(edge))
    vis_js, vis_css = _vis_assets()
    return _PAGE.format(vis_css=vis_css, vis_js=vis_js, height=height,
                        legend=legend_html(hood, drawn), nodes=_script_json(net.nodes),
                        edges=_script_json(net.edges),
                        options=_script_json(_options(len(ids), len(drawn))))
