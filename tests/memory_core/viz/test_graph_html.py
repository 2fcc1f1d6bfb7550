"""The Graph page's drawing: self-contained (no remote resource), escaped, with a legend."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from memory_core.causal.model import GraphEdge, GraphNode, Neighbourhood
from memory_core.viz.graph_html import (
    OTHER_COLOUR,
    RELATION_STYLES,
    STATUS_BORDERS,
    TYPE_COLOURS,
    neighbourhood_html,
)

HOSTILE = "<img src=x onerror=alert(1)> </script><script>alert(2)</script> 50% &amp;"
WHEN = datetime(2026, 9, 1, 12, 30, tzinfo=UTC)


def node(id: str, *, memory_type: str = "decision", status: str = "active",
         content: str = "plain", composite: float = 0.5, focus: bool = False,
         hops: int = 1) -> GraphNode:
    return GraphNode(id, memory_type, "atlas", "mason", status, "normal", composite, WHEN,
                     content, focus, 0 if focus else hops)


def edge(id: str, source: str, target: str, relation: str = "caused",
         decayed: float = 0.5, evidence: tuple[str, ...] = ()) -> GraphEdge:
    return GraphEdge(id, source, target, relation, 0.9, decayed, evidence)


def hood(*nodes: GraphNode, edges: tuple[GraphEdge, ...] = ()) -> Neighbourhood:
    return Neighbourhood(tuple(n.id for n in nodes if n.focus), tuple(nodes), edges)


def data(html: str, name: str) -> list[dict[str, object]]:
    """The node or edge records the page hands to vis-network, decoded."""
    match = re.search(r"var nodes = (.*?), edges = (.*?), options = ", html)
    assert match is not None
    return json.loads(match.group(1 if name == "nodes" else 2))


SMALL = hood(node("f", content=HOSTILE, focus=True),
             node("o", memory_type="observation", status="superseded"),
             node("x", memory_type="made-up type <b>", status="archived"),
             edges=(edge("e1", "o", "f", evidence=(HOSTILE,)),
                    edge("e2", "x", "f", "contradicts"),
                    edge("e3", "f", "gone", "supports")))


def test_no_remote_resource_and_no_linked_file() -> None:
    """Nothing is fetched (no Bootstrap from a CDN either): no <link>, no <script src>, no
    URL in the markup, only data: URLs in the styles, no script that sets a src or href or
    fetches. vis-network's licence header and the SVG namespace name URLs as text only."""
    html = neighbourhood_html(SMALL)
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
    markup = re.sub(r"<(script|style)>.*?</\1>", "", html, flags=re.S)
    assert len(scripts) == 2 and len(styles) == 2
    assert not re.search(r"<link\b|<script[^>]*\bsrc|\bsrc=|\bhref=|//", markup)
    urls = re.findall(r"url\(\s*[\"']?([^\"')]+)", "".join(styles))
    assert urls and all(u.startswith("data:") for u in urls)
    assert "@import" not in "".join(styles)
    remote = re.compile(r"(?:\bsrc|\bhref)\s*=\s*[\"'](?:https?:)?//"
                        r"|(?:fetch|import|importScripts)\(\s*[\"'](?:https?:)?//")
    assert not any(remote.search(s) for s in scripts)


def test_hostile_content_is_text_in_tooltips_labels_and_script() -> None:
    html = neighbourhood_html(SMALL)
    # one <script> for vis-network and one for the drawing: the content closed none
    assert html.count("</script>") == 2 and "alert(1)" not in html.split("<body>")[0]
    assert "<img" not in html and "onerror=alert(1)>" not in html
    nodes = {n["id"]: n for n in data(html, "nodes")}
    title = str(nodes["f"]["title"])
    assert "&lt;img src=x onerror=alert(1)&gt; &lt;/script&gt;&lt;script&gt;" in title
    assert "50&#37; &amp;amp;" in title and "<img" not in title
    assert str(nodes["f"]["label"]).startswith("★ <img src=x")  # canvas text, never HTML
    [evidence] = [e["title"] for e in data(html, "edges") if e["id"] == "e1"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in str(evidence)
    assert "<b>made-up type &lt;b&gt;</b>" in str(nodes["x"]["title"])
    assert "made-up type <b>" not in html


def test_tooltip_says_type_date_and_first_200_characters() -> None:
    long = "x" * 150 + "y" * 100
    [n] = data(neighbourhood_html(hood(node("f", content=long, focus=True))), "nodes")
    title = str(n["title"])
    assert "<b>decision</b> · active · normal" in title
    assert "2026-09-01 12:30 UTC · project atlas · agent mason" in title
    assert "x" * 150 + "y" * 50 + "</div>" in title and "the focus" in title
    [n] = data(neighbourhood_html(hood(node("n", hops=2))), "nodes")
    assert "2 hops from the focus" in str(n["title"])


def test_styles_follow_type_status_relation_and_strength() -> None:
    html = neighbourhood_html(SMALL)
    nodes = {n["id"]: n for n in data(html, "nodes")}
    assert nodes["f"]["color"]["background"] == TYPE_COLOURS["decision"]  # type: ignore[index]
    assert nodes["x"]["color"]["background"] == OTHER_COLOUR  # type: ignore[index]
    assert nodes["o"]["color"]["border"] == STATUS_BORDERS["superseded"][0]  # type: ignore[index]
    assert nodes["o"]["size"] == 10 + 22 * 0.5 / 1.5 and nodes["f"]["size"] == 36
    assert "shadow" in nodes["f"] and "shadow" not in nodes["o"]  # the focus glows
    edges = {e["id"]: e for e in data(html, "edges")}
    assert set(edges) == {"e1", "e2"}  # e3's target is not drawn
    assert edges["e2"]["color"] == RELATION_STYLES["contradicts"][0]
    assert edges["e2"]["dashes"] == RELATION_STYLES["contradicts"][1]
    assert edges["e1"]["width"] == 0.5 + 5.5 * 0.5 and edges["e1"]["arrows"] == "to"


def test_legend_names_what_is_drawn() -> None:
    legend = neighbourhood_html(SMALL).split('<details id="legend"')[1].split("</details>")[0]
    for shown in ("decision", "observation", "other type", "superseded", "archived",
                  "active", "focus", "caused", "contradicts", "decay composite"):
        assert shown in legend, shown
    assert "supports" not in legend and "lesson" not in legend


def test_a_thousand_nodes_and_three_thousand_edges_render() -> None:
    nodes = [node(f"m{i:04d}", memory_type=("decision", "fact", "lesson")[i % 3],
                  focus=i == 0, hops=1 + i % 3) for i in range(1000)]
    edges = tuple(edge(f"e{k}", f"m{k % 1000:04d}", f"m{(k * 7 + 1) % 1000:04d}",
                       ("caused", "supports", "relates_to")[k % 3], decayed=(k % 10) / 10)
                  for k in range(3000))
    html = neighbourhood_html(hood(*nodes, edges=edges))
    assert len(data(html, "nodes")) == 1000 and len(data(html, "edges")) == 3000
    assert '"smooth": false' in html and '"improvedLayout": false' in html


def test_height_is_checked() -> None:
    with pytest.raises(ValueError, match="at least 100"):
        neighbourhood_html(SMALL, height=10)
