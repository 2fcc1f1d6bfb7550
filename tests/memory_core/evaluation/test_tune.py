"""`tune`: the knob search by k-fold cross-validation, on a real LanceDB store with the fake
embedder, and its pure parts (search space, folds) on hand-made values."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from memory_core.cli.options import pick_ranking
from memory_core.evaluation import Query, SearchSpace, TuneResult, default_space, tune
from memory_core.evaluation.tune import metric_cut
from memory_core.evaluation.tune_folds import assign_folds, best, cross_validate, spread
from memory_core.evaluation.tune_space import (
    MAX_CONFIGS,
    knob_values,
    ranking_key,
    with_knobs,
)
from memory_core.model.errors import InvalidConfigError
from memory_core.model.records import Memory
from memory_core.retrieval.config import PRESETS, RankingConfig, preset
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

NOW = datetime(2026, 10, 1, tzinfo=UTC)
RARE = ("quokka", "zanzibar", "marimba", "obsidian", "tundra", "saffron", "glacier",
        "origami", "lantern", "walrus")
COMMON = "deploy pipeline server config"
#: Knob values that decide the test store: the vector engine on (the base) or off.
VECTOR_SPACE = SearchSpace({"use_vector": (True, False)})


@pytest.fixture
def queries(store: MemoryStore) -> list[Query]:
    """Ten queries, each one rare word plus four common ones, and one relevant memory each.

    The relevant memory holds the query's rare word only; sixty distractors hold the four
    common words. BM25 weighs the rare word (it is in one memory) far above the common ones
    (in sixty): it ranks the relevant memory first. The fake embedder weighs every word
    alike, so the distractors (4 of 5 words shared) are far closer than the relevant memory
    (1 of 5): the vector engine ranks it below all sixty, outside its top 50 candidates.
    Equal-weight RRF then gives the relevant memory 1/(60 + 1) = 0.0164 and each of the
    (at least 39) distractors in both engines' top 50 at least 1.1 * 2/(60 + 50) = 0.02, so
    it falls out of the top 10. BM25 alone scores nDCG@10 = 1 on every query and hybrid_rrf
    0: turning the vector engine off is clearly better.
    """
    when = NOW - timedelta(days=3)
    relevant = [Memory.new(f"{word} notes kept", created_at=when) for word in RARE]
    distractors = [Memory.new(f"{COMMON} item{j}", created_at=when) for j in range(60)]
    store.add(relevant + distractors)
    return [Query(f"q{i}", f"{word} {COMMON}", {m.id: 1})
            for i, (word, m) in enumerate(zip(RARE, relevant, strict=True))]


def _tune(store: MemoryStore, queries: list[Query], **kw: object) -> TuneResult:
    options: dict[str, object] = {"space": VECTOR_SPACE, "base": preset("hybrid_rrf"),
                                  "now": NOW, **kw}
    return tune(store, queries, **options)  # type: ignore[arg-type]


def test_tune_picks_the_clearly_better_value(store: MemoryStore, queries: list[Query]) -> None:
    ticks: list[int] = []
    result = _tune(store, queries, progress=ticks.append)
    assert [c.knobs for c in result.candidates] == [{"use_vector": True}, {"use_vector": False}]
    assert result.base == preset("hybrid_rrf")
    assert sum(ticks) == 2 * len(queries)  # each config searched once per query
    assert result.mean(0) == 0.0 and result.mean(1) == 1.0
    assert result.chosen == 1 and result.config == preset("hybrid_rrf").with_changes(
        use_vector=False)
    assert [f.chosen for f in result.folds] == [1] * 5 and result.chosen_in(1) == 5
    assert result.tuned == (1.0, 0.0) and result.baseline == (0.0, 0.0)
    assert (result.tuned_mean, result.tuned_sd, result.base_mean, result.base_sd) == (
        1.0, 0.0, 0.0, 0.0)
    assert result.queries == 10 and result.now == NOW and result.skipped == 0


def test_the_tables(store: MemoryStore, queries: list[Query]) -> None:
    result = _tune(store, queries, folds=2)
    frame = result.to_frame()
    assert frame.columns == ["config", "use_vector", "mean", "folds", "base", "chosen"]
    assert frame.to_dicts() == [
        {"config": 1, "use_vector": False, "mean": 1.0, "folds": 2, "base": False,
         "chosen": True},
        {"config": 0, "use_vector": True, "mean": 0.0, "folds": 0, "base": True,
         "chosen": False}]
    folds = result.folds_frame()
    assert folds.columns == ["fold", "queries", "config", "knobs", "train", "held_out", "base"]
    assert folds["queries"].to_list() == [5, 5] and folds["knobs"].to_list() == [
        "use_vector=False"] * 2
    doc = json.loads(json.dumps(result.to_dict(), default=str))
    assert doc["tuned"] == {"mean": 1.0, "sd": 0.0} and doc["base"] == {"mean": 0.0, "sd": 0.0}
    assert doc["chosen"] == {"config": 1, "knobs": {"use_vector": False}, "mean": 1.0,
                             "folds": 2}
    assert RankingConfig.from_dict(doc["ranking_config"]) == result.config


def test_the_written_json_loads_as_the_chosen_config(store: MemoryStore,
                                                     queries: list[Query]) -> None:
    result = _tune(store, queries)
    assert RankingConfig.from_dict(json.loads(result.to_json())) == result.config
    handle = io.StringIO(result.to_json())
    handle.name = "tuned.json"
    assert pick_ranking(None, handle) == ("tuned", result.config)  # what --config reads


def test_deterministic_for_a_seed(store: MemoryStore, queries: list[Query]) -> None:
    space = SearchSpace({"use_vector": (True, False), "rrf_k": (60, 5)})

    def folds(seed: int) -> list[tuple[tuple[str, ...], int, float]]:
        result = _tune(store, queries, space=space, seed=seed)
        return [(f.held_out, f.chosen, f.score) for f in result.folds]

    assert folds(3) == folds(3)
    assert [f[0] for f in folds(3)] != [f[0] for f in folds(4)]


def test_folds_are_disjoint_and_the_chooser_never_sees_the_held_out_fold(
        store: MemoryStore, queries: list[Query]) -> None:
    space = SearchSpace({"use_vector": (True, False), "rrf_k": (60, 5), "weight_bm25": (1, 3)})
    result = _tune(store, queries, space=space, folds=4, seed=7)
    qids = {q.qid for q in queries}
    held = [set(f.held_out) for f in result.folds]
    assert sorted(len(h) for h in held) == [2, 2, 3, 3]
    assert set().union(*held) == qids and sum(map(len, held)) == len(qids)
    for fold in result.folds:
        assert not set(fold.held_out) & set(fold.train)
        assert set(fold.train) | set(fold.held_out) == qids
        # the recorded choice is the best on the training qids alone
        assert fold.chosen == best([{q: v[q] for q in fold.train} for v in result.values],
                                   fold.train)


def test_a_config_that_only_wins_on_the_held_out_fold_is_not_chosen_for_it() -> None:
    # twenty queries in five folds of four; config 1 scores 1 on fold 0's queries and 0.4
    # elsewhere, the base 0.5 everywhere. Without fold 0 config 1 averages 0.4 < 0.5, so
    # fold 0 keeps the base; every other fold trains on fold 0 too, where config 1 averages
    # (4 * 1 + 12 * 0.4) / 16 = 0.55 > 0.5, and chooses it.
    qids = [f"q{i:02}" for i in range(20)]
    folds = [qids[i::5] for i in range(5)]
    base = dict.fromkeys(qids, 0.5)
    planted = {q: 1.0 if q in folds[0] else 0.4 for q in qids}
    result = cross_validate([base, planted], folds)
    assert [f.chosen for f in result] == [0, 1, 1, 1, 1]
    assert result[0].score == 0.5 and result[0].train_score == 0.5
    assert result[1].train_score == pytest.approx((4 * 1 + 12 * 0.4) / 16)
    assert result[1].score == pytest.approx(0.4) and result[1].base_score == 0.5
    assert spread([f.score for f in result]) == pytest.approx((0.42, 0.0447213595))


def test_assign_folds_deals_a_shuffle_evenly() -> None:
    qids = [f"q{i}" for i in range(11)]
    folds = assign_folds(qids, 3, seed=0)
    assert [len(f) for f in folds] == [4, 4, 3]
    assert sorted(q for f in folds for q in f) == sorted(qids)
    assert folds == assign_folds(qids, 3, seed=0) != assign_folds(qids, 3, seed=1)


def test_ties_keep_the_base() -> None:
    assert best([{"a": 0.5}, {"a": 0.5}, {"a": 0.2}], ["a"]) == 0
    assert best([{"a": 0.5}, {"a": 0.6}, {"a": 0.6}], ["a"]) == 1


@pytest.mark.parametrize(("folds", "message"), [
    (1, "folds must be an integer >= 2, got 1"),
    (11, "11 folds need at least 11 queries, the set has 10; use fewer folds"),
])
def test_bad_folds(store: MemoryStore, queries: list[Query], folds: int,
                   message: str) -> None:
    with pytest.raises(InvalidConfigError, match=message):
        _tune(store, queries, folds=folds)


def test_bad_metric_and_an_empty_set(store: MemoryStore, queries: list[Query]) -> None:
    assert metric_cut("ndcg@10") == 10 and metric_cut("mrr@3") == 3
    for metric in ("ndcg", "ndcg@0", "f1@10", "ndcg@x"):
        with pytest.raises(InvalidConfigError, match=r"unknown metric .*; use one of "
                                                     r"recall@K, precision@K"):
            _tune(store, queries, metric=metric)
    with pytest.raises(InvalidConfigError, match="at least one query"):
        _tune(store, [])


def test_unknown_knobs_are_named_with_the_known_ones() -> None:
    with pytest.raises(InvalidConfigError) as info:
        SearchSpace({"weight_bm52": (1.0,), "decay.usage_cap": (1.2,)})
    message = str(info.value)
    assert message.startswith("unknown knob(s) 'weight_bm52'; known: ")
    assert "weight_bm25" in message and "decay.usage_cap" in message
    with pytest.raises(InvalidConfigError, match="needs a non-empty list of values"):
        SearchSpace({"rrf_k": ()})
    with pytest.raises(InvalidConfigError, match="needs a non-empty list of values"):
        SearchSpace({"rrf_k": 60})  # type: ignore[dict-item]
    with pytest.raises(InvalidConfigError, match="at least one knob"):
        SearchSpace({})


def test_values_must_have_the_knob_type() -> None:
    assert SearchSpace({"weight_bm25": (1, 2.5)}).knobs == (("weight_bm25", (1.0, 2.5)),)
    for knobs in ({"rrf_k": (60, 2.5)}, {"use_graph": (1,)}, {"rrf_k": (True,)},
                  {"decay.usage_cap": ("1.5",)}):
        with pytest.raises(InvalidConfigError, match="takes .* values, got"):
            SearchSpace(knobs)


def test_rejected_combinations_are_skipped_and_counted() -> None:
    grid = SearchSpace({"use_vector": (True, False), "use_bm25": (True, False)}).expand(
        preset("hybrid"))
    # (True, True) is the base itself; (False, False) turns both engines off
    assert [c.knobs for c in grid.candidates] == [
        {"use_vector": True, "use_bm25": True}, {"use_vector": True, "use_bm25": False},
        {"use_vector": False, "use_bm25": True}]
    assert grid.skipped == 1 and grid.reasons == (
        "turn on the vector or the BM25 engine (the graph needs seeds)",)
    with pytest.raises(InvalidConfigError, match="every combination of the search space is "
                                                 "invalid: engine weights must be >= 0"):
        SearchSpace({"weight_bm25": (-1.0, -2.0)}).expand(preset("hybrid"))


def test_nested_decay_knobs_and_the_grid_limit() -> None:
    config = with_knobs(preset("full"), {"decay.usage_cap": 1.2,
                                         "decay.tier_anchor.critical": 2.0})
    assert config.decay.usage_cap == 1.2 and config.decay.tier_anchor["critical"] == 2.0
    assert config.decay.tier_anchor["normal"] == 1.0  # the other anchors are kept
    assert knob_values(config)["decay.tier_anchor.critical"] == 2.0
    grid = SearchSpace({"decay.usage_cap": (1.5, 1.2)}).expand(preset("full"))
    assert len(grid.candidates) == 2  # 1.5 is the base's own value: no duplicate
    huge = SearchSpace({"rrf_k": tuple(range(1, 101)), "candidates": tuple(range(1, 101))})
    assert huge.size == 10_000 > MAX_CONFIGS
    with pytest.raises(InvalidConfigError, match="makes 10000 configs, more than"):
        huge.expand(RankingConfig())


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_default_space_is_small_valid_and_holds_the_base(name: str) -> None:
    base = preset(name)
    space = default_space(base)
    grid = space.expand(base)
    assert len(grid.candidates) <= 24 and grid.skipped == 0
    assert grid.candidates[0].config == base
    for knob, values in space.knobs:
        assert knob_values(base)[knob] in values  # tuning can keep the base's value
    if base.use_vector and base.use_bm25:  # weight_bm25 is inert with one engine
        assert len(grid.candidates) == (24 if base.use_decay else 12)
    assert set(space.names) == {"fusion", "weight_bm25", "context_window"} | (
        {"decay_weight"} if base.use_decay else set())


def test_configs_that_rank_alike_are_searched_once() -> None:
    grid = SearchSpace({"fusion": ("rrf", "convex"), "rrf_k": (60, 10),
                        "normalisation": ("zscore", "minmax")}).expand(preset("hybrid_rrf"))
    # rrf_k only matters to RRF, normalisation only to score fusion
    assert [c.knobs for c in grid.candidates] == [
        {"fusion": "rrf", "rrf_k": 60, "normalisation": "zscore"},
        {"fusion": "rrf", "rrf_k": 10, "normalisation": "zscore"},
        {"fusion": "convex", "rrf_k": 60, "normalisation": "zscore"},
        {"fusion": "convex", "rrf_k": 60, "normalisation": "minmax"}]
    rrf = preset("hybrid_rrf")
    assert ranking_key(rrf) != ranking_key(rrf.with_changes(rrf_k=9))
    assert ranking_key(preset("hybrid")) == ranking_key(preset("hybrid").with_changes(rrf_k=9))


def test_each_query_is_embedded_once(store: MemoryStore, queries: list[Query],
                                     fake_embedder: FakeEmbedder) -> None:
    before = fake_embedder.calls
    _tune(store, queries, space=SearchSpace({"rrf_k": (60, 30, 10)}))
    assert fake_embedder.calls - before == len(queries)  # not once per config
    assert store.embedder is fake_embedder  # the store itself is left as it was
