"""The shared CLI pieces: the one preset-or-config parser, the Filter builder, output."""

from __future__ import annotations

import io
import json

import click
import pytest

from memory_core.cli import cli
from memory_core.cli.options import (
    PRESET_CHOICE,
    default_ranking,
    filter_from_options,
    pick_ranking,
    ranking_of,
)
from memory_core.cli.output import emit_json, shorten
from memory_core.model.errors import InvalidConfigError
from memory_core.model.filters import Filter
from memory_core.retrieval.config import (
    DEFAULT_PRESET,
    PRESETS,
    RECALL_PRESET,
    RankingConfig,
    preset,
)


def _file(text: str, name: str) -> io.StringIO:
    f = io.StringIO(text)
    f.name = name  # type: ignore[misc]
    return f


def test_preset_names_come_from_the_presets() -> None:
    assert tuple(PRESET_CHOICE.choices) == tuple(PRESETS)
    for name in ("search", "recall", "eval"):
        option = next(p for p in cli.commands[name].params if p.name == "preset_name")
        assert option.type is PRESET_CHOICE, name
        if name == "eval":  # no default value: --config may stand in for it
            assert f"(default {DEFAULT_PRESET})" in (option.help or "")
        elif name == "recall":  # the agents' call keeps its own default (decay on)
            assert option.default == RECALL_PRESET == "full"
        else:
            assert option.default == DEFAULT_PRESET, name


def test_pick_ranking_from_a_name_a_file_or_neither() -> None:
    assert pick_ranking("bm25", None) == ("bm25", preset("bm25"))
    assert pick_ranking(None, None) is None
    assert default_ranking() == (DEFAULT_PRESET, PRESETS[DEFAULT_PRESET])
    config = RankingConfig(use_graph=True, mmr_lambda=0.5)
    assert pick_ranking(None, _file(config.to_json(), "/x/tuned.json")) == ("tuned", config)
    assert pick_ranking(None, _file(config.to_json(), "<stdin>")) == ("config", config)


def test_a_file_overrides_a_name_unless_both_is_a_mistake() -> None:
    lexical = preset("bm25").to_json()
    assert ranking_of("vector", _file(lexical, "l.json")) == preset("bm25")
    assert ranking_of("vector", None) == preset("vector")
    with pytest.raises(click.UsageError, match="give --preset or --config, not both"):
        pick_ranking("vector", _file(lexical, "l.json"), both="--preset or --config")


@pytest.mark.parametrize("text, why", [
    ("[1, 2", "Expecting ',' delimiter"),
    ("[1, 2]", "it holds a JSON list"),
    ('"bm25"', "it holds a JSON str"),
])
def test_a_file_that_is_no_json_object_names_itself(text: str, why: str) -> None:
    with pytest.raises(InvalidConfigError) as caught:
        pick_ranking(None, _file(text, "bad.json"))
    assert str(caught.value).startswith(f"bad.json is not a RankingConfig JSON object: {why}")


def test_unknown_keys_are_named_by_the_engine() -> None:
    with pytest.raises(InvalidConfigError, match=r"unknown ranking option\(s\) colour"):
        pick_ranking(None, _file('{"colour": "red"}', "u.json"))


def test_empty_repeats_mean_no_restriction() -> None:
    flt = filter_from_options({"project": ("herd", "atlas"), "agent": (), "status": (),
                               "created_after": None})
    assert flt == Filter(project=("herd", "atlas"))


def test_shorten_and_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert shorten("abcdef", 6) == "abcdef" and shorten("abcdef", 4) == "abc…"
    emit_json({"tags": ("a", "b"), "note": "ü"})
    assert json.loads(capsys.readouterr().out) == {"tags": ["a", "b"], "note": "ü"}
