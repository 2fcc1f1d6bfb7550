"""The BM25 tokenisation of a store, chosen deliberately and recorded in the store.

The full-text index on `content` tokenises with LanceDB's `simple` tokenizer (split on
non-alphanumerics), lower-cases, folds accents to ASCII (`café` finds `cafe`), drops English
stop words and stems with the English Snowball stemmer (`deploys` finds `deploy`): memories
and queries are short natural-language sentences, where stemming and stop words help recall
and cost little precision. These settings are written into the `memories` table's schema
metadata (`memlens.fts`) when the index is first built, and every later build (`memlens
index`, a purge's rebuild, another machine) reads them back, so a rebuilt index tokenises as
the one before did, even after memlens's own defaults change. A store indexed before the
settings were recorded was built with these same values (LanceDB's defaults).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memory_core.model.errors import InvalidConfigError

META_FTS = "memlens.fts"

#: The tokenisation memlens builds new full-text indexes with (see the module doc).
DEFAULT_FTS: dict[str, Any] = {
    "base_tokenizer": "simple",
    "language": "English",
    "lower_case": True,
    "ascii_folding": True,
    "remove_stop_words": True,
    "stem": True,
    "max_token_length": 40,
}


def check_fts_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` over the defaults; unknown keys or wrong types are an error naming them."""
    unknown = sorted(set(settings) - set(DEFAULT_FTS))
    if unknown:
        raise InvalidConfigError(f"unknown full-text setting(s) {', '.join(unknown)}; known: "
                                 f"{', '.join(DEFAULT_FTS)}")
    out = {**DEFAULT_FTS, **settings}
    for key, default in DEFAULT_FTS.items():
        if type(out[key]) is not type(default):
            raise InvalidConfigError(f"full-text setting {key} must be a "
                                     f"{type(default).__name__}, got {out[key]!r}")
    return out


def recorded_fts(table: Any) -> dict[str, Any] | None:
    """The settings recorded in the table's schema metadata, or None if none are."""
    raw = (table.schema.metadata or {}).get(META_FTS.encode())
    return check_fts_settings(json.loads(raw)) if raw else None


def fts_settings(table: Any) -> dict[str, Any]:
    """The settings the table's full-text index is (to be) built with."""
    return recorded_fts(table) or dict(DEFAULT_FTS)


def record_fts(table: Any, settings: Mapping[str, Any]) -> None:
    """Write `settings` into the table's schema metadata (the caller holds the write lock)."""
    text = json.dumps(check_fts_settings(settings), sort_keys=True)
    table.to_lance().update_schema_metadata({META_FTS: text})
    table.checkout_latest()


def build_fts_index(table: Any, column: str,
                    settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """(Re)build the full-text index on `table`'s `column` with `settings` (default: those
    recorded, else `DEFAULT_FTS`), recording them when they are not yet; returns the settings
    used. The caller holds the store's write step (`FullTextIndex.build`), so a failure half
    way leaves no index without its settings."""
    from lancedb.index import FTS

    chosen = check_fts_settings(settings) if settings is not None else fts_settings(table)
    table.create_index(column, config=FTS(**chosen), replace=True)
    if recorded_fts(table) != chosen:
        record_fts(table, chosen)
    return chosen
