"""The options every `memlens` command shares: the store, filters, ranking configs, dates,
`--engine` and `--json`.

Command modules import from here, from `memory_core.cli.output` (what they print) and from the
engine, never from each other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import click

from memory_core.model.config import Settings
from memory_core.model.errors import InvalidConfigError
from memory_core.model.filters import Filter
from memory_core.model.untrusted import shown
from memory_core.retrieval.config import DEFAULT_PRESET, PRESETS, RankingConfig, preset
from memory_core.store import MemoryStore

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

#: `--preset` values: the names of `memory_core.retrieval.config.PRESETS`, in its order.
PRESET_CHOICE = click.Choice(tuple(PRESETS))


# -- empty values --------------------------------------------------------------------------

Callback = Callable[[click.Context, click.Parameter, Any], Any]

#: What leaving `--store` / `--tenant` out means, for the message refusing an empty one.
UNSET_STORE = "to use MEMLENS_STORE (default ./data/store)"
UNSET_TENANT = "to use MEMLENS_TENANT (default 'default')"


def refuse_empty(unset: str) -> Callback:
    """An option callback refusing an empty value, with `unset` saying what leaving the
    option out does: `--project ""` is nearly always an unset shell variable, and an empty
    value could mean either "no restriction" or "match nothing".
    """
    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value == "" or (isinstance(value, tuple) and "" in value):
            raise click.UsageError(f"{param.opts[0]} is empty; leave the option out {unset}",
                                   ctx=ctx)
        return value

    return check


# -- the store -----------------------------------------------------------------------------

def _remember(unset: str) -> Callback:
    refuse = refuse_empty(unset)

    def remember(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
        if refuse(ctx, param, value) is not None:
            ctx.ensure_object(dict)
            ctx.obj[param.name] = value

    return remember


#: The help of `--read-only`, on the group and on every command that opens a store.
READ_ONLY_HELP = ("Open the store read-only (MEMLENS_READ_ONLY=1): every write to it is "
                  "refused.")


def _remember_read_only(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    # only a given flag is remembered: the flag left out must not undo the group's
    if value:
        ctx.ensure_object(dict)
        ctx.obj["read_only"] = True


def read_only_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--read-only`: open the store read-only, whatever MEMLENS_READ_ONLY says (it can only
    add the restriction, never lift the environment's)."""
    return click.option("--read-only", is_flag=True, expose_value=False,
                        callback=_remember_read_only, help=READ_ONLY_HELP)(fn)


def store_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--store`, `--tenant` and `--read-only` on a command; they override the group's and
    the environment."""
    fn = read_only_option(fn)
    fn = click.option("--tenant", metavar="T", expose_value=False,
                      callback=_remember(UNSET_TENANT),
                      help="Tenant whose memories to use (MEMLENS_TENANT).")(fn)
    fn = click.option("--store", metavar="URI", expose_value=False,
                      callback=_remember(UNSET_STORE),
                      help="Store folder or URI (MEMLENS_STORE, default ./data/store).")(fn)
    return fn


def settings_of(ctx: click.Context) -> Settings:
    """Settings from the environment, overridden by `--store` / `--tenant` / `--read-only`."""
    obj = ctx.find_root().obj or {}
    own = ctx.obj or {}
    return Settings.from_env(
        store_uri=own.get("store") or obj.get("store"),
        tenant=own.get("tenant") or obj.get("tenant"),
        read_only=True if own.get("read_only") or obj.get("read_only") else None,
    )


def open_store(
    ctx: click.Context, *, require_tenant: bool = False, check_vectors: bool = True,
    create: bool = False,
) -> MemoryStore:
    """The store the command line points at. A missing one is an error naming the path
    (`StoreNotFoundError`) and nothing is created, unless `create`: only `init`, `add`,
    `import` and a seeding `serve` create a store, so a mistyped `--store` of any other
    command never becomes a new, empty store."""
    settings = settings_of(ctx)
    return MemoryStore.open(settings=settings, require_tenant=require_tenant,
                            check_vectors=check_vectors, create=create)


# -- filters -------------------------------------------------------------------------------

def _filter_option(flag: str, field: str, unset: str, **kwargs: Any) -> Decorator:
    """An option filling the `Filter` field `field`; an empty value is refused."""
    return click.option(flag, field, callback=refuse_empty(unset), **kwargs)


def _date_option(flag: str, field: str, unset: str, **kwargs: Any) -> Decorator:
    """A `Filter` time bound: an empty value is refused, and a date outside the range
    memlens accepts (`date_range`) is one line naming the option."""
    from memory_core.model.date_range import user_time

    refuse = refuse_empty(unset)

    def check(ctx: click.Context, param: click.Parameter, value: str | None
              ) -> datetime | None:
        value = refuse(ctx, param, value)
        return None if value is None else user_time(value, flag)

    return click.option(flag, field, callback=check, **kwargs)


def filter_options(status_default: str = "active") -> Decorator:
    """The `Filter` fields as repeatable options (`--project`, `--type`, `--since`, ...)."""
    status = f"for the default ({status_default})"
    options = [
        _filter_option("--project", "project", "to match every project", multiple=True,
                       help="Project; repeat for any of several."),
        _filter_option("--repo", "repo", "to match every repo", multiple=True),
        _filter_option("--agent", "agent", "to match every agent", multiple=True),
        _filter_option("--session", "session_id", "to match every session", multiple=True),
        _filter_option("--type", "memory_type", "to match every memory type", multiple=True),
        _filter_option("--tag", "tags", "to match whatever the tags", multiple=True,
                       help="Has any of these tags."),
        _filter_option("--status", "status", status, multiple=True,
                       help=f"active, archived, superseded (default: {status_default}); "
                            f"repeat for several."),
        _filter_option("--importance", "importance", "to match every importance",
                       multiple=True),
        _filter_option("--embedding-status", "embedding_status",
                       "to match every embedding status", multiple=True),
        _date_option("--since", "created_after", "for no lower bound",
                     help="Created at or after (ISO date, 1900-01-01 to 9000-12-31)."),
        _date_option("--until", "created_before", "for no upper bound",
                     help="Created at or before (ISO date, 1900-01-01 to 9000-12-31)."),
    ]
    return _stack(options)


def search_filter_options() -> Decorator:
    """The few `Filter` fields `memlens search` offers, worded for a search."""
    return _stack([
        _filter_option("--project", "project", "to match every project", multiple=True,
                       help="Only these projects."),
        _filter_option("--agent", "agent", "to match every agent", multiple=True,
                       help="Only these agents."),
        _filter_option("--type", "memory_type", "to match every memory type", multiple=True,
                       help="Only these memory types."),
        _filter_option("--tag", "tags", "to match whatever the tags", multiple=True,
                       help="Has any of these tags."),
        _filter_option("--status", "status", "for the default (active)", multiple=True,
                       help="active (default), archived, superseded."),
    ])


def _stack(options: Sequence[Decorator]) -> Decorator:
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def filter_from_options(values: dict[str, Any]) -> Filter:
    """The one `Filter` builder for filter options: an option not given (None, or no
    repeats) means no restriction; an empty value never gets here (`refuse_empty`)."""
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


def parse_as_of(ctx: click.Context, param: click.Parameter, value: str | None
                ) -> datetime | None:
    """An `--as-of DATE` callback: the decay clock as a UTC datetime (None if not given),
    within the dates memlens accepts (`memory_core.model.date_range`)."""
    from memory_core.model.date_range import user_time
    from memory_core.model.errors import InvalidRecordError
    from memory_core.model.values import as_utc

    if value is None:
        return None
    try:
        as_utc(value)
    except InvalidRecordError:
        raise click.BadParameter(f"expected an ISO-8601 date or time such as 2026-11-01 or "
                                 f"2026-11-01T12:00:00Z, got {shown(value)}", ctx=ctx,
                                 param=param) from None
    except OverflowError:  # past year 9999 in UTC: user_time says which range
        pass
    return user_time(value, param.opts[0])


# -- where a job runs, what it prints ------------------------------------------------------

def engine_option(job: str) -> Decorator:
    """`--engine local|ray` (parameter `engine`): where a bulk job runs
    (memory_core.distributed)."""
    from memory_core.distributed import ENGINES

    return click.option(
        "--engine", type=click.Choice(ENGINES), default="local", show_default=True,
        help=f"local: {job} in this process. ray: on the Ray cluster RAY_ADDRESS names, or "
             f"on Ray started on this machine (needs the `ray` extra); the same result.")


def json_option(help: str = "Print the result as JSON.") -> Decorator:
    """`--json` (parameter `as_json`): print data as JSON instead of text."""
    return click.option("--json", "as_json", is_flag=True, help=help)

