"""The demo world: projects, agents, people, and the memories that belong to no storyline.

The agents and their habits follow herd's (Steve the architect, Mason the backend agent,
Wardenstein the reviewer; Faust the human architect); the memory kinds follow Make_Skills,
SpecKit and HADES (docs/design/seeds.md).
Everything here is plain data; `corpus` turns it into records.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from tools.demo_corpus import stories_atlas, stories_dataforge, stories_herd, stories_lumen
from tools.demo_corpus.story import Story

#: The six months the demo covers: [START, END).
START = datetime(2026, 4, 1, tzinfo=UTC)
END = datetime(2026, 10, 1, tzinfo=UTC)
TENANT = "default"


@dataclass(frozen=True)
class Project:
    """A project: its repos, its human lead, ticket prefix, HDR numbering and agent mix."""

    name: str
    repos: tuple[str, ...]
    human: str
    ticket_prefix: str
    first_hdr: int
    version: str
    sessions: int
    agent_weights: tuple[tuple[str, float], ...]


PROJECTS: tuple[Project, ...] = (
    Project("herd", ("herd-core", "herd-mcp", "herd-docs"), "Faust", "HRD", 34, "0.", 20,
            (("steve", 4), ("mason", 3), ("wardenstein", 3), ("nova", 1), ("iris", 0.5),
             ("kai", 0.5))),
    Project("atlas-api", ("atlas-api", "atlas-gateway"), "Priya", "ATL", 101, "2.", 21,
            (("mason", 4), ("steve", 2), ("wardenstein", 2), ("nova", 2), ("kai", 0.7),
             ("iris", 0.5))),
    Project("lumen-web", ("lumen-web", "lumen-design-system"), "Liz", "LUM", 12, "5.",
            19, (("iris", 5), ("wardenstein", 2), ("steve", 1.5), ("mason", 1), ("nova", 1))),
    Project("dataforge", ("dataforge-pipelines", "dataforge-dbt", "dataforge-infra"), "Tomas",
            "DF", 57, "1.", 20,
            (("kai", 5), ("nova", 2), ("mason", 1.5), ("steve", 1.5), ("wardenstein", 1))),
)
PROJECT_BY_NAME = {p.name: p for p in PROJECTS}

#: agent -> role (herd names three of them; the other three complete the team).
AGENTS: dict[str, str] = {
    "steve": "architect",
    "mason": "backend",
    "wardenstein": "reviewer",
    "iris": "frontend",
    "kai": "data",
    "nova": "ops",
}
#: Humans who appear in memories besides each project's lead.
ANA = "Ana"  # SRE lead

MILESTONES = ("the v3 launch", "the Q3 freeze", "the customer demo", "the July release",
              "the audit", "the pricing change", "the September planning")
RISKS = ("the migration effort", "extra latency on the hot path", "the on-call load",
         "rollback complexity", "the cost", "the test gap", "partner impact")


def all_stories() -> tuple[Story, ...]:
    """Every storyline of the world, project by project in `PROJECTS` order."""
    return (stories_herd.STORIES + stories_atlas.STORIES + stories_lumen.STORIES
            + stories_dataforge.STORIES)


@dataclass(frozen=True)
class Constitutional:
    """A rule that never decays; `query` asks for it in other words; `supports` story keys."""

    memory_type: str
    content: str
    tags: tuple[str, ...]
    query: str
    supports: tuple[str, ...] = ()


CONSTITUTIONAL: tuple[Constitutional, ...] = (
    Constitutional("principle", "Never store secrets, tokens or credentials in memory; redact them "
                   "before anything is written.", ("security", "memory"),
                   "rules about passwords ending up in what agents remember",
                   ("herd-memory-secrets", "atlas-helm-secrets", "df-dag-secrets")),
    Constitutional("decision", "Markdown HDRs are the system of record; LanceDB memory is a recall "
                   "index and loses any disagreement with them.", ("docs", "memory", "lancedb"),
                   "which source wins when a design verdict and the database disagree",
                   ("herd-hdr-sync",)),
    Constitutional("principle", "Agents never push to main or merge their own pull requests; a "
                   "human or Wardenstein approves every merge.", ("review", "agents"),
                   "can an assistant land its own change without anybody signing off"),
    Constitutional("principle", "No memory is deleted without an audit entry naming who deleted "
                   "it and why.", ("memory", "security"),
                   "what has to happen before we erase something an agent learned",
                   ("herd-audit-log",)),
    Constitutional("principle", "Customer data never leaves the tenant it belongs to: not in "
                   "memory, not in logs, not in prompts.", ("security", "api"),
                   "may information from one client show up for another",
                   ("atlas-tenant-leak", "herd-recall-filters")),
    Constitutional("principle", "When an agent is unsure whether an action is reversible, it asks "
                   "before acting.", ("agents", "ops"),
                   "what should a helper do before something it cannot undo"),
    Constitutional("preference", "Faust makes the final call on architecture; agents present "
                   "options and trade-offs, not verdicts.", ("agents", "docs"),
                   "who settles design questions and what do assistants bring to him",
                   ("herd-briefing-options",)),
    Constitutional("principle", "Production credentials are used only by the deploy pipeline, "
                   "never by an agent session.", ("security", "deploy"),
                   "are assistants allowed to hold the live environment passwords"),
    Constitutional("principle", "Every memory records where it came from: session, agent and "
                   "source.", ("memory", "agents"),
                   "what provenance must each remembered item carry"),
    Constitutional("decision", "Every read of the memory store is scoped to one tenant; no query "
                   "runs without a tenant.", ("memory", "security"),
                   "can lookups ever span several customers at once"),
)

PRINCIPLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Prefer boring, well-understood storage over clever storage.", ("storage", "architecture")),
    ("Make the change easy, then make the easy change.", ("architecture", "review")),
    ("Every alert must name the runbook that answers it.", ("observability", "ops")),
    ("Measure before optimising, and attach the numbers to the pull request.",
     ("performance", "review")),
    ("Small pull requests get better reviews than big ones.", ("review", "agents")),
    ("Fix the root cause in the shared component, not the symptom on each page.",
     ("frontend", "architecture")),
    ("Every pipeline step must be safe to rerun.", ("pipelines", "data-quality")),
    ("Write the failing test before the fix.", ("testing", "agents")),
    ("Prefer explicit configuration over defaults that differ per environment.",
     ("config", "deploy")),
    ("Design for deletion: anything we store, we must be able to remove on request.",
     ("security", "storage")),
    ("Roll out risky changes behind flags and ramp them gradually.", ("feature-flags", "deploy")),
    ("Keep boundaries narrow: one base class and a registry by name.", ("architecture", "review")),
    ("Dead ends are findings too; write them down.", ("agents", "memory")),
    ("Prefer reversible decisions, and make irreversible ones slowly.", ("architecture", "docs")),
    ("Names in code should match the names in the HDRs.", ("docs", "review")),
    ("Whoever ships a service also owns its on-call experience.", ("ops", "incidents")),
    ("Store time in UTC and convert to local only for display.", ("data-quality", "schema")),
    ("A metric nobody looks at should be deleted.", ("observability", "costs")),
    ("When two agents disagree, write both positions down before deciding.", ("agents", "docs")),
    ("Default to the accessible implementation; retrofitting costs more.",
     ("accessibility", "frontend")),
    ("Data contracts are owned by the producers of the data.", ("pipelines", "schema")),
    ("Every outbound call has a timeout and a budget.", ("reliability", "api")),
)

#: agent -> (identity, later identity, whether the later one supersedes the first)
IDENTITIES: dict[str, tuple[str, str, bool]] = {
    "steve": ("I am Steve, the architect agent for herd. I frame decisions as HDRs and present "
              "options to Faust; I do not write production code.",
              "I am Steve, the architect agent across herd, atlas-api, lumen-web and dataforge. I "
              "write HDRs, review cross-project designs and present options; I do not write "
              "production code.", True),
    "mason": ("I am Mason, the backend agent. I write Python services for herd and atlas-api and "
              "work best with an explicit file list in my spawn context.",
              "Mason works test-first since June: a failing test is the first item of every "
              "backend task he takes.", False),
    "wardenstein": ("I am Wardenstein, the reviewer agent. I review every pull request against "
                    "the HDRs and the style guide before a human merges it.",
                    "Wardenstein blocks merges that change a public API without a changelog "
                    "entry and a linked HDR.", False),
    "iris": ("I am Iris, the frontend agent for lumen-web and the design system. Accessibility "
             "checks are part of every change I make.",
             "Iris owns the lumen design system's component tests and visual snapshots.", False),
    "kai": ("I am Kai, the data agent for dataforge: pipelines, dbt models and data quality.",
            "Kai also maintains the embedding pipelines and LanceDB indexes that the other "
            "projects query.", False),
    "nova": ("I am Nova, the ops agent: deploys, runbooks and infrastructure for atlas-api.",
             "I am Nova, the ops agent for all four projects: on-call for atlas-api and "
             "dataforge, infrastructure and deploys for everything.", True),
}


@dataclass(frozen=True)
class Pref:
    """A preference of a person or agent, recorded in a session of `project` (None: any)."""

    project: str | None
    content: str
    tags: tuple[str, ...]


PREFERENCES: tuple[Pref, ...] = (
    Pref("herd", "Faust prefers presenting tension and letting him resolve it over a single "
         "recommendation.", ("agents", "docs")),
    Pref("herd", "Faust wants HDR numbers quoted in the commit messages that implement them.",
         ("docs", "review")),
    Pref("herd", "Faust prefers short status updates: what changed, what is blocked, what is "
         "next.", ("agents", "docs")),
    Pref("herd", "Faust prefers uv for Python installs, with lockfiles checked in.",
         ("dependencies", "ci")),
    Pref("atlas-api", "Priya prefers release notes written for partners, not for engineers.",
         ("docs", "api")),
    Pref("atlas-api", "Priya wants any API change that partners will notice announced two weeks "
         "ahead.", ("api", "docs")),
    Pref("atlas-api", "Priya prefers metrics in dashboards over numbers pasted into chat.",
         ("observability", "docs")),
    Pref("lumen-web", "Liz wants spacing in multiples of 4 px, with no one-off values.",
         ("design", "frontend")),
    Pref("lumen-web", "Liz wants every empty state designed, not left to a default message.",
         ("design", "ux")),
    Pref("dataforge", "Tomas prefers dbt models named by grain: one row per what.",
         ("pipelines", "docs")),
    Pref("dataforge", "Tomas wants data quality failures to stop the pipeline rather than warn.",
         ("data-quality", "pipelines")),
    Pref("dataforge", "Tomas prefers ISO dates in every file name.", ("data-quality", "storage")),
    Pref("atlas-api", "Ana prefers runbooks as numbered steps with copy-pasteable commands.",
         ("ops", "docs")),
    Pref("atlas-api", "Ana wants every alert to link its runbook.", ("observability", "ops")),
    Pref(None, "Steve prefers HDRs under two pages, with rejected options listed.",
         ("docs", "agents")),
    Pref(None, "Mason prefers small modules with one concept each and tests that mirror them.",
         ("testing", "review")),
    Pref(None, "Wardenstein prefers review comments grouped as must-fix, should-fix and nit.",
         ("review", "agents")),
    Pref("lumen-web", "Iris prefers Storybook stories for every component state, including "
         "errors and empty states.", ("design", "testing")),
    Pref(None, "Nova prefers Terraform changes applied from CI only, never from a laptop.",
         ("deploy", "ops")),
)

#: Pairs of preferences that contradict each other (a `contradicts` edge joins them).
CONTRADICTIONS: tuple[tuple[Pref, Pref], ...] = (
    (Pref("herd", "Faust prefers squash merges so main reads as one commit per change.",
          ("review", "ci")),
     Pref("herd", "Wardenstein prefers keeping full commit history on merge so review comments "
          "map to commits.", ("review", "ci"))),
    (Pref("herd", "Steve prefers one repository per project.", ("architecture", "ci")),
     Pref("herd", "Mason prefers a monorepo for herd so spawn contexts can reference any "
          "package.", ("architecture", "agents"))),
    (Pref("atlas-api", "Priya wants new endpoints shipped as soon as they are useful, even "
          "before the SDKs support them.", ("api", "deploy")),
     Pref("atlas-api", "Wardenstein wants no endpoint released before the SDKs and docs cover "
          "it.", ("api", "docs"))),
    (Pref("lumen-web", "Liz prefers animations on state changes to guide attention.",
          ("design", "ux")),
     Pref("lumen-web", "Iris prefers no motion by default and honours prefers-reduced-motion "
          "for everyone.", ("accessibility", "ux"))),
    (Pref("dataforge", "Tomas prefers nightly batch loads for predictability.",
          ("pipelines", "ops")),
     Pref("dataforge", "Kai prefers streaming ingestion so dashboards are fresh within minutes.",
          ("pipelines", "performance"))),
    (Pref("dataforge", "Ana prefers paging the on-call for any data delay over an hour.",
          ("ops", "incidents")),
     Pref("dataforge", "Tomas prefers data delays to go to a morning digest unless finance "
          "tables are affected.", ("ops", "observability"))),
    (Pref("herd", "Faust prefers agents to ask before creating new files.", ("agents", "review")),
     Pref("herd", "Mason prefers to create scaffolding files freely and clean up in review.",
          ("agents", "review"))),
)

#: (earlier preference, the preference that later replaced it)
PREFERENCE_UPDATES: tuple[tuple[Pref, Pref], ...] = (
    (Pref("herd", "Faust prefers detailed session logs with every command that was run.",
          ("agents", "docs")),
     Pref("herd", "Faust now prefers 200-word session summaries; the full command logs were "
          "never read.", ("agents", "docs"))),
    (Pref("lumen-web", "Liz prefers to review designs only in Figma.", ("design", "review")),
     Pref("lumen-web", "Liz now reviews designs on deployed previews; Figma is for exploration "
          "only.", ("design", "review"))),
    (Pref("dataforge", "Kai prefers pandas for transforms because the whole team knows it.",
          ("pipelines", "performance")),
     Pref("dataforge", "Kai prefers Polars for new transforms after the feature build "
          "migration.", ("pipelines", "performance"))),
)
