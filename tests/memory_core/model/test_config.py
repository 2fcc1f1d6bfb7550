"""Settings: the stores the web app may open (MEMLENS_STORE plus MEMLENS_STORES)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memory_core.model.config import Settings, split_stores
from memory_core.model.errors import InvalidConfigError, StoreNotAllowedError


def test_store_lists_split_on_commas_and_pathsep_but_keep_urls_whole() -> None:
    text = f" ./a ,s3://bucket/m{os.pathsep}file:///srv/b,, "
    assert split_stores(text) == ("./a", "s3://bucket/m", "file:///srv/b")


def test_allowed_stores_are_the_configured_one_and_the_listed_ones(tmp_path: Path) -> None:
    env = {"MEMLENS_STORE": str(tmp_path / "main"),
           "MEMLENS_STORES": f"{tmp_path / 'extra'},s3://bucket/m/"}
    settings = Settings.from_env(env)
    assert settings.allowed_stores == (str(tmp_path / "main"), str(tmp_path / "extra"),
                                       "s3://bucket/m/")
    for spelling in (str(tmp_path / "main"), f"{tmp_path}/./main/", f"file://{tmp_path}/extra",
                     "s3://bucket/m"):
        settings.check_store_allowed(spelling)
    assert settings.is_configured_store(f"{tmp_path}/x/../main")
    assert not settings.is_configured_store(str(tmp_path / "extra"))


@pytest.mark.parametrize("uri", ["/proc/self", "../main", "s3://bucket", "a\x00b", "x" * 500])
def test_any_other_store_is_refused_naming_the_setting(tmp_path: Path, uri: str) -> None:
    settings = Settings.from_env({"MEMLENS_STORE": str(tmp_path / "main")})
    with pytest.raises(StoreNotAllowedError, match="MEMLENS_STORES") as info:
        settings.check_store_allowed(uri)
    assert len(str(info.value)) < 250  # the value is cut, not echoed whole


@pytest.mark.parametrize("value, expected", [("1", True), ("TRUE", True), (" yes ", True),
                                             ("on", True), ("0", False), ("False", False),
                                             ("no", False), ("off", False), ("", False)])
def test_read_only_accepts_the_yes_and_no_spellings(value: str, expected: bool) -> None:
    assert Settings.from_env({"MEMLENS_READ_ONLY": value}).read_only is expected
    assert Settings.from_env({}).read_only is False


@pytest.mark.parametrize("value", ["2", "y", "enabled", "ro", "t", "\x1b[2J"])
def test_read_only_refuses_any_other_value_listing_the_accepted_ones(value: str) -> None:
    with pytest.raises(InvalidConfigError, match="MEMLENS_READ_ONLY is .*1, true, yes, on"
                       ) as info:
        Settings.from_env({"MEMLENS_READ_ONLY": value})
    assert "\x1b" not in str(info.value)  # the value is escaped
