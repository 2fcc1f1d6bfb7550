"""`store_damage`: Lance's errors on a damaged file become one `StoreDamagedError` naming the
table; anything else is left alone (a bug must still be seen)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.model.errors import StoreDamagedError
from memory_core.store.files.damage import remember_store, store_damage
from tests.memory_core.integrity.damaged import build_base, damaged_copy


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("damage") / "base"
    build_base(path)
    return path


@pytest.fixture(autouse=True)
def no_stores_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stores other tests opened are not this test's."""
    import memory_core.store.files.damage as damage

    monkeypatch.setattr(damage, "_OPENED", {})


def test_an_error_naming_a_table_file_names_that_table() -> None:
    exc = RuntimeError("lance error: Not found: tmp/s/edges.lance/data/0101.lance, "
                       "/root/.cargo/registry/src/lance-io-13.0.0/src/local.rs:273:40")
    damage = store_damage(exc, "/tmp/s")
    assert isinstance(damage, StoreDamagedError) and damage.table == "edges"
    assert str(damage) == ("the store's edges table is damaged (data/0101.lance: missing); run "
                           "`memlens check --store /tmp/s` (`--repair` fixes it)")
    assert ".cargo" not in str(damage)


@pytest.mark.parametrize("exc", [ValueError("unknown status 'x'"), RuntimeError("boom"),
                                 OSError(2, "No such file or directory")])
def test_other_errors_are_left_alone(exc: BaseException) -> None:
    assert store_damage(exc) is None


def test_an_error_without_a_path_is_placed_by_scanning_the_store(base: Path,
                                                                 tmp_path: Path) -> None:
    store = damaged_copy(base, tmp_path / "store", "audit manifest truncated")
    remember_store(str(store))
    damage = store_damage(RuntimeError("lance error: LanceError(IO): file size is too small, "
                                       "/root/.cargo/lance-io/src/utils.rs:172:20"))
    assert damage is not None and damage.table == "audit"
    assert damage.file.startswith("_versions/") and damage.file.endswith(".manifest")
    assert "manifest of version 5 unreadable: file size is too small" in str(damage)


def test_a_query_mistake_worded_like_lance_on_a_sound_store_is_left_alone(
        base: Path) -> None:
    remember_store(str(base))
    exc = ValueError("lance error: Invalid user input: cannot parse the predicate, "
                     "/root/.cargo/lance-datafusion/src/planner.rs:1:1")
    assert store_damage(exc) is None
