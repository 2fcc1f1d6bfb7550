"""The notebooks are stored without outputs and use only the public `memory_core` API
(they run as tests themselves through `pytest --nbmake`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import memory_core

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+import\s+\(?([^)]*)\)?|import\s+(\S+))", re.M)


def test_every_notebook_is_there() -> None:
    assert [p.name for p in NOTEBOOKS] == ["01_retrieval_quality.ipynb",
                                           "02_ranking_comparison.ipynb",
                                           "03_embedding_map.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs_and_on_the_public_api(path: Path) -> None:
    book = json.loads(path.read_text())
    code = [c for c in book["cells"] if c["cell_type"] == "code"]
    assert code and all(c["outputs"] == [] and c["execution_count"] is None for c in code)
    for cell in code:
        for module, names, plain in IMPORT.findall("".join(cell["source"])):
            name = module or plain
            assert not name.startswith("memory_core.") or name.startswith("memory_core.viz"), \
                f"{path.name} reaches into {name}; use `from memory_core import ...`"
            if name == "memory_core":
                imported = {n.strip() for n in names.replace("\n", " ").split(",") if n.strip()}
                assert imported <= set(memory_core.__all__), imported - set(memory_core.__all__)
