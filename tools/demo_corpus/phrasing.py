"""Sentence templates of the demo corpus, by memory type and storyline phase.

Templates are `str.format` strings over the slots that `storyline` builds from a `Story`
(see `story` for the slot grammar). A capitalised slot name (`{Symptom}`) is the same value
with its first letter upper-cased, for slots that open a sentence. Metric slots (`{before}`,
`{after}`, `{mid}`) already carry their unit.
"""

from __future__ import annotations

from collections.abc import Mapping

SYMPTOM_OBS = (
    "{Symptom}. First report came in as {ticket}.",
    "Reproduced locally: {symptom}. The trace ends in `{file}`.",
    "{agent} hit it while working in {component}: {symptom}.",
    "{human} flagged in standup that {symptom}.",
    "Seen again on {weekday}: {symptom}. Roughly {n} in 10 attempts reproduce it.",
    "Started looking at {topic}. Current numbers: {mname} at {before}; {symptom}.",
    "Support forwarded {n2} more reports this week, all the same: {symptom}.",
    "Measured {mname} at {before} on {date}; that is the number to beat for {topic}.",
    "Logged {ticket}: {symptom}. Probably somewhere in {component}.",
    "{agent} confirmed the report from {human}: {symptom}.",
)
CAUSE_OBS = (
    "Root cause found: {cause}.",
    "Bisected the regression to `{file}`: {cause}.",
    "A failing test now pins it down: {cause}.",
    "Reading `{file}` shows the problem: {cause}.",
    "{agent}'s hypothesis held up: {cause}. Logs from {date} confirm it.",
    "Traced {topic} with extra logging in {component}; {cause}.",
    "Ruled out the infrastructure theory for {topic}. The real issue: {cause}.",
    "{agent2} spotted it while reading `{file}`: {cause}.",
)
PROTOTYPE_OBS = (
    "Prototyped the change to {fix}; the reproduction no longer fails.",
    "A spike branch with {choice} passes all {n2} tests that touch `{file}`.",
    "Measured the prototype in staging: {mname} at {after} against {before} in production.",
    "{agent2} reviewed the prototype for {topic} and found no regressions in {component}.",
    "Estimated the work to {fix}: about {days} days, most of it in `{file}`.",
)
VERIFY_OBS = (
    "After the change, {mname} dropped from {before} to {after}.",
    "Verified in production: {mname} at {after} over {n} days, against {before} before the fix.",
    "No recurrence of {topic} in the {n} days since the fix shipped.",
    "{agent} re-ran the original reproduction against `{file}`; it no longer triggers.",
    "Post-fix numbers for {component}: {mname} at {after}, down {pct}% from {before}.",
    "{human} confirmed the complaints about {topic} have stopped since {date}.",
    "The alert for {topic} stayed quiet through {weekday}'s peak traffic.",
)
STRAIN_OBS = (
    "Limits of {choice} are showing: {later_reason}.",
    "New problem with {choice} in {component}: {later_reason}.",
    "Revisited {topic}: {later_reason}, so the current approach will not hold.",
    "{agent} measured it again after {n} weeks: {later_reason}.",
)

OPEN_THREADS = (
    "Thread on {topic}: {human} asked whether it is worth fixing before {milestone}; {agent} "
    "argued yes.",
    "Open question on {topic}: do we {fix}, or live with it? Waiting on numbers from {agent2}.",
    "{human} raised {topic} again; nobody has claimed {component} yet.",
    "Started a thread on {topic} so the next session does not start from zero; context is in "
    "{ticket}.",
)
MID_THREADS = (
    "Continuing the {topic} discussion: {agent2} still suspects {component}, {agent} is not "
    "convinced.",
    "Follow-up on {topic}: {agent2} will pair on `{file}` next session.",
    "Parking {topic} until the {other} work lands; both touch {repo}.",
    "Still discussing {topic}. Leaning towards {choice}, but {risk} is the open worry.",
    "Notes from the {topic} thread: {agent} will write up the options for an HDR before "
    "{weekday}.",
    "{agent2} asked how {topic} interacts with {other}; so far it does not seem to.",
    "Re-opened the {topic} thread after {ticket} got a new comment from {human}.",
    "Thread: the {topic} fix needs a rollout plan. {human} wants it behind a flag first.",
)
CLOSE_THREADS = (
    "Closing the {topic} thread: the fix is out, with {mname} at {after} now.",
    "Handing {topic} over to {agent2} for follow-up; context is in {ticket} and the notes on "
    "`{file}`.",
    "Last turn on {topic}: {human} is happy, remaining clean-up tracked in {ticket}.",
)
STRAIN_THREADS = (
    "Thread on {topic} re-opened: {later_reason}. {agent} wants to revisit {old_hdr}.",
    "Debating whether to replace {choice} with {later}; {human} asked for numbers first.",
    "{agent2} argues {choice} can be tuned instead of replaced; {agent} doubts it.",
)

TOPICS = (
    "Topic: {topic} in {component}. Code lives in `{file}`; tracked as {ticket}.",
    "{Topic} is now a tracked topic for {project}: it affects {component} and shows up as "
    "{mname}.",
    "New topic opened: {topic}. Owner: {agent}. Related ticket {ticket}.",
)
#: (role, template); the roles let edges point at the right fact.
FACTS = (
    ("component_fact", "{Component} is implemented in `{file}` in the {repo} repo."),
    ("baseline", "Baseline before any change: {mname} at {before}."),
    ("ticket_fact", "{ticket} is the tracking ticket for {topic}."),
    ("component_fact", "`{file}` is covered by {n2} integration tests and reviewed by {reviewer}."),
    ("owner_fact", "{Component} is owned by {agent} for the rest of the quarter."),
    ("owner_fact", "{human} is the stakeholder for {topic}; sign-off goes through them."),
)

INCIDENT_EVENTS = (
    "Incident {inc}: {symptom}. {agent} was paged and mitigated it in {n2} minutes.",
    "{inc} opened at {hh}:{mm} UTC: {symptom}. Resolved after {n2} minutes by {agent}.",
)
SIGNOFF_EVENTS = (
    "{human} signed off on {hdr}: {choice}.",
    "{hdr} accepted in review with {human} and {agent2}.",
)
SHIP_EVENTS = (
    "Deployed the {topic} fix to production at {hh}:{mm} UTC.",
    "Release {ver} of {repo} shipped with {choice}.",
    "Canary for the {topic} change ran at 10% for {n} hours with no errors.",
    "Rolled out {choice} everywhere on {date}.",
)
STRAIN_EVENTS = (
    "Release {ver} of {repo} replaced {choice} with {later}.",
    "{human} signed off on {hdr}, which replaces {old_hdr}.",
)

DECISIONS = (
    "Decided: {choice} for {component} instead of {old} ({hdr}).",
    "We are going with {choice} in {component}; we rejected {old} ({ticket}).",
    "Decision {hdr}: use {choice}. Rejected: {old}.",
    "{agent} and {human} agreed on {choice} for {component}; the alternative, {old}, was "
    "dropped.",
    "Going forward, {component} uses {choice} rather than {old}.",
)
DECISION_WHYS = ("Because {cause}.", "{Cause}; {old} would not have fixed that.",
                 "Root cause: {cause}.")
SUPERSEDING_DECISIONS = (
    "Superseding {old_hdr}: replace {choice} with {later} in {component}.",
    "Decision {hdr} replaces {old_hdr}: {component} moves from {choice} to {later}.",
    "Changed course: {later} instead of {choice} ({hdr}).",
    "{human} approved {hdr}: {later} replaces {choice} for {component}.",
)
SUPERSEDING_WHYS = ("{Later_reason}.", "Because {later_reason}.")

DECISION_CONTEXTS = (
    "{hdr} context: the options for {topic} were {old} or {choice}. {human} pushed back on "
    "{old} once {agent} showed that {cause}.",
    "Trial transcript for {hdr}: the simpler option was {old}, but {cause}. {Choice} won even "
    "though it costs about {days} days of work in `{file}`.",
    "Why {choice} beat {old} ({hdr}): {n} reproductions showed that {cause}. Also rejected: "
    "doing nothing and alerting on {mname}.",
    "Discussion behind {hdr}: {agent2} argued for {old} to keep {component} simple; {agent} "
    "countered that {cause}. {human} chose {choice}.",
)
SUPERSEDING_CONTEXTS = (
    "{hdr} context: {choice} worked for a while, but {later_reason}. {Later} was the only "
    "option {human} and {agent} both accepted.",
    "Trial transcript for {hdr}: keeping {choice} was considered and rejected because "
    "{later_reason}.",
    "Discussion behind {hdr}: {agent2} wanted to tune {choice} further; {human} preferred "
    "{later} after hearing that {later_reason}.",
)

LEARNINGS = (
    "Learned while fixing {topic}: check {component} first at any movement in {mname}.",
    "Learning: {cause}. Worth a regression test in `{file}` so it cannot come back.",
    "Took away from {topic} that reproducing it was the slow part; the fix itself took {days} "
    "days.",
    "Learned that a rise in {mname} is the early signal for {topic}; it showed {n} days before "
    "the first ticket.",
    "{agent} learned the hard way that `{file}` had no tests for this path; added {n2}.",
)
STRAIN_LEARNINGS = (
    "Learned from replacing {choice}: {later_reason}. We should have load-tested it before "
    "{old_hdr}.",
    "Learning: {choice} fixed {topic} but not its edge cases; {later} covers them.",
)
LESSON_WHYS = ("Learned from {topic} ({ticket}).", "Cost us {days} days on {topic}.",
               "From the {topic} retro.")
REFLECTIONS = (
    "Looking back at {topic}: we spent {n} sessions on symptoms before anyone read `{file}`. "
    "Next time start from the code.",
    "Reflection on {topic}: the fix worked ({mname} {before} -> {after}), but the decision "
    "took {days} days because nobody owned {component}.",
    "Consolidating {n} observations on {topic}: they all trace back to one cause, that {cause}.",
    "Reflection: {topic} was reported {n} times under different names before we connected "
    "the reports.",
    "In hindsight the {topic} work went well: small reproduction, one HDR ({hdr}), measurable "
    "result.",
)
INSIGHTS = (
    "Insight: {mname} moved {n} days before anyone filed {ticket}; an alert on it would have "
    "caught {topic} early.",
    "Insight: {topic} and {other} were both found by users before monitoring; {project} needs "
    "better alerts.",
    "Insight: the cheapest fix for {topic} was the one {human} suggested on day one.",
    "Insight: most of the cost of {topic} was coordination, not code; {n} hand-offs between "
    "agents.",
)
PATTERNS = (
    "Pattern: at the first rise in {mname}, check {component}; it was the culprit for {topic}.",
    "Pattern: {agent2} catches {component} regressions in review when the PR links {hdr}.",
    "Pattern: fixes like {choice} keep recurring across projects; worth a shared library.",
    "Pattern: problems in `{file}` get reported as vague slowness or errors long before anyone "
    "names {topic}.",
)
EARLY_SKILLS = (
    "Skill idea: a script that reproduces {topic} so any agent can run it before touching "
    "`{file}`.",
    "Skill idea: a dashboard panel for {mname} with an alert at {mid}.",
)
LATE_SKILLS = (
    "Skill idea: teach the review skill to flag changes to `{file}` that bypass {choice}.",
    "Skill idea: auto-attach the {hdr} summary to spawn context whenever an agent edits "
    "`{file}`.",
)
STORY_PREFERENCES = (
    "{human} prefers {choice} over {old} for anything like {component}.",
    "{agent} prefers to see the reproduction for {topic} before reviewing a fix.",
    "{human} wants fixes like the one for {topic} measured in {mname} before and after.",
)

#: Session summary openers; `{items}` lists what happened, `{next}` what is left open.
SUMMARIES = (
    "Session {sid}: {agent} {items}. Next: {next}.",
    "{agent}'s {weekday} session on {project}: {items}. Open thread: {next}.",
    "Summary ({project}, {date}): {agent} {items}; {n} memories recorded.",
    "What happened in {sid}: {agent} {items}. Left for next time: {next}.",
)
#: What a session did for a storyline, by phase, for its summary.
SUMMARY_ITEMS: Mapping[str, tuple[str, ...]] = {
    "discover": ("started on {topic} ({ticket})", "picked up {topic} after {human} raised it"),
    "diagnose": ("traced {topic} to its root cause", "found why {topic} happens"),
    "decide": ("settled {topic} with {choice} ({hdr})", "got sign-off on {hdr} for {topic}"),
    "verify": ("verified the {topic} fix ({mname} {before} -> {after})", "closed out {topic}"),
    "strain": ("replaced {choice} with {later} ({hdr})", "re-opened {topic} and moved to {later}"),
}


def cap(text: str) -> str:
    """`text` with its first letter upper-cased (the rest untouched)."""
    return text[:1].upper() + text[1:]


def fill(template: str, slots: Mapping[str, str]) -> str:
    """`template` with `slots` filled in; `{Name}` gets the capitalised value of `name`."""
    return template.format_map(_Capitalising(slots))


class _Capitalising(dict[str, str]):
    def __init__(self, slots: Mapping[str, str]) -> None:
        super().__init__(slots)

    def __missing__(self, key: str) -> str:
        lower = key[:1].lower() + key[1:]
        if lower != key and lower in self:
            return cap(self[lower])
        raise KeyError(key)
