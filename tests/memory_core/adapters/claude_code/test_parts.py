"""A long exchange cut into parts (`parts`), and the concluding text each part
answers with (`Work.answer`)."""

from __future__ import annotations

from itertools import count

import pytest

from memory_core.adapters.claude_code.model import Step, Work
from memory_core.adapters.claude_code.parts import cut_steps, milestone

_line = count(1)


def text(message: str, words: str) -> Step:
    n = next(_line)
    return Step("text", f"u{n}", n, f"t{n}", message_id=message, model="m", text=words)


def tool(message: str, name: str = "Read", command: str = "", files: tuple[str, ...] = ()
         ) -> Step:
    n = next(_line)
    return Step("tool", f"u{n}", n, f"t{n}", message_id=message, model="m", tool=name,
                text=command, tool_use_id=f"tool{n}", files=files)


def result(of: Step, *, error: bool = False, agent: str | None = None) -> Step:
    n = next(_line)
    return Step("result", f"u{n}", n, f"t{n}", tool_use_id=of.tool_use_id, is_error=error,
                agent_id=agent)


def compaction() -> Step:
    n = next(_line)
    return Step("compaction", f"c{n}", n, f"t{n}")


def act(message: str, words: str | None, name: str = "Read", command: str = "", *,
        error: bool = False, agent: str | None = None) -> list[Step]:
    """A message (optional text, one tool call) and the tool's result."""
    call = tool(message, name, command)
    return ([text(message, words)] if words else []) + [call, result(call, error=error,
                                                                     agent=agent)]


def answers(steps: list[Step], **options: int) -> list[tuple[str, str]]:
    return [(part.work.answer, part.boundary) for part in cut_steps(steps, **options)]


def test_a_passing_test_run_ends_a_part_at_the_text_after_it() -> None:
    steps = [*act("m1", "Reading the code."), *act("m2", None, "Edit"),
             *act("m3", None, "Edit"), *act("m4", None, "Bash", "uv run pytest -q"),
             text("m5", "All 48 pass. Committing."), *act("m5", None, "Bash", "git status"),
             text("m6", "Done.")]
    assert answers(steps) == [("All 48 pass. Committing.", "test run"), ("Done.", "end")]
    parts = cut_steps(steps)
    # the tool call of the concluding message opens the next part
    assert parts[1].first.tool == "Bash" and parts[1].first.text == "git status"
    assert [p.index for p in parts] == [1, 2]
    assert sum(len(p.steps) for p in parts) == len(steps)


def test_a_failing_test_run_is_work_in_progress() -> None:
    steps = [*act("m1", "Reading."), *act("m2", None, "Edit"), *act("m3", None, "Edit"),
             *act("m4", None, "Bash", "pytest", error=True),
             *act("m5", "Two failures: fixing the rounding.", "Edit"),
             text("m6", "Fixed.")]
    assert answers(steps) == [("Fixed.", "end")]


def test_a_subagent_report_and_a_commit_end_parts() -> None:
    steps = [*act("m1", "Mapping the code.", "Task", agent="a1"),
             *act("m2", "The agent found it in staging.py.", "Edit"),
             *act("m3", None, "Edit"), *act("m4", None, "Edit"),
             *act("m5", "Edited; committing.", "Bash", "git -C /repo commit -m 'fix'"),
             text("m6", "Committed abc123.")]
    # the report came after one tool call: too soon for a part of its own; the text after
    # it concluded it, so later texts are no boundary until the commit
    assert answers(steps) == [("Committed abc123.", "commit")]
    reported = [*act("m1", None), *act("m2", None), *act("m3", None),
                *act("m4", None, "Task", agent="a1"), *act("m5", "The agent found it.", "Edit"),
                text("m6", "Done.")]
    assert answers(reported) == [("The agent found it.", "subagent report"), ("Done.", "end")]


def test_a_failed_commit_is_no_boundary() -> None:
    steps = [*act("m1", None), *act("m2", None), *act("m3", None),
             *act("m4", None, "Bash", "git commit -m x", error=True),
             *act("m5", "The hook failed: formatting.", "Edit"), text("m6", "Done.")]
    assert answers(steps) == [("Done.", "end")]


def test_a_compaction_ends_the_part_before_it() -> None:
    steps = [*act("m1", "Reading.", "Read"), text("m2", "Found the bug."), compaction(),
             *act("m3", "Continuing with the fix.", "Edit"), text("m4", "Fixed.")]
    parts = cut_steps(steps, after=None)
    assert [(p.work.answer, p.boundary, p.after_compaction) for p in parts] == [
        ("Found the bug.", "compaction", None), ("Fixed.", "end", steps[4].uuid)]
    assert all(step.kind != "compaction" for part in parts for step in part.steps)


def test_steps_without_text_go_with_a_part_that_has_some() -> None:
    calls = [*act("m1", None), *act("m2", None)]
    # before the first text: they open the first part
    assert [len(p.steps) for p in cut_steps([*calls, text("m3", "Done.")])] == [5]
    # after the last text, or before a compaction: they join the part before
    done = [*act("m1", "Reading."), text("m2", "Found it."), compaction(), *calls]
    parts = cut_steps(done)
    assert len(parts) == 1 and parts[0].work.tools == (("Read", 3),)
    # and nothing at all without any text
    assert cut_steps(calls) == []


def test_a_long_tool_phase_is_cut_at_its_next_text() -> None:
    steps = [*act("m0", "Renaming the module everywhere.", "Edit")]
    steps += [s for n in range(1, 6) for s in act(f"m{n}", None, "Edit")]
    steps += [*act("m6", "Renamed in 6 files; now the imports.", "Edit"), text("m7", "Done.")]
    assert answers(steps, phase_tools=6) == [
        ("Renamed in 6 files; now the imports.", "long phase"), ("Done.", "end")]
    assert answers(steps) == [("Done.", "end")]  # 25 by default


def test_a_message_with_several_text_blocks_is_cut_after_the_last() -> None:
    steps = [*act("m1", None), *act("m2", None), *act("m3", None),
             *act("m4", None, "Bash", "npm test"),
             text("m5", "All green."), text("m5", "Committing next."),
             *act("m5", None, "Bash", "git commit -m y"), text("m6", "Committed.")]
    assert answers(steps) == [("All green.\n\nCommitting next.", "test run"),
                              ("Committed.", "end")]


def test_the_answer_is_the_conclusion_not_the_last_announcement() -> None:
    found = [text("m1", "Found two leftover debug prints in fetch.py (lines 48 and 61)."),
             tool("m1"), text("m2", "Let me remove them."), tool("m2", "Edit")]
    assert Work.of(found).answer == "Found two leftover debug prints in fetch.py (lines 48 " \
                                    "and 61)."
    # a message that ends without a tool call is the conclusion, wherever it is
    final = [text("m1", "Done: all 12 pass."), text("m2", "Now let me check the docs."),
             tool("m2")]
    assert Work.of(final).answer == "Done: all 12 pass."
    # only announcements: the last one
    only = [text("m1", "Let me look."), tool("m1"), text("m2", "I'll fix it."), tool("m2")]
    assert Work.of(only).answer == "I'll fix it."
    assert Work.of([]).answer == "" and Work.of([]).model is None


def test_work_counts_tools_files_errors_and_subagents() -> None:
    read = tool("m1", "Read", files=("a.py",))
    edit = tool("m2", "Edit", files=("a.py", "b.py"))
    task = tool("m3", "Task")
    work = Work.of([read, result(read), edit, result(edit, error=True), task,
                    result(task, agent="a9"), text("m4", "ok")])
    assert work.tools == (("Edit", 1), ("Read", 1), ("Task", 1))
    assert (work.files, work.tool_errors, work.subagents) == (("a.py", "b.py"), 1, ("a9",))


@pytest.mark.parametrize("command, kind", [
    ("uv run pytest -q", "test run"), ("python -m pytest tests/x.py", "test run"),
    ("npm run test", "test run"), ("cargo test --all", "test run"), ("go test ./...", "test run"),
    ("make check", "test run"), (".ci/run", "test run"), ("python -m unittest", "test run"),
    ("git commit -am 'x'", "commit"), ("git -C repo commit -m x", "commit"),
    ("git status", None), ("ls tests", None), ("pip install pytest-xdist", None),
    ("uv pip install -e . && pytest -q", "test run"),
])
def test_milestone_commands(command: str, kind: str | None) -> None:
    assert milestone(tool("m", "Bash", command)) == kind
    assert milestone(tool("m", "Read", command)) is None
