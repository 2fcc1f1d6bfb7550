"""The Ray engine is optional: nothing loads Ray unless asked, and a missing Ray is a clear
error that says how to install it or how to run in-process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_core.cli import cli
from memory_core.distributed.session import import_ray
from memory_core.model.errors import EngineUnavailableError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow  # a fresh interpreter loads lancedb
def test_in_process_jobs_never_import_ray(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from tests.conftest import FakeEmbedder\n"
        "from memory_core.store import MemoryStore\n"
        "from memory_core.model.records import Memory\n"
        "from memory_core.exchange.export import export_store\n"
        "from memory_core.reembed import fill_pending, switch_model\n"
        f"s = MemoryStore.open({str(tmp_path / 's')!r}, embedder=FakeEmbedder())\n"
        "s.add([Memory.new('one memory', 'observation')])\n"
        f"export_store(s, {str(tmp_path / 'e.ndjson')!r})\n"
        "fill_pending(s); switch_model(s, FakeEmbedder())\n"
        "print('ray' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "False"


def test_a_missing_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if absent
    with pytest.raises(EngineUnavailableError, match=r'pip install "memlens\[ray\]"'):
        import_ray()


def test_the_cli_refuses_ray_jobs_without_ray_in_one_line(
        monkeypatch: pytest.MonkeyPatch, store: MemoryStore, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store.add([Memory.new("a memory", "observation")])
    monkeypatch.setitem(sys.modules, "ray", None)
    target = tmp_path / "out.ndjson"
    for args in (["export", str(target)], ["reembed"]):
        code, out, err = run_cli(["--store", store.uri, *args, "--engine", "ray"], capsys)
        lines = err.strip().splitlines()
        assert code == 1 and out == "", err
        assert len(lines) == 1 and "--engine local" in lines[0] and "memlens[ray]" in lines[0]
    assert not target.exists()


def test_an_unknown_engine_lists_the_choices(store: MemoryStore, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--store", store.uri, "export", str(tmp_path / "x"),
                                      "--engine", "spark"])
    assert result.exit_code == 2 and "'local', 'ray'" in result.output
