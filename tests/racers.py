"""Two real `memlens` processes that race each other on a store, round after round (the
concurrent-writer tests of issues 18 and 20).

A racer is a process that loads the CLI (and LanceDB) once, then runs the rounds it is
sent, one at a time: it says it is ready, waits for its go file, runs `memlens ARGV`
(`memory_core.cli.main`, what the `memlens` command runs) with the round's files as its
standard output and error (file descriptors 1 and 2), and writes the exit code. `race`
sends one round to each racer of a pair and lets them go together, the second `stagger`
seconds after the first.

One pair serves a whole test session, so the start-up of a process (Python, the CLI and
LanceDB's import: seconds of CPU) is paid twice per session instead of twice per round.
What each round races is what two `memlens` commands started at once race: two processes,
each with its own store handles, write lock and LanceDB state, on a store of the round's
own (every round writes a different folder). The kill -9 tests start a process per trial:
a killed racer is gone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Seconds a round may take to start, and to finish, before the test fails.
TIMEOUT = 180
#: The racer: each line on its standard input is a round (JSON: argv and the round's files).
RACER = """
import json, os, sys, time, traceback
import lancedb  # noqa: F401  (every round opens a store: loaded before the first one)
from memory_core.cli import main

for line in sys.stdin:
    job = json.loads(line)
    open(job["ready"], "w").close()
    while not os.path.exists(job["go"]):
        time.sleep(0.001)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(job["out"], "wb") as out, open(job["err"], "wb") as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            main(job["argv"])
            code = 0
        except SystemExit as exc:  # what the process would exit with
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except BaseException:  # what Python prints and exits with on an uncaught one
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
    os.close(saved[0])
    os.close(saved[1])
    with open(job["done"] + ".part", "w") as done:
        done.write(str(code))
    os.replace(job["done"] + ".part", job["done"])
"""


class Racer:
    """One racer process (its own output, outside the rounds, goes to `log`)."""

    def __init__(self, log: Path, env: dict[str, str]) -> None:
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen([sys.executable, "-c", RACER], cwd=ROOT, env=env,
                                            stdin=subprocess.PIPE, stdout=out,
                                            stderr=subprocess.STDOUT, text=True)

    def send(self, job: dict[str, object]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()

    def wait_for(self, path: Path, what: str) -> None:
        """Wait until `path` exists; fail saying `what` did not happen if the racer died
        or `TIMEOUT` passed."""
        deadline = time.monotonic() + TIMEOUT
        while not path.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the racer (pid {self.process.pid}) {what} (exit "
                                     f"{self.process.poll()}):\n{self.log.read_text()[-3000:]}")
            time.sleep(0.002)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class RacerPair:
    """Two racers, started at once (both load while the caller goes on)."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.racers = (Racer(folder / "racer-0.log", env), Racer(folder / "racer-1.log", env))
        self._rounds = 0

    def race(self, argvs: Sequence[list[str]], folder: Path, stagger: float = 0.0
             ) -> list[subprocess.CompletedProcess[str]]:
        """Run `memlens argvs[0]` in the first racer and `memlens argvs[1]` in the second,
        let go together (the second `stagger` seconds after the first); their exit codes
        and output, in that order."""
        self._rounds += 1
        jobs = []
        for n, (racer, argv) in enumerate(zip(self.racers, argvs, strict=True)):
            stem = folder / f"round-{self._rounds}-racer-{n}"
            job: dict[str, object] = {"argv": argv, **{part: f"{stem}.{part}" for part in
                                                     ("ready", "go", "out", "err", "done")}}
            racer.send(job)
            jobs.append(job)
        for racer, job in zip(self.racers, jobs, strict=True):
            racer.wait_for(Path(str(job["ready"])), "never got ready")
        for n, job in enumerate(jobs):
            if n and stagger:
                time.sleep(stagger)
            Path(str(job["go"])).touch()
        results = []
        for racer, job, argv in zip(self.racers, jobs, argvs, strict=True):
            racer.wait_for(Path(str(job["done"])), f"did not finish `memlens {argv[0]}`")
            results.append(subprocess.CompletedProcess(
                argv, int(Path(str(job["done"])).read_text()),
                Path(str(job["out"])).read_text(errors="replace"),
                Path(str(job["err"])).read_text(errors="replace")))
        return results

    def close(self) -> None:
        for racer in self.racers:
            racer.close()


def racer_env(cache: Path) -> dict[str, str]:
    """The racers' environment: no embedding model (writes stay pending, so each round is
    quick and the two overlap) and a model cache of their own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLENS_")}
    return {**env, "MEMLENS_EMBED_MODEL": "none", "MEMLENS_MODEL_CACHE": str(cache)}
