"""Importers of foreign memory formats, one module each, behind `Adapter` (see `base`).

`builtin_adapters()` lists them in the order `--format auto` asks them whether they recognise
a path; `memory_core.exchange.readers` registers them beside the `memlens` export reader, so
`memlens import PATH --format NAME` reaches every one.
"""

from __future__ import annotations

from importlib import import_module

from memory_core.adapters.base import Adapter

__all__ = ["ADAPTER_CLASSES", "Adapter", "builtin_adapters"]

#: module:class of each built-in adapter, most specific sniff first.
ADAPTER_CLASSES: tuple[str, ...] = (
    "superagents:SuperagentsReader",
    "locomo:LocomoAdapter",
    "longmemeval:LongMemEvalAdapter",
    "mcp_memory:McpMemoryAdapter",
    "mem0:Mem0Adapter",
    "herd:HerdAdapter",
    "make_skills:MakeSkillsAdapter",
    "lancedb_table:LanceDBTableAdapter",
    "hades:HadesAdapter",
    "decision_records:DecisionRecordsAdapter",
    "claude_code:ClaudeCodeAdapter",
)


def builtin_adapters() -> list[Adapter]:
    """One instance of each built-in adapter, in sniffing order."""
    adapters = []
    for entry in ADAPTER_CLASSES:
        module, name = entry.split(":")
        adapters.append(getattr(import_module(f"memory_core.adapters.{module}"), name)())
    return adapters
