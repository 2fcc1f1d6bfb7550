"""The tool layers (ADR-008 in docs/design/seeds.md) and each tool's token budget.

Each tool states its budget in its description.

A budget is the most tokens (the shipped tokenizer, `memory_core.retrieval.budget`) a tool's
answer takes on the demo store at its default arguments; a test runs every tool there and
keeps each figure true. Recall also never sends more than its `max_tokens` argument.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layer:
    """One ADR-008 layer: its number and what it is for."""

    number: int
    name: str


ORCHESTRATION = Layer(1, "orchestration: start here")
DISCOVERY = Layer(2, "discovery")
SURGICAL = Layer(3, "surgical writes")
EXPLORATION = Layer(4, "exploration")
DETAIL = Layer(5, "detail")


@dataclass(frozen=True)
class Budget:
    """A tool's layer, its token budget and whether it writes."""

    layer: Layer
    tokens: int
    writes: bool = False

    def head(self) -> str:
        """The first line of the tool's description: layer and budget."""
        return f"[L{self.layer.number} {self.layer.name}; answer <= {self.tokens} tokens]"


#: Recall's `max_tokens` default: the most a recall answer ever takes unless asked for more.
RECALL_MAX_TOKENS = 2000

BUDGETS: dict[str, Budget] = {
    "memory_overview": Budget(ORCHESTRATION, 400),
    "recall": Budget(DISCOVERY, 700),
    "herd_recall": Budget(DISCOVERY, 700),
    "remember": Budget(SURGICAL, 100, writes=True),
    "cite": Budget(SURGICAL, 50, writes=True),
    "correct": Budget(SURGICAL, 200, writes=True),
    "supersede": Budget(SURGICAL, 120, writes=True),
    "why": Budget(EXPLORATION, 1200),
    "related": Budget(EXPLORATION, 1100),
    "consolidation_candidates": Budget(EXPLORATION, 1600),
    "get_memory": Budget(DETAIL, 1600),
}


def described(name: str, text: str) -> str:
    """`text` under the layer-and-budget line of tool `name`."""
    return f"{BUDGETS[name].head()}\n{text}"


def read_tool_names() -> list[str]:
    """The tools a read-only server serves."""
    return [name for name, budget in BUDGETS.items() if not budget.writes]
