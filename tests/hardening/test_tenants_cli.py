"""Every `memlens` command run with `--tenant` shows and changes only that tenant's records,
in the store whose two tenants share memory ids and texts (tests/hardening/tenants.py).

`READS` and `WRITES` name each command's run (argv built from the store and a scratch
folder); `TENANT_FREE` the commands that touch no tenant's records, with the reason. A test
walks the click tree, so a new command shows up as missing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click
import pyarrow as pa
import pytest
from click.testing import CliRunner

from memory_core.agents.recalls import past_recalls
from memory_core.cli import cli
from memory_core.curation import audit_batches
from memory_core.exchange.ndjson import write_export
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.hardening.isolation import state, two_tenants, use_fast_stand_ins
from tests.hardening.tenants import MARK, NOW, OWN_ID, TENANTS, TwoTenants, other, solo_id

A, B = TENANTS
AS_OF = ["--as-of", NOW.date().isoformat()]
Argv = Callable[[MemoryStore, Path], list[list[str]]]


def _queries(store: MemoryStore, out: Path) -> str:
    path = out / "queries.ndjson"
    lines = [{"qid": "q1", "query": "launch code vault", "relevant": {OWN_ID: 2}},
             {"qid": "q2", "query": "postgres pool", "relevant": {"m-1": 1,
                                                                   solo_id(store.tenant): 1}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _first_version(store: MemoryStore) -> str:
    return f"version:{min(v.version for v in store.changes.history() if v.version > 1)}"


#: command -> the runs (argv after `--store S --tenant T`) of a read of one tenant.
READS: dict[str, Argv] = {
    "ls": lambda s, o: [["ls", "--limit", "0", "--status", "active", "--status", "archived",
                         "--status", "superseded", "--json"]],
    "search": lambda s, o: [["search", "launch code vault pool", "--preset", "full",
                             "--limit", "50", "--explain", "--json"]],
    "show": lambda s, o: [["show", OWN_ID, "--json"], ["show", "m-1"]],
    "stats": lambda s, o: [["stats", "--json"], ["stats"]],
    "events": lambda s, o: [["events", "--json"], ["events", "--memory", "m-1"]],
    "audit": lambda s, o: [["audit", "--json"], ["audit", "--memory", "m-7"]],
    "why": lambda s, o: [["why", OWN_ID, "--json"], ["why", "m-6"]],
    "graph health": lambda s, o: [["graph", "health", "--json"]],
    "graph export": lambda s, o: [["graph", "export", "--format", "json", "--status", "active",
                                   "--status", "archived", "--output", str(o / "g.json")]],
    "decay at-risk": lambda s, o: [["decay", "at-risk", "--threshold", "1", "--within",
                                    "3650", *AS_OF, "--json"]],
    "decay show": lambda s, o: [["decay", "show", OWN_ID, *AS_OF, "--json"]],
    "decay what-if": lambda s, o: [["decay", "what-if", "--stability-scale", "0.5", *AS_OF,
                                     "--json"]],
    "decay impact": lambda s, o: [["decay", "impact", "launch code vault", *AS_OF, "--json"]],
    "duplicates": lambda s, o: [["duplicates", "--threshold", "0.1", "--json"]],
    "map": lambda s, o: [["map", "--n-neighbors", "3", "--no-cache", "--json"],
                         ["map", "--n-neighbors", "3", "--no-cache", "--out",
                          str(o / "map.csv")]],
    "export": lambda s, o: [["export", str(o / "e.ndjson"), "--with-audit", "--json"]],
    "diff": lambda s, o: [["diff", _first_version(s), "live", "--limit", "0", "--json"]],
    "eval": lambda s, o: [["eval", "--queries", _queries(s, o), "--compare", "bm25",
                           *AS_OF, "--json"]],
    "tune": lambda s, o: [["tune", "--queries", _queries(s, o), "--folds", "2", "--space",
                           _space(o), *AS_OF, "--json"]],
    "check": lambda s, o: [["check", "--sample", "4", "--json"], ["check"]],
    "agents": lambda s, o: [["agents", "--json"], ["agents", "--recalls", "--json"],
                            ["agents", "--use", "--days", "3650", "--json"], ["agents"]],
    "replay": lambda s, o: [["replay", str(past_recalls(s)[0].recall_id), "--json"],
                            ["replay", str(past_recalls(s)[0].recall_id)]],
    "consolidate suggest": lambda s, o: [["consolidate", "suggest", "--json"],
                                         ["consolidate", "suggest", "--include-rejected"]],
}


def _space(out: Path) -> str:
    path = out / "space.json"
    path.write_text(json.dumps({"weight_bm25": [1.0, 2.0]}), encoding="utf-8")
    return str(path)


def _import(store: MemoryStore, out: Path) -> list[list[str]]:
    path = out / "new.ndjson"
    fresh = [Memory.new(f"{MARK[A]} imported a fresh note", "fact", id="m-new", tenant=A)]
    write_export(path, fresh, [], tenant=A, exported_at=NOW)
    return [["import", str(path), "--mode", "merge"]]


def _pending(store: MemoryStore, out: Path) -> list[list[str]]:
    store.bulk.update(pa.table({"tenant": [store.tenant], "id": [OWN_ID],
                                "embedding_status": ["pending"]}))
    return [["reembed"]]


def _candidate(store: MemoryStore) -> str:
    """Write a near copy of the tenant's active observation m-7 (one consolidation
    candidate with it); the candidate's id."""
    from memory_core.consolidation import consolidation_candidates

    mark = MARK[store.tenant]
    store.add([Memory.new(f"{mark} retries with jitter stopped the thundering herd again",
                          "observation", id="m-again", project=f"{mark}-proj")])
    return next(c.id for c in consolidation_candidates(store) if "m-again" in c.members)


def _evaluate(store: MemoryStore, out: Path) -> list[list[str]]:
    from memory_core.causal import link

    store.add([Memory.new("jitter ends herds", "reflection", id="m-reflection")])
    for source in ("m-7", "m-1"):
        link(store, "m-reflection", "derived_from", source)
    return [["consolidate", "evaluate", "--json"]]


def _undo(store: MemoryStore, out: Path) -> list[list[str]]:
    batch = next(b for b in audit_batches(store) if b.action == "archive")
    return [["undo", str(batch.batch_id), "-y"]]


#: command -> the runs of a write in tenant acme (on a copy of the store).
WRITES: dict[str, Argv] = {
    "add": lambda s, o: [["add", "acme adds a note about the pool", "--type", "fact"]],
    "archive": lambda s, o: [["archive", "m-1", OWN_ID, "-y"], ["archive", "--tag", MARK[A],
                                                                 "-y"]],
    "restore": lambda s, o: [["restore", "m-8", "-y"]],
    "delete": lambda s, o: [["delete", "m-2", "-y"], ["delete", OWN_ID, "--purge", "-y"]],
    "verify-deleted": lambda s, o: [["delete", OWN_ID, "--purge", "-y"],
                                    ["verify-deleted", OWN_ID]],
    "edit": lambda s, o: [["edit", "m-1", "--content", "acme rewrote the pool note", "-y"]],
    "correct": lambda s, o: [["correct", "m-1", "--verdict", "modified", "--note", "fixed"]],
    "cite": lambda s, o: [["cite", "m-1", OWN_ID]],
    "merge": lambda s, o: [["merge", "m-3", "m-4", "--into", "m-3", "-y"]],
    "supersede": lambda s, o: [["supersede", "m-1", "--content", "acme pool holds forty",
                                "-y"]],
    "link": lambda s, o: [["link", "m-1", "supports", "m-7"]],
    "unlink": lambda s, o: [["unlink", s.edges.list()[0].id]],
    "undo": _undo,
    "recall": lambda s, o: [["recall", "postgres pool launch code", "--json"]],
    "import": _import,
    "reembed": _pending,
    "drill": lambda s, o: [["drill", "--export-dir", str(o / "drill")]],
    "consolidate accept": lambda s, o: [["consolidate", "accept", _candidate(s), "-y"]],
    "consolidate reject": lambda s, o: [["consolidate", "reject", _candidate(s)]],
    # a read, run on a copy: it needs a reflection to score against
    "consolidate evaluate": _evaluate,
}

#: Commands that read or write no tenant's records, and why.
TENANT_FREE = {
    "init": "creates a new store from the demo corpus",
    "serve": "starts the web app: the pages are checked in test_tenants_pages.py",
    "index": "indexes are built over the whole table, every tenant's rows alike",
    **{f"bench {name}": "builds synthetic stores of its own" for name in (
        "consolidate", "curate", "decay", "exchange", "graph", "ingest", "map", "search")},
    "mcp": "a long-running server (stdio or HTTP) for agents: its tools' tenant scope is "
           "checked in tests/memory_core/agents/mcp/test_stdio.py",
    "bench mcp": "benchmarks a copy of the store (default: the demo corpus seeded in a "
                 "temporary folder) and prints timings and counts, no record",
    "bench pages": "renders the pages (their tenant scope: test_tenants_pages.py) and prints "
                   "timings and counts, no record",
}


def _leaves(group: click.Group, prefix: str = "") -> set[str]:
    out = set()
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            out |= _leaves(command, f"{prefix}{name} ")
        else:
            out.add(f"{prefix}{name}")
    return out


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> TwoTenants:
    return two_tenants(tmp_path_factory)


@pytest.fixture(autouse=True)
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    use_fast_stand_ins(monkeypatch)


#: Commands that fail on this store, safely: the drill's re-import refuses the ids the other
#: tenant holds too (ids are unique store-wide in memlens' own writes) and rolls back.
FAILS = {"drill": 1}


def _run(uri: str, tenant: str, argv: list[str]) -> str:
    result = CliRunner().invoke(cli, ["--store", uri, "--tenant", tenant, *argv])
    assert result.exit_code == FAILS.get(argv[0], 0), f"{argv}: {result.output}"
    return result.output


def test_every_command_is_enumerated() -> None:
    listed = set(READS) | set(WRITES) | set(TENANT_FREE)
    assert _leaves(cli) - listed == set(), "add these commands to READS, WRITES or TENANT_FREE"
    assert listed - _leaves(cli) == set()


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("command", sorted(READS))
def test_reads_show_only_the_tenants_records(two: TwoTenants, tenant: str, command: str,
                                            tmp_path: Path) -> None:
    shown = []
    for argv in READS[command](two.open(tenant), tmp_path):
        shown.append(_run(two.uri, tenant, argv))
    files = [p.read_text(errors="replace") for p in tmp_path.iterdir()
             if p.suffix in (".json", ".csv", ".ndjson") and p.name != "queries.ndjson"]
    text = "\n".join(shown + files)
    assert MARK[other(tenant)] not in text
    assert solo_id(other(tenant)) not in text
    # these print figures or findings, no record (check reads every tenant's files alike)
    # (consolidate suggest finds no group in a tenant of one active observation)
    if command not in ("graph health", "decay what-if", "eval", "tune", "diff", "check",
                       "consolidate suggest"):
        assert MARK[tenant] in text  # the tenant's own records are there: the check bites


@pytest.mark.parametrize("command", sorted(WRITES))
def test_writes_leave_the_other_tenant_as_it_was(two: TwoTenants, command: str,
                                                tmp_path: Path) -> None:
    uri = two.copy(tmp_path / "store")
    acme, globex = two.open(A, uri), two.open(B, uri)
    before = state(globex)
    for argv in WRITES[command](acme, tmp_path):
        _run(uri, A, argv)
    assert state(globex) == before


def test_the_other_tenants_ids_are_refused(two: TwoTenants, tmp_path: Path) -> None:
    uri = two.copy(tmp_path / "store")
    acme, globex = two.open(A, uri), two.open(B, uri)
    before = state(globex)
    theirs = str(next(b.batch_id for b in audit_batches(globex) if b.action == "archive"))
    for argv in (["show", solo_id(B)], ["why", solo_id(B)], ["decay", "show", solo_id(B)],
                 ["edit", solo_id(B), "--content", "x", "-y"], ["archive", solo_id(B), "-y"],
                 ["undo", theirs, "-y"], ["unlink", globex.edges.list()[0].id],
                 ["verify-deleted", solo_id(B)]):
        result = CliRunner().invoke(cli, ["--store", uri, "--tenant", A, *argv])
        assert result.exit_code != 0, argv
        assert MARK[B] not in result.output + str(result.exception).replace(solo_id(B), "")
    assert state(globex) == before
    assert acme.count() == globex.count()
