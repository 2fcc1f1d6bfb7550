"""The examples in memory_core's docstrings run and print what they say.

A docstring example is documentation a reader trusts; run here, it cannot drift from the code
(a map module's examples failed unnoticed when scikit-learn stopped being installed).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import memory_core


def _modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(memory_core.__path__, "memory_core.")]
    # a package's __main__ runs its command line on import
    return sorted(n for n in ["memory_core", *names] if not n.endswith(".__main__"))


def _with_examples() -> list[str]:
    finder = doctest.DocTestFinder()
    return [name for name in _modules()
            if any(t.examples for t in finder.find(importlib.import_module(name)))]


@pytest.mark.parametrize("name", _with_examples())
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS,
                             report=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"


def test_the_examples_are_found() -> None:
    # the search, the window BM25 and the filters each document themselves by example
    found = _with_examples()
    assert {"memory_core.model.filters", "memory_core.retrieval.window_bm25",
            "memory_core.retrieval.context"} <= set(found)
