"""`memlens consolidate suggest | accept | reject | evaluate`: reflections from groups of
related memories (HADES's reflections), thin over `memory_core.consolidation` and
`memory_core.curation.consolidate`.

`suggest` lists the candidates, strongest first, each with its rule-based draft; `accept`
writes one as a reflection through the curation flow every curation command shares
(previewed, confirmed, audited, undoable; `--impact` previews its effect on retrieval);
`reject` remembers a candidate is not wanted until its members change; `evaluate` scores the
grouping against the store's own reflections. Memory content is untrusted: every line goes
through `echo`, values are shortened; `--json` prints them whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memory_core.cli.curation_flow import act, write_options
from memory_core.cli.options import (
    filter_from_options,
    filter_options,
    json_option,
    open_store,
    refuse_empty,
    store_options,
)
from memory_core.cli.output import echo, emit_json, shorten
from memory_core.cli.stage_progress import staged_progress
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    from memory_core.consolidation import Candidate

#: Characters of a draft and members listed per candidate.
DRAFT_CHARS = 240
MEMBERS_SHOWN = 6


def _print(candidate: Candidate) -> None:
    c = candidate
    where = ", ".join(c.projects) or "no project"
    echo(f"{c.id}  strength {c.strength:.3f}  cohesion {c.cohesion:.3f}  "
         f"{len(c.members)} memories  {c.start:%Y-%m-%d}..{c.end:%Y-%m-%d}  "
         f"{shorten(where, 40)}  agents: {shorten(', '.join(c.agents) or '-', 40)}")
    echo(f"    terms: {shorten(', '.join(c.terms), 80)}")
    echo(f"    draft: {shorten(' '.join(c.draft.split()), DRAFT_CHARS)}")
    more = len(c.members) - MEMBERS_SHOWN
    echo(f"    members: {' '.join(c.members[:MEMBERS_SHOWN])}"
         f"{f' (+{more} more)' if more > 0 else ''}")


@click.group()
def consolidate() -> None:
    """Reflections from groups of related memories: suggest, accept, reject, evaluate."""


@consolidate.command()
@store_options
@filter_options(status_default="active")
@click.option("--limit", type=click.IntRange(min=1),
              help="At most this many candidates, the strongest first (default: all).")
@click.option("--include-rejected", is_flag=True, help="List rejected candidates too.")
@json_option("Print the candidates (members, cohesion, strength, times, agents, projects, "
             "terms, draft) as JSON.")
@click.pass_context
def suggest(ctx: click.Context, limit: int | None, include_rejected: bool, as_json: bool,
            **filters: Any) -> None:
    """Groups of related active observations, events and learnings that no reflection
    consolidates yet, strongest first, each with a draft written from its members' own
    sentences. Filter options keep the candidates with a member they select. Writes
    nothing."""
    from memory_core.consolidation import consolidation_candidates

    store = open_store(ctx, require_tenant=True)
    filter = filter_from_options(filters) if any(filters.values()) else None
    with staged_progress("consolidation candidates") as progress:
        found = consolidation_candidates(store, filter, limit=limit,
                                         include_rejected=include_rejected,
                                         progress=progress)
    if as_json:
        emit_json([c.to_dict() for c in found])
        return
    for candidate in found:
        _print(candidate)
    n = len(found)
    echo(f"{n} candidate{'' if n == 1 else 's'}; accept one with `memlens consolidate accept "
         f"ID`, reject it with `memlens consolidate reject ID`", err=True)


def _content(edit: Path | None, draft: str) -> tuple[str, str]:
    """(content, method): the file's text as a manual reflection, else the draft."""
    if edit is None:
        return draft, "rule_based"
    try:
        text = edit.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {shown(str(edit))}: {exc}",
                                 param_hint="--edit") from exc
    if not text.strip():
        raise click.BadParameter(f"{shown(str(edit))} is empty: write the reflection in it",
                                 param_hint="--edit")
    return text.strip(), "manual"


@consolidate.command()
@store_options
@click.argument("candidate_id")
@click.option("--edit", "edit", metavar="FILE",
              type=click.Path(dir_okay=False, path_type=Path),
              help="Write this file's text as the reflection (method manual) instead of the "
                   "draft (method rule_based).")
@click.option("--archive-sources", is_flag=True,
              help="Archive the members in the same batch (undo brings them back).")
@write_options
@click.pass_context
def accept(ctx: click.Context, candidate_id: str, edit: Path | None, archive_sources: bool,
           reason: str | None, dry_run: bool, yes: bool, as_json: bool) -> None:
    """Write candidate CANDIDATE_ID as a reflection: a `reflection` memory derived_from each
    member, in one curation batch (previewed, confirmed unless --yes, undoable)."""
    from memory_core.consolidation import get_candidate
    from memory_core.curation import consolidate as write_reflection

    store = open_store(ctx, require_tenant=True)
    found = get_candidate(store, candidate_id)
    content, method = _content(edit, found.draft)
    act(ctx, store, write_reflection, list(found.members), content,
        archive_sources=archive_sources, method=method, candidate_id=found.id, reason=reason,
        yes=yes, dry_run=dry_run, as_json=as_json)


@consolidate.command()
@store_options
@click.argument("candidate_id")
@click.option("--reason", callback=refuse_empty("to give no reason"),
              help="Why: kept in the audit log.")
@click.pass_context
def reject(ctx: click.Context, candidate_id: str, reason: str | None) -> None:
    """Reject candidate CANDIDATE_ID: it is not suggested again until one of its members
    changes (an edit, an archive and restore, a member joining or leaving the group)."""
    from memory_core.consolidation import reject as reject_candidate

    store = open_store(ctx, require_tenant=True)
    store.check_writable("rejecting a consolidation candidate")
    reject_candidate(store, candidate_id, reason=reason)
    echo(f"rejected {candidate_id}: not suggested again until one of its members changes")


@consolidate.command()
@store_options
@json_option("Print the scores as JSON.")
@click.pass_context
def evaluate(ctx: click.Context, as_json: bool) -> None:
    """Score the grouping against the store's own reflections: on a temporary copy without
    them, pairwise precision, recall and F1 and the adjusted Rand index of the groups
    against the sources each reflection was derived from. Writes nothing to the store."""
    from dataclasses import asdict

    from memory_core.consolidation.ground_truth import grouping_scores

    store = open_store(ctx, require_tenant=True)
    with staged_progress("scoring the grouping") as progress:
        scores = grouping_scores(store, progress=progress)
    if as_json:
        emit_json(asdict(scores))
        return
    echo(f"pairwise precision {scores.precision:.3f}  recall {scores.recall:.3f}  "
         f"F1 {scores.f1:.3f}  adjusted Rand {scores.ari:.3f}")
    echo(f"  against {scores.truth_sets} reflections' sources ({scores.labelled} memories); "
         f"{scores.groups} groups of {scores.grouped} memories in {scores.seconds:.1f} s")


#: What `memory_core.cli` registers from this family.
COMMANDS: tuple[click.Command, ...] = (consolidate,)
