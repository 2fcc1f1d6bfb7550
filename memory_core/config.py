"""Settings read from the environment at call time, never at import (STYLE habit 7)."""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memory_core.schema import DEFAULT_TENANT

DEFAULT_STORE = "./data/store"
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

_TRUE = {"1", "true", "yes", "on"}


def _default_actor(env: Mapping[str, str]) -> str:
    try:
        return env.get("MEMLENS_ACTOR") or getpass.getuser()
    except (KeyError, OSError):  # no passwd entry in some containers
        return "memlens"


@dataclass(frozen=True)
class Settings:
    """Where the store is, whose memories to show, and how to embed.

    Environment variables: `MEMLENS_STORE` (store URI, default `./data/store`),
    `MEMLENS_TENANT` (default `default`), `MEMLENS_READ_ONLY` (1/true/yes/on),
    `MEMLENS_EMBED_MODEL` (default the offline all-MiniLM-L6-v2; `none` disables embedding),
    `MEMLENS_MODEL_CACHE` (folder for model config files and fastembed caches, default
    `~/.cache/memlens`), `MEMLENS_ACTOR` (name written to the audit log, default the OS user).
    """

    store_uri: str = DEFAULT_STORE
    tenant: str = DEFAULT_TENANT
    read_only: bool = False
    embed_model: str = DEFAULT_MODEL
    model_cache: Path = Path("~/.cache/memlens").expanduser()
    actor: str = "memlens"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from `env` (default `os.environ`, read now), then `overrides` not None."""
        env = os.environ if env is None else env
        settings = cls(
            store_uri=env.get("MEMLENS_STORE") or DEFAULT_STORE,
            tenant=env.get("MEMLENS_TENANT") or DEFAULT_TENANT,
            read_only=env.get("MEMLENS_READ_ONLY", "").strip().lower() in _TRUE,
            embed_model=env.get("MEMLENS_EMBED_MODEL") or DEFAULT_MODEL,
            model_cache=Path(env.get("MEMLENS_MODEL_CACHE") or "~/.cache/memlens").expanduser(),
            actor=_default_actor(env),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(settings, **given) if given else settings
