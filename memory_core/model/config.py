"""Settings read from the environment at call time, never at import (STYLE habit 7)."""

from __future__ import annotations

import getpass
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memory_core.model.errors import InvalidConfigError, StoreNotAllowedError
from memory_core.model.schema import DEFAULT_TENANT
from memory_core.model.untrusted import shown

DEFAULT_STORE = "./data/store"
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

#: The spellings a yes/no variable (MEMLENS_READ_ONLY) accepts, in the order its error lists
#: them; unset or empty means no. Anything else is refused: a typo (`ro`, `2`) must not
#: leave writes on.
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
#: MEMLENS_STORES separators: commas and os.pathsep, but not the colon of `s3://`.
_STORE_SEPARATORS = re.compile(",|:(?!//)" if os.pathsep == ":" else f",|{re.escape(os.pathsep)}")


def split_stores(text: str) -> tuple[str, ...]:
    """The store URIs of a MEMLENS_STORES value (os.pathsep- or comma-separated).

    >>> split_stores("./data/store, s3://bucket/memories,")
    ('./data/store', 's3://bucket/memories')
    """
    return tuple(part.strip() for part in _STORE_SEPARATORS.split(text) if part.strip())


def env_flag(env: Mapping[str, str], name: str) -> bool:
    """The yes/no variable `name` of `env`: unset or empty is False; 1/true/yes/on (any case)
    True, 0/false/no/off False; any other value raises `InvalidConfigError` listing them.

    >>> env_flag({"MEMLENS_READ_ONLY": " Yes "}, "MEMLENS_READ_ONLY")
    True
    """
    value = env.get(name, "").strip().lower()
    if value in _TRUE:
        return True
    if not value or value in _FALSE:
        return False
    raise InvalidConfigError(
        f"{name} is {shown(env[name])}, which is neither yes nor no; set it to one of "
        f"{', '.join(_TRUE)} (on) or {', '.join(_FALSE)} (off), or unset it")


def store_key(uri: str) -> str:
    """`uri` in the form two spellings of one store share: a local path absolute, with `~`
    and symlinks resolved; an object-storage URI without its trailing slash."""
    if "://" in uri and not uri.startswith("file://"):
        return uri.rstrip("/")
    try:
        return os.path.realpath(Path(uri.removeprefix("file://")).expanduser())
    except (OSError, ValueError):  # a NUL byte, a path too long: no store has that name
        return uri


#: Environment variables object storage reads (`Settings.storage_env`): the AWS SDK's own
#: and memlens' pass-through of further LanceDB storage options.
_STORAGE_PREFIXES = ("AWS_", "MEMLENS_STORAGE_")


def _storage_env(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in env.items() if k.startswith(_STORAGE_PREFIXES)))


def _default_actor(env: Mapping[str, str]) -> str:
    try:
        return env.get("MEMLENS_ACTOR") or getpass.getuser()
    except (KeyError, OSError):  # no passwd entry in some containers
        return "memlens"


@dataclass(frozen=True)
class Settings:
    """Where the store is, whose memories to show, and how to embed.

    Environment variables: `MEMLENS_STORE` (store URI, default `./data/store`),
    `MEMLENS_TENANT` (default `default`), `MEMLENS_READ_ONLY` (1/true/yes/on; 0/false/no/off
    or unset for off; anything else is refused, `env_flag`),
    `MEMLENS_EMBED_MODEL` (default the offline all-MiniLM-L6-v2; `none` disables embedding),
    `MEMLENS_MODEL_CACHE` (folder for model config files, fastembed caches and cached maps,
    default `~/.cache/memlens`), `MEMLENS_ACTOR` (name written to the audit log, default
    the OS user), `MEMLENS_STORES` (further stores the web app may open besides
    `MEMLENS_STORE`, os.pathsep- or comma-separated; default none: the app opens the
    configured store only). A store on object storage (`s3://bucket/prefix`) also reads
    `AWS_ENDPOINT_URL`, `AWS_REGION`/`AWS_DEFAULT_REGION`, `AWS_ACCESS_KEY_ID`,
    `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_ALLOW_HTTP` and
    `MEMLENS_STORAGE_OPTIONS` (`storage_env`; `memory_core.store.object_storage` turns them
    into LanceDB's storage options). `MEMLENS_ACCEL` (default on; 0/false/no/off turns off
    the store's speed-up layer, `memory_core.store.accel`, and retrieval's search threads,
    for comparison: same answers through LanceDB's own calls, run serially).
    """

    store_uri: str = DEFAULT_STORE
    tenant: str = DEFAULT_TENANT
    read_only: bool = False
    embed_model: str = DEFAULT_MODEL
    model_cache: Path = Path("~/.cache/memlens").expanduser()
    actor: str = "memlens"
    stores: tuple[str, ...] = ()
    #: The store's speed-up layer (`memory_core.store.accel`) and the search threads on; off
    #: answers the same queries through LanceDB's own calls, serially (MEMLENS_ACCEL).
    accel: bool = True
    #: The object-storage variables of the environment, as (name, value) pairs; kept out of
    #: repr, as they hold secrets.
    storage_env: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from `env` (default `os.environ`, read now), then `overrides` not None."""
        env = os.environ if env is None else env
        settings = cls(
            store_uri=env.get("MEMLENS_STORE") or DEFAULT_STORE,
            tenant=env.get("MEMLENS_TENANT") or DEFAULT_TENANT,
            read_only=env_flag(env, "MEMLENS_READ_ONLY"),
            embed_model=env.get("MEMLENS_EMBED_MODEL") or DEFAULT_MODEL,
            model_cache=Path(env.get("MEMLENS_MODEL_CACHE") or "~/.cache/memlens").expanduser(),
            actor=_default_actor(env),
            stores=split_stores(env.get("MEMLENS_STORES", "")),
            storage_env=_storage_env(env),
            accel=env_flag(env, "MEMLENS_ACCEL") or not env.get("MEMLENS_ACCEL", "").strip(),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(settings, **given) if given else settings

    @property
    def map_cache(self) -> Path:
        """The folder of cached embedding maps (`memlens map`, the Map page): `maps` under
        `model_cache` (MEMLENS_MODEL_CACHE)."""
        return self.model_cache / "maps"

    @property
    def allowed_stores(self) -> tuple[str, ...]:
        """The stores the web app may open: the configured one, then `stores`."""
        return tuple(dict.fromkeys((self.store_uri, *self.stores)))

    def is_configured_store(self, uri: str) -> bool:
        """Whether `uri` names the configured store (`store_uri`), however it is spelt."""
        return store_key(uri) == store_key(self.store_uri)

    def check_store_allowed(self, uri: str) -> None:
        """Refuse a store the web app is not allowed to open (`StoreNotAllowedError`): a
        shared deployment must not be pointed at arbitrary folders of the server."""
        if store_key(uri) not in {store_key(allowed) for allowed in self.allowed_stores}:
            raise StoreNotAllowedError(
                f"the store {shown(uri)} is not one this app may open; the operator lists "
                f"the stores it may open in MEMLENS_STORES (besides MEMLENS_STORE)")
