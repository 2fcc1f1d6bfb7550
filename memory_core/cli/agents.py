"""`memlens agents` and `memlens replay`: what agents did with the memory, and why a past
recall sent what it sent (memory_core.agents)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

import click

from memory_core.cli.options import json_option, open_store, refuse_empty, store_options
from memory_core.cli.output import echo, emit_json, print_table, shorten


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def _time(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime | None:
    from memory_core.model.date_range import user_time

    value = refuse_empty("for no bound")(ctx, param, value)
    return None if value is None else user_time(value, f"--{param.name}")


@click.command()
@store_options
@click.option("--agent", "actor", callback=refuse_empty("for every agent"),
              help="Only this agent (the actor of its events and writes).")
@click.option("--since", callback=_time, help="From this time (ISO date or time).")
@click.option("--until", callback=_time, help="Before this time (ISO date or time).")
@click.option("--recalls", "show_recalls", is_flag=True,
              help="List each recall (its id for `memlens replay`) instead of sessions.")
@click.option("--use", "show_use", is_flag=True,
              help="List memory use: recalled most, never cited, not recalled in --days.")
@click.option("--days", default=30, show_default=True, type=click.IntRange(min=1),
              help="With --use: 'not recalled' means in this many days.")
@json_option("Print the activity as JSON.")
@click.pass_context
def agents(ctx: click.Context, actor: str | None, since: datetime | None,
           until: datetime | None, show_recalls: bool, show_use: bool, days: int,
           as_json: bool) -> None:
    """Agent activity per agent and session: recalls, remembers, cites, corrections."""
    from memory_core.agents.activity import activity
    from memory_core.agents.memory_use import memory_use

    store = open_store(ctx)
    if show_use:
        use = memory_use(store, days=days)
        lists = {"recalled_most": use.recalled_most,
                 "recalled_never_cited": use.recalled_never_cited,
                 f"not_recalled_in_{days}_days": use.not_recalled}
        if as_json:
            emit_json({k: [asdict(r) for r in v] for k, v in lists.items()})
            return
        for name, listed in lists.items():
            echo(f"{name.replace('_', ' ')}:")
            print_table([["id", "recalls", "cites", "last recalled", "content"]]
                        + [[r.memory_id, str(r.recalls), str(r.cites), _when(r.last_recalled),
                            shorten(r.content, 60)] for r in listed], right={1, 2},
                        indent="  ")
        return
    act = activity(store, since=since, until=until, actor=actor)
    if as_json:
        emit_json({"sessions": [asdict(s) for s in act.sessions()],
                   "entries": [asdict(e) for e in act.entries]})
        return
    if not act.entries:
        echo("no agent activity recorded (recalls, remembers, cites, corrections)")
        return
    if show_recalls:
        rows = [["recall id", "at", "agent", "session", "tier", "tokens", "sent", "query"]]
        rows += [[e.recall_id or "-", _when(e.at), e.actor, e.session_id or "-", e.tier or "-",
                  str(e.tokens or 0), str(len(e.memory_ids)), shorten(e.query or "", 40)]
                 for e in act.entries if e.kind == "recall"]
        print_table(rows, right={5, 6})
        return
    rows = [["agent", "session", "recalls", "sent", "tokens", "remembers", "cites",
             "corrections", "last active"]]
    rows += [[s.actor, s.session_id or "-", str(s.recalls), str(s.memories_sent),
              str(s.tokens_sent), str(s.remembers), str(s.cites), str(s.corrections),
              _when(s.last_at)] for s in act.sessions()]
    print_table(rows, right={2, 3, 4, 5, 6, 7})


@click.command()
@store_options
@click.argument("recall_id")
@json_option("Print then, now and the differences as JSON.")
@click.pass_context
def replay(ctx: click.Context, recall_id: str, as_json: bool) -> None:
    """What a past recall sent, what the same query sends now, and why they differ."""
    from memory_core.agents.replay import replay as run_replay

    store = open_store(ctx)
    rep = run_replay(store, recall_id)
    if as_json:
        emit_json(rep.to_dict())
        return
    past = rep.recall
    echo(f"recall {past.recall_id} by {past.actor} at {_when(past.at)} UTC, session "
         f"{past.session_id or '-'}: {past.query!r}")
    echo(f"then: {' '.join(rep.then_ids) or '(nothing)'}")
    echo(f"now:  {' '.join(rep.now_ids) or '(nothing)'}")
    for knob, then, now in rep.config_changes:
        echo(f"config: {knob} {then!r} -> {now!r}")
    if rep.same:
        echo("the same memories, in the same order")
    for d in rep.differences:
        ranks = f"#{d.rank_then or '-'} -> #{d.rank_now or '-'}"
        echo(f"{d.memory_id} {ranks} {d.change}: {d.explanation}")


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (agents, replay)
