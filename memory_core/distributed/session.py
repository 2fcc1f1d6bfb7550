"""A Ray session for one job: connect to RAY_ADDRESS, or start Ray on this machine.

Ray is imported here only, lazily: the in-process path never loads it. A local instance
starts with this process's import path handed to its workers (so they run the same
memory_core, even from a source checkout), no dashboard, and Ray's own logs and progress
bars kept out of the CLI's output; it is shut down when the job ends. A cluster's workers
need memlens installed (`pip install "memlens[ray]"`) and access to the store's URI.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memory_core.model.errors import EngineUnavailableError

INSTALL_HINT = 'install it with `pip install "memlens[ray]"`'


def import_ray() -> Any:
    """The `ray` module with Ray Data, or an `EngineUnavailableError` saying how to get it."""
    try:
        import ray
        import ray.data  # noqa: F401  (read_lance lives there)
    except ImportError as exc:
        raise EngineUnavailableError(
            f"--engine ray needs the Ray package, which is not installed ({exc}); "
            f"{INSTALL_HINT}, or run the job in-process with --engine local") from exc
    return ray


def _worker_path() -> str:
    """This process's import path, for the workers of a local instance."""
    return os.pathsep.join(p for p in (str(Path(e).resolve()) for e in sys.path if e)
                           if Path(p).is_dir())


@contextmanager
def ray_session(*, num_cpus: int | None = None) -> Iterator[Any]:
    """Yield `ray`, connected for the duration of the block.

    Connects to the cluster RAY_ADDRESS names when it is set; otherwise starts Ray on this
    machine with `num_cpus` (default: every core) and stops it afterwards. A session that
    was already running (a notebook's) is used and left running.
    """
    ray = import_ray()
    for name in ("ray", "ray.data"):  # its notices (token set-up, progress bars off) are noise
        logging.getLogger(name).setLevel(logging.ERROR)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    if ray.is_initialized():
        yield ray
        return
    address = os.environ.get("RAY_ADDRESS") or None
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                               "logging_level": logging.ERROR}
    if address is None:
        options.update(num_cpus=num_cpus or os.cpu_count() or 1,
                       runtime_env={"env_vars": {"PYTHONPATH": _worker_path()}})
    try:
        with warnings.catch_warnings():
            # lancedb warns on every fork; Ray's start forks its daemons, not our tables
            warnings.filterwarnings("ignore", message=".*fork support is experimental.*")
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at RAY_ADDRESS={address}" if address else "Ray on this machine"
        raise EngineUnavailableError(
            f"cannot start or reach {where} ({exc}); check RAY_ADDRESS (unset it to start "
            f"Ray locally), or run the job in-process with --engine local") from exc
    try:
        yield ray
    finally:
        ray.shutdown()
