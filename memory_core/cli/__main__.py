"""`python -m memory_core.cli`: the `memlens` command without its installed script."""

from memory_core.cli import main

main()
