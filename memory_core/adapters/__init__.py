"""Importers of foreign memory formats, one module or folder each, behind `Adapter` (see
`base`); `lance_tables` reads every LanceDB-table format through one adapter.

Each adapter is an `ExportReader` that `memory_core.exchange.readers` finds through the
`memlens.formats` entry points in `pyproject.toml` (its `sniff_order` says when `--format
auto` asks it), so `memlens import PATH --format NAME` reaches every one and the exchange
package never imports this one.
"""

from __future__ import annotations

from memory_core.adapters.base import Adapter

__all__ = ["Adapter"]
