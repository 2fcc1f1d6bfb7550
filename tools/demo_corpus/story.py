"""A storyline: one concrete engineering topic in one project, the unit the demo is written from.

Each storyline carries the slot values that the sentence templates of `phrasing` fill in:
what broke (`symptom`), why (`cause`), what was done (`fix`), the option rejected (`old`) and
the option chosen (`choice`), a metric that moved, the lesson, and a hand-written paraphrase
query that describes the storyline without its technical words. A storyline with `later` gets
a second, superseding decision some sessions after the first.

Grammar of the slots (the templates rely on it): `component` is a noun phrase with its
article ("the session middleware"); `topic`, `old`, `choice` and `later` are noun phrases
without an article; `symptom`, `cause` and `later_reason` are clauses with a lower-case start
and no final period; `fix` is an imperative verb phrase; `lesson` is a full sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    """A number the storyline moves, lower being better (`before` -> `after`)."""

    name: str
    unit: str
    before: float
    after: float
    decimals: int

    def render(self, value: float) -> str:
        """`value` with this metric's unit, e.g. `840ms`, `41 a day`, `18,000 rows`."""
        if self.decimals:
            text = f"{value:.{self.decimals}f}"
        else:
            number = int(round(value))
            text = f"{number:,}" if number >= 10_000 else str(number)
        return f"{text}{self.unit}"


@dataclass(frozen=True)
class Story:
    """One storyline of the demo world (see the module docstring for the slot grammar)."""

    key: str
    project: str
    repo: str
    tags: tuple[str, ...]
    component: str
    file: str
    topic: str
    symptom: str
    cause: str
    fix: str
    old: str
    choice: str
    metric: Metric
    lesson: str
    paraphrase: str
    later: str | None = None
    later_reason: str | None = None

    @property
    def component_slug(self) -> str:
        """The component as a metadata key, e.g. `session_middleware`."""
        words = self.component.removeprefix("the ").lower()
        return "".join(c if c.isalnum() else "_" for c in words).strip("_")


def _decimals(number: str) -> int:
    return len(number.partition(".")[2])


def parse_metric(spec: str) -> Metric:
    """A `Metric` from `"name|unit|before|after"`; the unit keeps its leading space."""
    name, unit, before, after = spec.split("|")
    return Metric(name, unit, float(before), float(after), max(_decimals(before), _decimals(after)))


StoryMaker = Callable[..., Story]


def story_maker(project: str) -> StoryMaker:
    """A compact constructor of the storylines of `project` (positional, as the data files use).

    `tags` is space-separated, `metric` is `"name|unit|before|after"` and `later` is
    `"choice|reason"` or empty.
    """

    def make(
        key: str,
        repo: str,
        tags: str,
        component: str,
        file: str,
        topic: str,
        symptom: str,
        cause: str,
        fix: str,
        old: str,
        choice: str,
        metric: str,
        lesson: str,
        paraphrase: str,
        later: str = "",
    ) -> Story:
        later_choice, _, later_reason = later.partition("|")
        return Story(
            key=key,
            project=project,
            repo=repo,
            tags=tuple(tags.split()),
            component=component,
            file=file,
            topic=topic,
            symptom=symptom,
            cause=cause,
            fix=fix,
            old=old,
            choice=choice,
            metric=parse_metric(metric),
            lesson=lesson,
            paraphrase=paraphrase,
            later=later_choice or None,
            later_reason=later_reason or None,
        )

    return make
