"""The demo corpus: size, shape, lineage, duplicates, query set and determinism."""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import UTC, datetime

import pytest

from memory_core.model.schema import IMPORTANCE_TIERS, MEMORY_TYPES, RELATIONS, SOURCES
from memory_core.model.values import content_hash
from tools.demo_corpus import DEMO_SEED, DemoCorpus, generate_demo

START = datetime(2026, 4, 1, tzinfo=UTC)
END = datetime(2026, 10, 1, tzinfo=UTC)
FILTER_FIELDS = {"project", "repo", "agent", "session_id", "memory_type", "tags", "status",
                 "importance"}
SESSION_ID = re.compile(r"^(steve|mason|wardenstein|iris|kai|nova)-(\d{4}-\d{2}-\d{2})-[a-h]$")
# Deliberately independent of tools.demo_corpus.queries: the test's own idea of a content word.
STOPWORDS = set(
    "the and for with that this from into when what why how did does was were are our has had "
    "have not but all any can could would should they them their then than its out over about "
    "after before again also each just only some very more most one two get got kept made who "
    "which while because been nobody anyone everyone someone nothing even though still".split()
)


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3} - STOPWORDS


def passes(memory, filter: dict) -> bool:
    for name, value in filter.items():
        if name == "tags":
            if not set(value) & set(memory.tags):
                return False
        elif getattr(memory, name) != value:
            return False
    return True


@pytest.fixture(scope="module")
def corpus() -> DemoCorpus:
    return generate_demo()


@pytest.fixture(scope="module")
def by_id(corpus):
    return {m.id: m for m in corpus.memories}


# --- size and shape ---------------------------------------------------------------------------

def test_about_three_thousand_memories(corpus):
    assert 2900 <= len(corpus.memories) <= 3100
    assert len({m.id for m in corpus.memories}) == len(corpus.memories)


def test_four_projects_with_one_to_three_repos_each(corpus):
    projects = {m.project for m in corpus.memories}
    assert projects == {"herd", "atlas-api", "lumen-web", "dataforge"}
    for project in projects:
        repos = {m.repo for m in corpus.memories if m.project == project and m.repo}
        assert 1 <= len(repos) <= 3


def test_six_agents_and_eighty_sessions_of_one_agent_project_and_day(corpus):
    assert {m.agent for m in corpus.memories} == {
        "steve", "mason", "wardenstein", "iris", "kai", "nova"}
    sessions: dict[str, set] = {}
    for m in corpus.memories:
        match = SESSION_ID.match(m.session_id)
        assert match, m.session_id
        assert match.group(1) == m.agent
        assert m.created_at.date().isoformat() == match.group(2)
        sessions.setdefault(m.session_id, set()).add((m.agent, m.project))
    assert len(sessions) == 80
    assert all(len(pairs) == 1 for pairs in sessions.values())


def test_timestamps_span_six_months_in_utc_whole_seconds(corpus):
    created = [m.created_at for m in corpus.memories]
    assert all(t.tzinfo is not None and t.utcoffset().total_seconds() == 0 for t in created)
    assert all(t.microsecond == 0 for t in created)
    assert START <= min(created) and max(created) < END
    assert (max(created) - min(created)).days >= 170
    assert all(m.created_at <= m.updated_at < END for m in corpus.memories)
    assert {m.tenant for m in corpus.memories} == {"default"}


def test_every_memory_type_in_realistic_proportions(corpus):
    counts = Counter(m.memory_type for m in corpus.memories)
    assert set(MEMORY_TYPES) <= set(counts)
    assert counts["observation"] > counts["decision"] > counts["principle"] > counts["identity"]
    assert counts["thread"] > counts["decision"]
    assert counts["session_summary"] == 80
    assert counts["identity"] <= 20


def test_importance_tiers(corpus):
    tiers = Counter(m.importance for m in corpus.memories)
    assert set(tiers) == set(IMPORTANCE_TIERS)
    assert tiers["normal"] > len(corpus.memories) / 2
    assert 5 <= tiers["constitutional"] <= 15
    rules = " ".join(m.content for m in corpus.memories if m.importance == "constitutional")
    assert "secrets" in rules and "system of record" in rules
    # Stability follows memory_core.model.stability: constitutional memories never decay.
    assert all(m.stability >= 1e8 for m in corpus.memories if m.importance == "constitutional")


def test_statuses(corpus):
    statuses = Counter(m.status for m in corpus.memories)
    assert statuses["active"] > 0.9 * len(corpus.memories)
    assert statuses["archived"] >= 30
    assert statuses["superseded"] >= 20


def test_access_histories(corpus):
    counts = [m.access_count for m in corpus.memories]
    assert sum(c == 0 for c in counts) > 0.3 * len(counts)
    assert max(counts) >= 50
    for m in corpus.memories:
        if m.access_count:
            assert m.created_at < m.last_accessed_at < END
            assert m.last_accessed_at.microsecond == 0
        else:
            assert m.last_accessed_at is None


def test_recall_events_account_for_every_access_history(corpus, by_id):
    recalls: dict[str, list] = {}
    for e in corpus.events:
        if e.event_kind == "recall":
            recalls.setdefault(e.memory_id, []).append(e)
    assert set(recalls) == {m.id for m in corpus.memories if m.access_count}
    for memory_id, events in recalls.items():
        m = by_id[memory_id]
        times = sorted(e.at for e in events)
        assert len(events) == m.access_count
        assert times[-1] == m.last_accessed_at and m.created_at <= times[0]
        assert all(t.microsecond == 0 for t in times)
    sample = [e for e in corpus.events if e.event_kind == "recall"][:200]
    for e in sample:  # a session of the memory's project, a query of its words
        assert SESSION_ID.match(e.session_id) and e.actor == e.session_id.split("-")[0]
        assert e.query and set(e.query.split()) <= words(by_id[e.memory_id].content)


def test_a_few_recalled_memories_were_cited_recently_or_long_ago(corpus, by_id):
    cites = [e for e in corpus.events if e.event_kind == "cite"]
    recalled = sum(1 for m in corpus.memories if m.access_count)
    assert 0.03 * recalled < len({e.memory_id for e in cites}) < 0.08 * recalled
    recent = [e for e in cites if (END - e.at).days < 7]
    assert recent and len(recent) < len(cites)  # inside the citation window and older
    for e in cites:
        m = by_id[e.memory_id]
        assert m.access_count and m.created_at < e.at < END


def test_events_come_from_their_own_generator(corpus, monkeypatch):
    """Adding events left the memories, edges and queries as they were."""
    import tools.demo_corpus.corpus as module

    monkeypatch.setattr(module, "build_events", lambda *args: ())
    without = generate_demo()
    assert without.events == () and corpus.events
    assert (without.memories, without.edges, without.queries) == (
        corpus.memories, corpus.edges, corpus.queries)
    assert len({e.id for e in corpus.events}) == len(corpus.events)


def test_confidence_source_why_tags_and_metadata(corpus):
    for m in corpus.memories:
        assert 0.5 <= m.confidence <= 1.0
        assert m.source in SOURCES
        assert 2 <= len(m.tags) <= 4 and len(set(m.tags)) == len(m.tags)
        if m.memory_type in ("decision", "preference", "lesson"):
            assert m.why and "\n" not in m.why
        if m.memory_type == "decision_context":
            assert re.fullmatch(r"HDR-\d{4}", m.metadata["hdr_number"])
        if m.memory_type == "thread":
            assert m.metadata["turn_index"] >= 1
        if "ticket_id" in m.metadata:
            assert re.fullmatch(r"(HRD|ATL|LUM|DF)-\d{3}", m.metadata["ticket_id"])
    assert sum("component" in m.metadata for m in corpus.memories) > 2000


# --- text -------------------------------------------------------------------------------------

def test_text_reads_like_agent_memory(corpus):
    hashes = [m.content_hash for m in corpus.memories]
    assert len(set(hashes)) >= 0.95 * len(hashes)
    for m in corpus.memories:
        assert len(m.content.strip()) >= 20
        assert "lorem" not in m.content.lower()
        assert not re.fullmatch(r"(memory|observation|note) \d+", m.content.strip().lower())
        assert "{" not in m.content and "}" not in m.content  # every slot was filled
    text = " ".join(m.content for m in corpus.memories)
    for needle in ("HDR-0", "Mason", "Faust", "LanceDB", "ATL-", "DF-"):
        assert needle in text
    assert re.search(r"`src/[a-z_/]+\.(py|ts|tsx)`", text)  # files named like real code


def test_one_summary_per_session_mentions_its_work(corpus):
    summaries = [m for m in corpus.memories if m.memory_type == "session_summary"]
    assert len({m.session_id for m in summaries}) == 80
    for m in summaries:
        assert m.agent.capitalize() in m.content


# --- lineage ----------------------------------------------------------------------------------

def test_edges_are_valid_and_plentiful(corpus, by_id):
    assert len(corpus.edges) >= 800
    assert {e.relation for e in corpus.edges} == set(RELATIONS)
    keys = [(e.source_id, e.target_id, e.relation) for e in corpus.edges]
    assert len(set(keys)) == len(keys)
    for e in corpus.edges:
        assert e.source_id in by_id and e.target_id in by_id
        assert e.source_id != e.target_id
        assert e.created_at >= by_id[e.source_id].created_at
        assert e.created_at >= by_id[e.target_id].created_at
        assert e.created_at < END
        assert 0.3 <= e.strength <= 1.0
        assert 0.0 <= e.decay_rate <= 0.02
        assert e.tenant == "default" and e.evidence


def _pairs(corpus, by_id, relation):
    return Counter((by_id[e.source_id].memory_type, by_id[e.target_id].memory_type)
                   for e in corpus.edges if e.relation == relation)


def test_lineages_connect_the_right_kinds(corpus, by_id):
    assert _pairs(corpus, by_id, "derived_from")[("reflection", "observation")] >= 50
    assert _pairs(corpus, by_id, "derived_from")[("lesson", "observation")] >= 50
    assert _pairs(corpus, by_id, "caused")[("observation", "decision")] >= 100
    assert _pairs(corpus, by_id, "supports")[("decision_context", "decision")] >= 100
    assert _pairs(corpus, by_id, "supports")[("pattern", "decision")] >= 20
    assert _pairs(corpus, by_id, "supersedes")[("decision", "decision")] >= 20
    assert _pairs(corpus, by_id, "contradicts")[("preference", "preference")] >= 5
    assert _pairs(corpus, by_id, "enabled")[("decision", "decision")] >= 10


def test_superseded_memories_are_supersedes_targets(corpus, by_id):
    targets = {e.target_id for e in corpus.edges if e.relation == "supersedes"}
    assert all(by_id[t].status == "superseded" for t in targets)
    superseded = {m.id for m in corpus.memories if m.status == "superseded"}
    assert superseded == targets
    for e in corpus.edges:
        if e.relation == "supersedes":
            assert by_id[e.source_id].status == "active"
            assert by_id[e.source_id].created_at > by_id[e.target_id].created_at


# --- duplicates -------------------------------------------------------------------------------

def test_exact_and_near_duplicates_are_present_and_recorded(corpus, by_id):
    repeated = [h for h, n in Counter(m.content_hash for m in corpus.memories).items() if n > 1]
    assert len(repeated) >= 20
    copies = [m for m in corpus.memories if "duplicate_of" in m.metadata]
    kinds = Counter(m.metadata["duplicate_kind"] for m in copies)
    assert kinds["exact"] >= 20 and kinds["near"] >= 20
    for copy in copies:
        original = by_id[copy.metadata["duplicate_of"]]
        assert copy.id != original.id and copy.created_at > original.created_at
        assert copy.memory_type == original.memory_type
        if copy.metadata["duplicate_kind"] == "exact":
            assert copy.content_hash == original.content_hash
        else:
            assert copy.content_hash != original.content_hash
            assert len(words(copy.content) ^ words(original.content)) <= 4
    # Whitespace-only copies hash equal to their original (content_hash normalises spacing).
    assert any(c.content != by_id[c.metadata["duplicate_of"]].content
               and c.content_hash == content_hash(by_id[c.metadata["duplicate_of"]].content)
               for c in copies)


# --- query set --------------------------------------------------------------------------------

def test_query_set_shape(corpus):
    queries = corpus.queries
    assert len(queries) >= 120
    assert [q["qid"] for q in queries] == [f"q{n:03d}" for n in range(1, len(queries) + 1)]
    kinds = Counter(q["tags"][0] for q in queries)
    assert set(kinds) == {"keyword", "paraphrase", "filtered", "why"}
    assert min(kinds.values()) >= 20
    for q in queries:
        assert set(q) == {"qid", "query", "relevant", "filter", "tags"}
        assert isinstance(q["query"], str) and q["query"].strip()
        assert q["relevant"] and set(q["filter"]) <= FILTER_FIELDS
        assert all(isinstance(g, int) and 1 <= g <= 3 for g in q["relevant"].values())
        assert max(q["relevant"].values()) >= 2
        if "filtered" in q["tags"]:
            assert q["filter"]
        else:
            assert q["filter"] == {}


def test_relevant_ids_exist_are_active_and_pass_the_filter(corpus, by_id):
    for q in corpus.queries:
        for mid in q["relevant"]:
            memory = by_id[mid]
            assert passes(memory, q["filter"]), (q["qid"], mid)
            if "status" not in q["filter"]:
                assert memory.status == "active", (q["qid"], mid)
    assert any(q["filter"].get("status") == "superseded" for q in corpus.queries)
    used = {k for q in corpus.queries for k in q["filter"]}
    assert {"project", "agent", "memory_type", "tags", "status", "session_id"} <= used


def test_paraphrases_share_few_words_with_their_best_targets(corpus, by_id):
    paraphrases = [q for q in corpus.queries if "paraphrase" in q["tags"]]
    assert len(paraphrases) >= 30
    for q in paraphrases:
        best = [mid for mid, grade in q["relevant"].items() if grade == 3]
        assert best
        for mid in best:
            shared = words(q["query"]) & words(by_id[mid].content)
            assert len(shared) <= 3, (q["query"], by_id[mid].content, shared)


def test_keyword_queries_share_words_with_their_best_targets(corpus, by_id):
    for q in corpus.queries:
        if "keyword" not in q["tags"]:
            continue
        best = [by_id[mid].content for mid, grade in q["relevant"].items() if grade >= 2]
        assert best
        assert any(words(q["query"]) & words(text) or q["query"] in text for text in best)


def test_why_queries_follow_edges_from_a_decision(corpus, by_id):
    whys = [q for q in corpus.queries if "why" in q["tags"]]
    linked: dict[str, set[str]] = {}
    for e in corpus.edges:
        linked.setdefault(e.target_id, set()).add(e.source_id)
    for q in whys:
        (decision,) = [mid for mid, grade in q["relevant"].items() if grade == 3]
        assert by_id[decision].memory_type == "decision"
        reasons = [mid for mid, grade in q["relevant"].items() if grade == 2]
        assert reasons, q["query"]
        for mid in reasons:  # a reason, or a re-recorded copy of one (copies share its grade)
            origin = by_id[mid].metadata.get("duplicate_of", mid)
            assert origin in linked[decision], (q["query"], mid)


# --- determinism and speed --------------------------------------------------------------------

def test_same_seed_same_corpus_whatever_the_global_random_state(corpus):
    random.seed(1)
    again = generate_demo(DEMO_SEED)
    assert again == corpus
    assert generate_demo.__defaults__ == (DEMO_SEED,)


def test_other_seed_gives_other_ids():
    a, b = generate_demo(1), generate_demo(2)
    assert not {m.id for m in a.memories} & {m.id for m in b.memories}
    assert a.memories[0].content != b.memories[0].content or a.queries != b.queries

