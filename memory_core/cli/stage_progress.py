"""A progress bar on stderr for work that reports `progress(stage, fraction)` (the fraction of
the whole call done), as the near-duplicate search and the consolidation grouping do."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from memory_core.cli.output import progress_bar

#: Steps of the bar: fine enough that a long stage moves it.
BAR_STEPS = 1000


@contextmanager
def staged_progress(label: str) -> Iterator[Callable[[str, float], None]]:
    """A `progress(stage, fraction)` callback driving a bar labelled `label`."""
    with progress_bar(label, total=BAR_STEPS, unit="step") as advance:
        done = 0

        def report(stage: str, fraction: float) -> None:
            nonlocal done
            step = int(fraction * BAR_STEPS)
            if step > done:
                advance(step - done)
                done = step

        yield report
