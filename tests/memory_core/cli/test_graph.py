"""`memlens why | link | unlink | graph health | graph export` on a small real store: the
output says what the graph holds, `--json` parses, mistakes are one line with nothing written,
`memlens undo` reverses a link, hostile text is escaped, GraphML opens in networkx.

Run in-process against real LanceDB in tmp_path, embedded by the fake embedder.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import networkx as nx
import pytest

from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli
from tests.memory_core.cli.test_terminal import terminal_controls

#: ANSI colour, a carriage-return overwrite, a right-to-left override and markup
HOSTILE = "plain \x1b[31mred\rOVERWRITE \u202etxt.exe <img src=x onerror=alert(1)>"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


class Graph:
    """A store whose graph has a known shape, and `memlens` run on it.

    obs -caused-> dec (0.9), dec derived_from lesson (lesson led to dec), dec -enabled-> ci
    (0.8), ci -supports-> cache (0.5), evil -caused-> dec; dec -supersedes-> old (old
    superseded); pip -contradicts-> dec; x1 -caused-> x2 -caused-> x3 -caused-> x1 (a
    cycle); lone has no edge. Tenant acme holds acme-1 -caused-> acme-2 (edge acme-edge).
    """

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> None:
        self.tmp, self.monkeypatch, self.capsys = tmp_path, monkeypatch, capsys
        self.uri = str(tmp_path / "store")
        texts = {
            "obs": ("pip installs took four minutes in CI", "observation", "active"),
            "lesson": ("lockfiles make installs reproducible", "lesson", "active"),
            "dec": ("use uv for installs\nsecond line not shown", "decision", "active"),
            "ci": ("CI caches the uv download folder", "decision", "active"),
            "cache": ("cache hits went to 95%", "observation", "active"),
            "old": ("use pip-tools for installs", "decision", "superseded"),
            "pip": ("pip is fast enough, keep it", "preference", "active"),
            "evil": (f"deploy notes {HOSTILE}", "observation", "active"),
            "x1": ("x1 loops", "event", "active"),
            "x2": ("x2 loops", "event", "active"),
            "x3": ("x3 loops", "event", "active"),
            "lone": ("nothing links here", "fact", "active"),
        }
        store = self.store()
        store.add([Memory.new(text, kind, id=i, status=status, project="herd",
                              created_at=T0 + timedelta(days=n))
                   for n, (i, (text, kind, status)) in enumerate(texts.items())])
        links = [("obs", "caused", "dec", 0.9), ("dec", "derived_from", "lesson", 1.0),
                 ("dec", "enabled", "ci", 0.8), ("ci", "supports", "cache", 0.5),
                 ("evil", "caused", "dec", 1.0), ("dec", "supersedes", "old", 1.0),
                 ("pip", "contradicts", "dec", 1.0), ("x1", "caused", "x2", 1.0),
                 ("x2", "caused", "x3", 1.0), ("x3", "caused", "x1", 1.0)]
        store.edges.add([Edge.new(a, b, r, id=f"{a}-{r}-{b}", strength=s, created_at=T0)
                         for a, r, b, s in links])
        acme = MemoryStore.open(self.uri, tenant="acme", embedder=FakeEmbedder())
        acme.add([Memory.new("acme decided on uv too", id="acme-1", project="herd"),
                  Memory.new("acme caches wheels", id="acme-2", project="herd")])
        acme.edges.add([Edge.new("acme-1", "acme-2", "caused", id="acme-edge")])

    def store(self) -> MemoryStore:
        return MemoryStore.open(self.uri, embedder=FakeEmbedder())

    def run(self, *argv: str) -> tuple[int, str, str]:
        """`memlens --store URI ARGV`: (exit code, stdout, stderr)."""
        self.monkeypatch.setattr("sys.stdin", io.StringIO(""))
        return run_cli(["--store", self.uri, *argv], self.capsys)

    def ok(self, *argv: str) -> str:
        code, out, err = self.run(*argv)
        assert code == 0, err
        return out

    def versions(self) -> dict[str, int]:
        return self.store().table_versions()

    def edges(self) -> set[tuple[str, str, str]]:
        return {(e.source_id, e.relation, e.target_id) for e in self.store().edges.list()}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> Graph:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    monkeypatch.chdir(tmp_path)
    return Graph(tmp_path, monkeypatch, capsys)


def one_line_refusal(home: Graph, *argv: str) -> str:
    """Run a command that must fail: exit 1, one stderr line, no table written; the line."""
    versions = home.versions()
    code, out, err = home.run(*argv)
    assert code == 1, out + err
    assert len(err.strip().splitlines()) == 1 and err.startswith("Error: "), err
    assert home.versions() == versions
    return err


# -- why -----------------------------------------------------------------------------------

def test_why_prints_both_trees_the_chain_and_the_contradictions(home: Graph) -> None:
    out = home.ok("why", "dec")
    lines = out.splitlines()
    assert lines[0] == "dec  decision  2026-01-03  use uv for installs"  # first line only
    assert "second line" not in out
    # ancestors strongest first, one level in; descendants as a tree: cache under ci
    start = lines.index("what led to it (3 ancestors, depth 3; caused, enabled, supports, "
                        "derived_from):")
    assert [x.split("  ")[1] for x in lines[start + 1:start + 4]] == [
        "<-[caused 1.00]- evil", "<-[derived_from 1.00]- lesson", "<-[caused 0.90]- obs"]
    start = lines.index("what it led to (2 descendants):")
    assert lines[start + 1] == ("  -[enabled 0.80]-> ci  decision  2026-01-04  CI caches the "
                                "uv download folder")
    assert lines[start + 2] == ("    -[supports 0.50]-> cache  observation  2026-01-05  cache "
                                "hits went to 95%")
    assert "supersession (oldest -> current): old -> [dec]" in lines
    assert "contradictions: 1" in lines
    (pair,) = [x for x in lines if x.startswith("  pip  ")]
    assert "both active; this one is older and weaker" in pair
    assert "(edge pip-contradicts-dec)" in pair
    assert "causal cycles" not in out


def test_why_depth_relations_chain_member_and_cycles(home: Graph) -> None:
    out = home.ok("why", "dec", "--depth", "1", "--relation", "caused")
    assert "(2 ancestors, depth 1; caused)" in out and "(0 descendants)" in out
    assert " obs " in out and " lesson " not in out and " ci " not in out
    # aliases are mapped: causes = caused
    assert home.ok("why", "dec", "--relation", "causes", "--depth", "1") == out
    old = home.ok("why", "old")
    assert old.splitlines()[0].startswith("old  decision [superseded]  2026-01-06  use pip-tools")
    assert "supersession (oldest -> current): [old] -> dec" in old
    assert "contradictions: none" in old
    assert "supersession: none" in home.ok("why", "lone")
    cycle = home.ok("why", "x1")
    assert "causal cycles (reported, not followed): 1" in cycle
    (line,) = [x for x in cycle.splitlines() if x.startswith("  x") and " -> " in x]
    members = line.strip().split(" -> ")
    assert members[0] == members[-1] and set(members) == {"x1", "x2", "x3"}


def test_why_json(home: Graph) -> None:
    doc = json.loads(home.ok("why", "dec", "--json"))
    assert doc["memory_id"] == "dec"
    assert [p["memory_id"] for p in doc["lineage"]["ancestors"]] == ["evil", "lesson", "obs"]
    (cache,) = [p for p in doc["lineage"]["descendants"] if p["memory_id"] == "cache"]
    assert cache["hops"] == 2 and cache["strength"] == pytest.approx(0.8 * 0.5)
    assert [s["edge_id"] for s in cache["steps"]] == ["dec-enabled-ci", "ci-supports-cache"]
    assert doc["supersession"]["chain"] == ["old", "dec"]
    assert doc["supersession"]["current"] == "dec"
    (pair,) = doc["contradictions"]
    assert pair["edge_id"] == "pip-contradicts-dec" and pair["both_active"] is True
    assert json.loads(home.ok("why", "x1", "--json"))["lineage"]["cycles"]


@pytest.mark.parametrize("argv, message", [
    (["why", "nope"], "nope"),
    (["why", "acme-1"], "acme-1"),  # another tenant's memory is not there
    (["why", "dec", "--relation", "frobs"], "frobs"),
    (["why", "dec", "--relation", "contradicts"], "not a causal relation"),
    (["why", "dec", "--depth", "99"], "depth"),
    (["why", "dec", "--relation", ""], "--relation is empty"),
])
def test_why_mistakes_are_one_line(home: Graph, argv: list[str], message: str) -> None:
    assert message in one_line_refusal(home, *argv)


# -- link, unlink --------------------------------------------------------------------------

def test_link_writes_one_edge_and_undo_removes_it(home: Graph) -> None:
    out = home.ok("link", "lone", "caused", "cache", "--strength", "0.7", "--evidence",
                  "commit abc123", "--evidence", "PR 7", "--reason", "seen in review")
    assert out.splitlines()[0].startswith("link: changed 0 memories; 1 edge added; batch ")
    assert "added: lone -caused-> cache" in out
    (undo_line,) = [x for x in out.splitlines() if x.startswith("undo it with: memlens undo ")]
    (edge,) = [e for e in home.store().edges.list(memory_id="lone")]
    assert (edge.source_id, edge.relation, edge.target_id) == ("lone", "caused", "cache")
    assert edge.strength == pytest.approx(0.7)
    assert edge.evidence == ("commit abc123", "PR 7")
    assert "<-[caused 0.70]- lone" in home.ok("why", "cache")
    home.ok(*undo_line.split()[4:], "--yes")
    assert home.store().edges.list(memory_id="lone") == []


def test_link_dry_run_json_and_alias(home: Graph) -> None:
    versions = home.versions()
    out = home.ok("link", "lone", "supports", "ci", "--dry-run")
    assert out.startswith("link: would change 0 memories; 1 edge added")
    assert "undo it with" not in out and home.versions() == versions
    preview = json.loads(home.ok("link", "lone", "supports", "ci", "--dry-run", "--json"))
    assert preview["dry_run"] is True and preview["batch_id"] is None
    assert home.versions() == versions
    doc = json.loads(home.ok("link", "lone", "supports", "ci", "--json"))
    assert doc["action"] == "link" and doc["batch_id"] and doc["dry_run"] is False
    assert [e["change"] for e in doc["edges"]] == ["added"]
    # superseded_by is supersedes the other way round
    home.ok("link", "lone", "superseded_by", "ci")
    assert ("ci", "supersedes", "lone") in home.edges()


@pytest.mark.parametrize("argv, message", [
    (["link", "nope", "caused", "dec"], "nope"),
    (["link", "dec", "caused", "acme-1"], "acme-1"),  # another tenant's memory
    (["link", "dec", "caused", "dec"], "itself"),
    (["link", "dec", "frobs", "ci"], "frobs"),
    (["link", "obs", "caused", "dec"], "exists already"),
    (["link", "dec", "caused", "ci", "--strength", "2"], "--strength"),
    (["link", "dec", "caused", "ci", "--evidence", ""], "--evidence is empty"),
    (["link", "--read-only", "dec", "caused", "ci"], "read-only"),
    (["unlink", "nope"], "nope"),
    (["unlink", "acme-edge"], "acme-edge"),  # another tenant's edge
    (["unlink", "--read-only", "obs-caused-dec"], "read-only"),
])
def test_edge_writes_refuse_with_one_line_and_write_nothing(
        home: Graph, argv: list[str], message: str) -> None:
    edges = home.edges()
    assert message in one_line_refusal(home, *argv)
    assert home.edges() == edges


def test_unlink_removes_the_edge_and_undo_brings_it_back(home: Graph) -> None:
    versions = home.versions()
    out = home.ok("unlink", "x3-caused-x1", "--dry-run")
    assert "1 edge removed" in out and home.versions() == versions
    out = home.ok("unlink", "x3-caused-x1", "--reason", "not a real cause")
    assert "edge x3-caused-x1  removed: x3 -caused-> x1" in out
    assert ("x3", "caused", "x1") not in home.edges()
    assert "causal cycles" not in home.ok("why", "x1")
    batch = json.loads(home.ok("audit", "--json", "--limit", "1"))[0]
    assert batch["action"] == "unlink" and batch["reason"] == "not a real cause"
    home.ok("undo", batch["batch_id"], "--yes")
    assert ("x3", "caused", "x1") in home.edges()
    doc = json.loads(home.ok("unlink", "x3-caused-x1", "--json"))
    assert doc["action"] == "unlink" and doc["edges"][0]["edge_id"] == "x3-caused-x1"


# -- graph health, graph export ------------------------------------------------------------

def test_graph_health_counts_and_first_ids(home: Graph) -> None:
    home.store().edges.add([Edge.new("dec", "ghost", "relates_to", id="to-ghost")],
                           check_endpoints=False)
    out = home.ok("graph", "health")
    lines = out.splitlines()
    assert lines[0] == "12 memories, 11 edges"
    counts = {x.split()[0]: int(x.split()[1]) for x in lines[1:] if not x.startswith(" ")}
    assert counts == {"orphans": 1, "dangling_edges": 1, "edges_to_inactive": 0,
                      "causal_cycles": 3, "self_loops": 0, "duplicate_edges": 0,
                      "superseded_without_successor": 0, "evidence_changed": 0}
    at = lines.index(next(x for x in lines if x.startswith("orphans")))
    assert lines[at + 1:at + 3] == ["    by type: fact 1", "    lone"]
    at = lines.index(next(x for x in lines if x.startswith("causal_cycles")))
    assert lines[at + 1:at + 3] == ["    groups: 1", "    x1, x2, x3"]
    doc = json.loads(home.ok("graph", "health", "--json"))
    assert (doc["memories"], doc["edges"]) == (12, 11)
    found = {f["kind"]: f for f in doc["findings"]}
    assert found["dangling_edges"]["ids"] == ["to-ghost"] and found["orphans"]["count"] == 1


def test_graph_health_shortens_long_id_lists(home: Graph) -> None:
    home.store().add([Memory.new(f"orphan number {i}", "fact", id=f"o{i:02d}")
                      for i in range(8)])
    out = home.ok("graph", "health")
    # 9 orphans, sorted: the first 3 shown
    assert "\n    lone, o00, o01 … and 6 more\n" in out


def test_graph_export_graphml_opens_in_networkx(home: Graph) -> None:
    home.store().add([Memory.new("a <b>markup</b> & \"quotes\" 50%", "fact", id="markup")])
    out = home.ok("graph", "export", "--status", "active", "--status", "superseded",
                  "--type", "decision", "--type", "fact")
    assert out == "wrote 2 edges to graph.graphml (graphml)\n"
    graph = nx.read_graphml(home.tmp / "graph.graphml", force_multigraph=True)
    assert set(graph.nodes) == {"dec", "ci", "old", "lone", "markup"}
    assert {(a, b, d["relation"]) for a, b, d in graph.edges(data=True)} == {
        ("dec", "ci", "enabled"), ("dec", "old", "supersedes")}
    assert graph.nodes["markup"]["content"] == "a <b>markup</b> & \"quotes\" 50%"
    assert graph.nodes["old"]["status"] == "superseded"


def test_graph_export_json_and_default_filter(home: Graph) -> None:
    target = home.tmp / "out" / "g.json"
    target.parent.mkdir()
    doc = json.loads(home.ok("graph", "export", "--format", "json", "--output", str(target),
                             "--json"))
    assert doc == {"path": str(target), "format": "json", "edges": 9}  # active memories only
    data = json.loads(target.read_text(encoding="utf-8"))
    assert len(data["nodes"]) == 11 and "old" not in {n["id"] for n in data["nodes"]}
    assert len(data["edges"]) == 9


def test_graph_export_mistakes_are_one_line(home: Graph) -> None:
    assert "'xml'" in one_line_refusal(home, "graph", "export", "--format", "xml")
    assert "No such file" in one_line_refusal(home, "graph", "export", "--output",
                                              str(home.tmp / "missing" / "g.graphml"))
    assert "nobody" in one_line_refusal(home, "graph", "health", "--tenant", "nobody")


def test_graph_export_graphml_of_hostile_content(home: Graph) -> None:
    # XML cannot hold ESC at all: the export writes it out as text
    home.ok("graph", "export")
    graph = nx.read_graphml(home.tmp / "graph.graphml")
    assert graph.nodes["evil"]["content"].startswith("deploy notes plain <U+001B>[31mred")
    assert "<img src=x onerror=alert(1)>" in graph.nodes["evil"]["content"]
    assert not list(home.tmp.glob(".*.partial"))


# -- untrusted text ------------------------------------------------------------------------

def test_hostile_content_is_escaped(home: Graph) -> None:
    home.ok("link", "pip", "contradicts", "evil")
    for argv in (["why", "evil"], ["why", "dec"], ["link", "evil", "caused", "ci", "--dry-run"],
                 ["graph", "health"]):
        out = home.ok(*argv)
        assert terminal_controls(out) == [], argv
        assert "\u202e" not in out
    assert "\\x1b[31mred" in home.ok("why", "dec")
    assert "\\x0dOVERWRITE <U+202E>txt.exe <img" in home.ok("why", "pip")  # the contradiction
    err = one_line_refusal(home, "link", f"x{HOSTILE}", "caused", "dec")
    assert terminal_controls(err) == []


def test_why_reports_forks_and_leaves_out_ends_missing_from_the_tenant(home: Graph) -> None:
    home.ok("link", "lone", "supersedes", "old")
    out = home.ok("why", "old")
    assert "  fork: old is superseded by dec, lone" in out.splitlines()
    home.store().edges.add([Edge.new("ghost", "dec", "caused", id="from-ghost")],
                           check_endpoints=False)
    # a dangling edge's missing end is no memory: `graph health` reports the edge instead
    assert "ghost" not in home.ok("why", "dec")
