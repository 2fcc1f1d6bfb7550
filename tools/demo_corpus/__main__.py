"""`python -m tools.demo_corpus [FOLDER]`: regenerate the committed demo corpus (by default
into memory_core/demo_data/, the package data `memlens init --demo` seeds), vectors too."""

from __future__ import annotations

import sys
from pathlib import Path

from memory_core.seeding import demo_dir
from tools.demo_corpus.files import write_demo_files


def main(argv: list[str]) -> int:
    """Write the files; prints where."""
    folder = Path(argv[0]) if argv else demo_dir()
    export, queries = write_demo_files(folder)
    print(f"wrote {export}, {queries} and the order and vectors beside them")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
