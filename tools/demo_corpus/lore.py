"""Cross-cutting lore of the demo world: coordination patterns the agents show across
sessions (herd's "Mason needs explicit file lists in spawn context"), skill ideas
(Make_Skills'), and standing facts about each project."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentPattern:
    """A coordination pattern accumulated from observations across sessions (herd's kind)."""

    pattern: str
    observations: tuple[str, ...]
    tags: tuple[str, ...]
    query: str


AGENT_PATTERNS: tuple[AgentPattern, ...] = (
    AgentPattern("Pattern: Mason needs explicit file lists in spawn context, or he edits the "
                 "wrong modules.",
                 ("Mason's spawn failed twice because the context lacked an explicit file list; "
                  "adding the list to the spawn template fixed it.",
                  "Mason touched the billing module while the ticket was about invoices; the "
                  "spawn context never named the files."),
                 ("agents", "prompts"), "mason spawn failures file list"),
    AgentPattern("Pattern: Wardenstein finds more issues when the PR description names the HDR "
                 "it implements.",
                 ("Wardenstein flagged a config change as violating HDR-0031 only after the PR "
                  "description linked it.",
                  "The webhook review went faster once the author cited the relevant HDR; "
                  "Wardenstein checked it line by line."),
                 ("agents", "review"), "wardenstein review PR description HDR"),
    AgentPattern("Pattern: Faust resolves decisions faster when shown two options with costs "
                 "than when shown one recommendation.",
                 ("Faust decided in five minutes once the briefing showed both options side by "
                  "side with their costs.",
                  "A single-option proposal sat for three days before Faust asked what the "
                  "alternatives were."),
                 ("agents", "docs"), "faust decisions options costs recommendation"),
    AgentPattern("Pattern: Iris catches accessibility regressions early when axe runs inside "
                 "the component tests.",
                 ("Iris found the missing label in a component test before the page was even "
                  "built.",
                  "An axe check in Storybook caught a contrast problem that the page-level "
                  "tests had missed."),
                 ("accessibility", "testing"), "iris axe accessibility component tests"),
    AgentPattern("Pattern: Kai's pipelines break on Mondays after weekend schema changes "
                 "upstream.",
                 ("Kai's ingestion failed on Monday morning again; the producer team deployed a "
                  "schema change on Saturday.",
                  "Third Monday in a row with a dataforge failure after an upstream weekend "
                  "release."),
                 ("pipelines", "schema"), "kai pipelines monday failures upstream schema"),
    AgentPattern("Pattern: Nova's deploys go smoother when the runbook is updated in the same "
                 "pull request.",
                 ("Nova's rollback took twice as long because the runbook still described the "
                  "old deploy process.",
                  "The deploy went cleanly; Nova had updated the runbook in the same pull "
                  "request as the change."),
                 ("deploy", "ops"), "nova deploys runbook same pull request"),
    AgentPattern("Pattern: Steve over-scopes HDRs when asked open questions late in a session.",
                 ("Steve drafted an HDR covering three unrelated concerns after a late-session "
                  "question; Faust asked to split it.",
                  "Late in the session Steve turned a small naming question into a full "
                  "architecture proposal."),
                 ("agents", "docs"), "steve HDR scope late session"),
    AgentPattern("Pattern: sub-agents repeat dead ends unless the handoff lists what was "
                 "already tried.",
                 ("Iris retried the cache-busting approach Mason had already ruled out; the "
                  "handoff did not mention it.",
                  "A spawned agent spent an hour on a hypothesis Kai had disproved the day "
                  "before."),
                 ("agents", "memory"), "sub-agents dead ends handoff"),
    AgentPattern("Pattern: recall quality drops when sessions end without a summary.",
                 ("The next session could not find Tuesday's findings; that session ended "
                  "without writing a summary.",
                  "Two sessions this week ended abruptly and left no summary; recall for their "
                  "topics came back empty."),
                 ("memory", "agents"), "recall sessions without summary"),
    AgentPattern("Pattern: agents follow Faust's preferences once they are stored as "
                 "preferences, not buried in threads.",
                 ("Mason ignored the squash-merge preference because it only existed inside a "
                  "long thread.",
                  "After the commit-message preference was stored as its own memory, every "
                  "agent followed it."),
                 ("memory", "agents"), "preferences stored separately threads"),
    AgentPattern("Pattern: long-running migrations stall across sessions unless a thread memory "
                 "tracks them.",
                 ("The SQLAlchemy port stalled for two weeks because no session picked it up; "
                  "nothing in memory tracked it.",
                  "Kai rediscovered a half-finished Airflow port that nobody had noted as an "
                  "open thread."),
                 ("migrations", "memory"), "long-running migrations thread memory stall"),
    AgentPattern("Pattern: Mason writes better endpoints when the task includes an example "
                 "request and response.",
                 ("Mason's first version of the endpoint guessed the payload shape wrong; an "
                  "example request in the ticket fixed it on the second try.",
                  "With a sample response in the spawn context, Mason's serializer matched the "
                  "contract the first time."),
                 ("agents", "api"), "mason example request response endpoint"),
)

SKILL_IDEAS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Skill idea: a /handoff command that writes findings, dead ends and the next step into "
     "memory before a session ends.", ("agents", "memory")),
    ("Skill idea: a recall helper that returns an HDR together with its decision_context.",
     ("memory", "docs")),
    ("Skill idea: a pre-merge check that lists the HDRs a diff touches.", ("review", "ci")),
    ("Skill idea: a weekly job in which the reviewer agent archives stale threads.",
     ("memory", "agents")),
    ("Skill idea: a spawn-template linter that fails when the file list is missing.",
     ("agents", "prompts")),
    ("Skill idea: an 'explain this metric' skill that links a dashboard tile to the code that "
     "computes it.", ("observability", "docs")),
    ("Skill idea: draft a runbook from each incident timeline automatically.",
     ("incidents", "ops")),
    ("Skill idea: a memory diff between two sessions that shows what an agent learned.",
     ("memory", "agents")),
)

PROJECT_FACTS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "herd": (
        ("herd-core is the Python package with the spawn scheduler, the memory writer and the "
         "decay scorer.", ("agents", "memory")),
        ("The herd MCP server exposes herd_recall, herd_remember and herd_link to agents.",
         ("mcp", "memory")),
        ("HDRs live in .herd/decisions/ as markdown files with front matter.", ("docs", "memory")),
        ("The herd memory store is a LanceDB directory under ~/.herd/memory.",
         ("lancedb", "storage")),
        ("herd sessions are named agent-date-letter, for example steve-2026-05-14-a.",
         ("agents", "memory")),
        ("herd embeds memories as 384-dimensional MiniLM vectors computed locally.",
         ("embeddings", "lancedb")),
    ),
    "atlas-api": (
        ("atlas-api is a FastAPI service on Postgres 16, with Redis for caching and Celery for "
         "background work.", ("api", "postgres")),
        ("atlas-api deploys through ArgoCD from the main branch, about three times a week.",
         ("deploy", "ci")),
        ("The atlas-gateway repo holds the nginx and Lua configuration in front of the API.",
         ("api", "deploy")),
        ("atlas-api serves about 1,200 requests per second at peak across 340 tenants.",
         ("api", "performance")),
        ("Priya is the product owner for atlas-api; Ana leads SRE.", ("api", "ops")),
        ("atlas-api tickets use the ATL prefix in Linear.", ("api", "docs")),
    ),
    "lumen-web": (
        ("lumen-web is a React and TypeScript app built with Vite and served from a CDN.",
         ("frontend", "deploy")),
        ("The lumen design system lives in its own repo and is published as @lumen/ui.",
         ("design", "frontend")),
        ("Liz leads design for lumen-web and owns the Figma libraries.", ("design", "ux")),
        ("lumen-web ships in English, German, Polish and Japanese.", ("frontend", "i18n")),
        ("lumen-web's end-to-end tests run in Playwright against a preview deployment.",
         ("testing", "ci")),
        ("lumen-web targets WCAG 2.2 AA.", ("accessibility", "frontend")),
    ),
    "dataforge": (
        ("dataforge runs Airflow for orchestration and dbt on Snowflake for modelling.",
         ("pipelines", "storage")),
        ("Raw events land in S3 as Parquet, partitioned by UTC date.", ("storage", "pipelines")),
        ("Tomas leads the data team; finance and marketing are its main consumers.",
         ("pipelines", "docs")),
        ("dataforge's dbt project has about 340 models and 1,100 tests.",
         ("pipelines", "testing")),
        ("The dataforge embedding pipeline writes document vectors to LanceDB for the search "
         "features.", ("embeddings", "lancedb")),
        ("Data on-call for dataforge rotates weekly between Kai and Nova.",
         ("ops", "incidents")),
    ),
}
