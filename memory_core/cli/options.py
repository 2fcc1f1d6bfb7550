"""What every `memlens` command shares: options, the store, ranking configs, errors, output.

Command modules import from here and from the engine, never from each other.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import click

from memory_core.config import Settings
from memory_core.errors import InvalidConfigError, MemlensError
from memory_core.filters import Filter
from memory_core.records import Memory
from memory_core.retrieval.config import DEFAULT_PRESET, PRESETS, RankingConfig, preset
from memory_core.store import MemoryStore

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

#: `--preset` values: the names of `memory_core.retrieval.config.PRESETS`, in its order.
PRESET_CHOICE = click.Choice(tuple(PRESETS))


# -- the store -----------------------------------------------------------------------------

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


# -- filters -------------------------------------------------------------------------------

def filter_options(status_default: str = "active") -> Decorator:
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
    return _stack(options)


def search_filter_options() -> Decorator:
    """The few `Filter` fields `memlens search` offers, worded for a search."""
    return _stack([
        click.option("--project", multiple=True, help="Only these projects."),
        click.option("--agent", multiple=True, help="Only these agents."),
        click.option("--type", "memory_type", multiple=True, help="Only these memory types."),
        click.option("--tag", "tags", multiple=True, help="Has any of these tags."),
        click.option("--status", multiple=True, help="active (default), archived, superseded."),
    ])


def _stack(options: Sequence[Decorator]) -> Decorator:
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def filter_from_options(values: dict[str, Any]) -> Filter:
    """The one `Filter` builder for filter options (empty repeats mean no restriction)."""
    return Filter(**{k: (v or None) for k, v in values.items()})  # type: ignore[arg-type]


# -- ranking configs -----------------------------------------------------------------------

def ranking_options(default: str = DEFAULT_PRESET) -> Callable[[Any], Any]:
    """`--preset NAME` (default `default`: `DEFAULT_PRESET` for search, `RECALL_PRESET` for
    recall) and `--config FILE`, which overrides it."""
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option("--config", "config_file", type=click.File("r"),
                          help="A RankingConfig as JSON (overrides --preset).")(fn)
        return click.option("--preset", "preset_name", default=default, show_default=True,
                            type=PRESET_CHOICE, help="Named ranking configuration.")(fn)
    return decorate


def pick_ranking(preset_name: str | None, config_file: IO[str] | None, *,
                 both: str | None = None) -> tuple[str, RankingConfig] | None:
    """(label, config) from a preset name or a RankingConfig JSON file; None if neither.

    `both` names the two flags when giving both is a mistake; without it the file wins
    (`--config` overrides a `--preset` that always has its default). The label is the
    preset's name or the file's stem ("config" for stdin).
    """
    if both and preset_name and config_file is not None:
        raise click.UsageError(f"give {both}, not both")
    if config_file is None:
        return (preset_name, preset(preset_name)) if preset_name else None
    name = getattr(config_file, "name", "-")
    try:
        data = json.load(config_file)
        if not isinstance(data, dict):
            raise TypeError(f"it holds a JSON {type(data).__name__}")
        config = RankingConfig.from_dict(data)
    except (json.JSONDecodeError, TypeError, AttributeError) as exc:
        raise InvalidConfigError(f"{name} is not a RankingConfig JSON object: {exc}") from exc
    stem = Path(name).stem if name not in ("-", "<stdin>") else ""
    return stem or "config", config


def default_ranking() -> tuple[str, RankingConfig]:
    """(`DEFAULT_PRESET`, its config): what a command ranks with when given neither."""
    return DEFAULT_PRESET, preset(DEFAULT_PRESET)


def ranking_of(preset_name: str | None, config_file: IO[str] | None) -> RankingConfig:
    """The config `ranking_options` chose: the `--config` file, else the `--preset`."""
    return (pick_ranking(preset_name, config_file) or default_ranking())[1]


# -- errors --------------------------------------------------------------------------------

@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn user mistakes (click errors, every `MemlensError`) into one stderr line, exit 1."""
    try:
        yield
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            hint = f" (see `{exc.ctx.command_path} --help`)"
        click.echo(f"Error: {exc.format_message()}{hint}", err=True)
        sys.exit(1)
    except MemlensError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)


# -- output --------------------------------------------------------------------------------

def json_option(help: str = "Print the result as JSON.") -> Decorator:
    """`--json` (parameter `as_json`): print data as JSON instead of text."""
    return click.option("--json", "as_json", is_flag=True, help=help)


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


def shorten(text: str, width: int) -> str:
    """`text` cut to `width` characters, the last one an ellipsis when cut.

    >>> shorten("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= width else text[: width - 1] + "…"


def memory_line(memory: Memory, width: int = 90) -> str:
    """One line describing a memory for listings."""
    first = memory.content.strip().splitlines()[0] if memory.content.strip() else ""
    where = "/".join(x for x in (memory.project, memory.agent) if x)
    return (f"{memory.id}  {memory.created_at:%Y-%m-%d}  {memory.memory_type:<16} "
            f"{where:<20} {shorten(first, width)}")

