"""Pieces every `memlens` command shares: store options, opening the store, output helpers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import click

from memory_core.config import Settings
from memory_core.filters import Filter
from memory_core.records import Memory
from memory_core.store import MemoryStore


def _remember(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.ensure_object(dict)
        ctx.obj[param.name] = value


def store_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--store` and `--tenant` on a command; they override the group's and the environment."""
    fn = click.option("--tenant", metavar="T", expose_value=False, callback=_remember,
                      help="Tenant whose memories to use (MEMLENS_TENANT).")(fn)
    fn = click.option("--store", metavar="URI", expose_value=False, callback=_remember,
                      help="Store folder or URI (MEMLENS_STORE, default ./data/store).")(fn)
    return fn


def filter_options(status_default: str = "active") -> Callable[[Callable[..., Any]], Any]:
    """The `Filter` fields as repeatable options (`--project`, `--type`, `--since`, ...)."""
    options = [
        click.option("--project", multiple=True, help="Project; repeat for any of several."),
        click.option("--repo", multiple=True),
        click.option("--agent", multiple=True),
        click.option("--session", "session_id", multiple=True),
        click.option("--type", "memory_type", multiple=True),
        click.option("--tag", "tags", multiple=True, help="Has any of these tags."),
        click.option("--status", multiple=True,
                     help=f"active, archived, superseded (default: {status_default}); repeat "
                          f"for several."),
        click.option("--importance", multiple=True),
        click.option("--embedding-status", multiple=True),
        click.option("--since", "created_after", help="Created at or after (ISO date)."),
        click.option("--until", "created_before", help="Created at or before (ISO date)."),
    ]

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def filter_from_options(values: dict[str, Any]) -> Filter:
    """A `Filter` from the values of `filter_options` (empty repeats mean no restriction)."""
    return Filter(**{k: (v or None) for k, v in values.items()})  # type: ignore[arg-type]


def settings_of(ctx: click.Context) -> Settings:
    """Settings from the environment, overridden by `--store` / `--tenant`."""
    obj = ctx.find_root().obj or {}
    own = ctx.obj or {}
    return Settings.from_env(
        store_uri=own.get("store") or obj.get("store"),
        tenant=own.get("tenant") or obj.get("tenant"),
    )


def open_store(
    ctx: click.Context, *, require_tenant: bool = False, check_vectors: bool = True
) -> MemoryStore:
    """The store the command line points at (created if missing)."""
    settings = settings_of(ctx)
    return MemoryStore.open(settings=settings, require_tenant=require_tenant,
                            check_vectors=check_vectors)


@contextmanager
def progress_bar(label: str, total: int | None = None, unit: str = "text"
                 ) -> Iterator[Callable[[int], None]]:
    """A tqdm bar on stderr (hidden when stderr is not a terminal); yields `advance(n)`."""
    from tqdm import tqdm

    with tqdm(total=total, desc=label, unit=unit, disable=None, leave=False) as bar:
        yield bar.update


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)


def emit_json(value: Any) -> None:
    """Print `value` as indented JSON on stdout."""
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=_default))


def memory_line(memory: Memory, width: int = 90) -> str:
    """One line describing a memory for listings."""
    first = memory.content.strip().splitlines()[0] if memory.content.strip() else ""
    if len(first) > width:
        first = first[: width - 1] + "…"
    where = "/".join(x for x in (memory.project, memory.agent) if x)
    return (f"{memory.id}  {memory.created_at:%Y-%m-%d}  {memory.memory_type:<16} "
            f"{where:<20} {first}")
