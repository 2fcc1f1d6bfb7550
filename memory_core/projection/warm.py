"""The background process that compiles the map's engine once per machine:
`start_map_warm` starts `python -m memory_core.projection.warm CACHE_DIR` detached, at low
priority, after `memlens init` or `serve` has seeded; it runs `engine.prepare` (a tiny fit
and placement under the compile lock) and leaves the engine's marker. It does nothing when
the engine is ready or being compiled, so starting it twice costs nothing.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from memory_core.projection import engine
from memory_core.projection.reducer import compile_kernels

log = logging.getLogger(__name__)

#: How much lower than the commands that started it the warm process runs (`nice`).
NICENESS = 10
LOG = "map-engine-warm.log"


def start_map_warm(cache_dir: Path | str | None = None) -> None:
    """Start the warm process for memlens' cache folder `cache_dir` (default
    MEMLENS_MODEL_CACHE's) unless `engine.map_engine_state` is "ready" or "compiling". It
    outlives the command that started it; its output goes to `map-engine-warm.log` in the
    numba cache folder. An error starting it is logged: the first map then compiles."""
    folder = Path(cache_dir or engine.default_cache_dir()).expanduser()
    if engine.map_engine_state(folder).state != "cold":
        return
    numba_dir = engine.numba_cache_dir(folder)
    try:
        numba_dir.mkdir(parents=True, exist_ok=True)
        engine.mark_started(folder)
        with (numba_dir / LOG).open("ab") as out:
            subprocess.Popen(  # noqa: S603 (this Python, this module, a path argument)
                [sys.executable, "-m", "memory_core.projection.warm", str(folder)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=out, close_fds=True,
                start_new_session=True, env={**os.environ, "NUMBA_CACHE_DIR": str(numba_dir)})
    except OSError as exc:
        log.warning("could not start compiling the map engine in the background (%s); the "
                    "first map compiles it", exc)


def main(argv: list[str] | None = None) -> int:
    """Compile the engine for the cache folder named in `argv` (default: memlens'), at low
    priority; 0 when it is ready."""
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else None
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    engine.prepare(compile_kernels, folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
