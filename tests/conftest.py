"""Shared fixtures: a deterministic fake embedder and real LanceDB stores in tmp_path.

Also the markers that keep `pytest -m "not slow"` a fast loop: a test using a fixture seeded
with the real model (`demo_store`) and every notebook is marked `model`; every `model` test,
every `e2e` test (tests/e2e marks its own: a browser drives the app), every `hardening`
test (every test in tests/hardening, and the hostile-input, crash and concurrency tests that
live beside their modules and mark themselves) and every test in tests/app (Streamlit and the
app's modules load first) is marked `slow`; a test
that embeds with the real model without the `model` marker fails.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from memory_core.embedding import Embedder, FastEmbedEmbedder
from memory_core.store import MemoryStore
from tests.racers import RacerPair, racer_env

if TYPE_CHECKING:
    from tests.memory_core.store.object_storage_server import S3Server

FAKE_DIM = 16

#: Fixtures whose store is embedded by the real model: a test using one is a `model` test.
REAL_MODEL_FIXTURES = frozenset({"demo_store"})
#: Folders whose every test is `slow`: AppTest and `memlens serve` start Streamlit first.
SLOW_FOLDERS = (Path(__file__).parent / "app",)
#: Folders whose every test is a `hardening` test: hostile input, crashes, concurrent writers.
HARDENING_FOLDERS = (Path(__file__).parent / "hardening",)
#: Markers that imply `slow`: the real model, a browser driving the app, the hardening suite.
SLOW_MARKERS = ("model", "e2e", "hardening")
#: Modules whose tests take longest (real processes killed or racing, a Streamlit script per
#: page), longest first: collected first, so that pytest-xdist hands them out before the
#: short tests and the workers finish together instead of one running a long test alone at
#: the end (xdist hands out groups first anyway, the largest first: the browser tests and
#: the racers' rounds).
LONGEST_FIRST = tuple(Path(__file__).parent / name for name in (
    "memory_core/exchange/test_import_killed.py",
    "memory_core/curation/test_concurrent_curation.py",
    "hardening/test_tenants_pages.py",
))


def _rank(item: pytest.Item) -> int:
    """Where `item`'s module is in `LONGEST_FIRST` (after all of it when it is not there)."""
    return next((n for n, path in enumerate(LONGEST_FIRST) if item.path == path),
                len(LONGEST_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark real-model tests and notebooks (nbmake items) `model`, tests/hardening
    `hardening`; those, `e2e` tests and tests/app `slow`. Then put the tests of
    `LONGEST_FIRST` first (the others keep their order)."""
    items.sort(key=_rank)
    for item in items:
        if any(item.path.is_relative_to(folder) for folder in HARDENING_FOLDERS):
            item.add_marker(pytest.mark.hardening)
        if item.path.suffix == ".ipynb" or REAL_MODEL_FIXTURES & set(
                getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.model)
        if any(item.get_closest_marker(m) is not None for m in SLOW_MARKERS) or any(
                item.path.is_relative_to(folder) for folder in SLOW_FOLDERS):
            item.add_marker(pytest.mark.slow)


class FakeEmbedder(Embedder):
    """Bag-of-words vectors: each lower-cased word adds a fixed pseudo-random unit vector.

    Tests can predict it: texts sharing words are close, texts sharing none are near
    orthogonal, and the same text always gives the same vector.
    """

    model_id = "test/fake-bow"
    dimension = FAKE_DIM

    def __init__(self) -> None:
        self.calls = 0

    @staticmethod
    def word_vector(word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(FAKE_DIM)
        return vector / np.linalg.norm(vector)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), FAKE_DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i] += self.word_vector(word)
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
        return out


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def store_path(tmp_path: Path) -> str:
    return str(tmp_path / "store")


@pytest.fixture
def store(store_path: str, fake_embedder: FakeEmbedder) -> MemoryStore:
    """An empty store on real LanceDB, tenant 'default', with the fake embedder."""
    return MemoryStore.open(store_path, embedder=fake_embedder, tenant="default")


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(autouse=True)
def real_model_only_in_model_tests(request: pytest.FixtureRequest,
                                   monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail a test that embeds with the real model but lacks the `model` marker.

    Such a test is slow (the model loads, a store gets embedded) and would slip into the fast
    loop, `pytest -m "not slow"`. Only embeddings that succeed count: a model that cannot
    load (writes go pending) costs nothing.
    """
    runs: list[int] = []
    if request.node.get_closest_marker("model") is None:
        embed_batch = FastEmbedEmbedder.embed_batch

        def counted(self: FastEmbedEmbedder, texts: Sequence[str]) -> np.ndarray:
            vectors = embed_batch(self, texts)
            runs.append(len(texts))
            return vectors

        monkeypatch.setattr(FastEmbedEmbedder, "embed_batch", counted)
    yield
    if runs:
        pytest.fail(f"{request.node.nodeid} embedded {sum(runs)} texts with the real model "
                    "without the `model` marker: add `@pytest.mark.model` (which also marks "
                    "it `slow`) or use the `fake_embedder` fixture", pytrace=False)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> None:
    """No MEMLENS_* setting of the developer's shell leaks into a test."""
    import os

    for name in list(os.environ):
        if name.startswith("MEMLENS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(model_cache))


@pytest.fixture(scope="session", autouse=True)
def numba_cache_kept() -> Iterator[None]:
    """The map engine's compiled code (umap-learn's numba) kept between runs, where a
    default install keeps it (~/.cache/memlens/numba; NUMBA_CACHE_DIR when set), instead of
    in the per-run MEMLENS_MODEL_CACHE: a run's first map then loads it, not compiles it."""
    import os

    with pytest.MonkeyPatch.context() as patch:
        if not os.environ.get("NUMBA_CACHE_DIR"):
            patch.setenv("NUMBA_CACHE_DIR",
                         str(Path("~/.cache/memlens/numba").expanduser()))
        yield


@pytest.fixture(autouse=True)
def stores_unwatched_after() -> Iterator[None]:
    """A test's stores on object storage stop being watched when it ends, as a command's do
    (`stall_watch.forget`): a later test's long call is not timed against an endpoint that
    test made up or has stopped since."""
    yield
    from memory_core.store import stall_watch

    stall_watch.forget()


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> MemoryStore:
    """The demo corpus seeded once per run with the real offline model (read it, don't write)."""
    from memory_core.model.config import Settings
    from memory_core.seeding import seed_from_export

    uri = str(tmp_path_factory.mktemp("demo-store") / "store")
    settings = Settings.from_env(env={}, store_uri=uri,
                                 model_cache=tmp_path_factory.mktemp("demo-model"))
    store = MemoryStore.open(settings=settings)
    seed_from_export(store)
    return store


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `memlens ARGV` in-process: (exit code, stdout, stderr)."""
    from memory_core.cli import main

    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def pending_store(path: Path, content: str) -> Path:
    """A store at `path` holding one memory, written by `memlens add CONTENT` with embedding
    off (MEMLENS_EMBED_MODEL=none: pending, no vector), in this process: the base store the
    tests racing real `memlens` processes copy (a process of its own would pay Python's and
    LanceDB's start-up, some 7 s of CPU, for a store any process writes the same way)."""
    from click.testing import CliRunner

    from memory_core.cli import cli

    env = {"MEMLENS_EMBED_MODEL": "none", "MEMLENS_MODEL_CACHE": str(path.parent / "cache")}
    result = CliRunner().invoke(cli, ["--store", str(path), "add", content], env=env)
    if result.exit_code != 0:
        raise RuntimeError(f"memlens add failed: {result.output}") from result.exception
    return path


@pytest.fixture(scope="session")
def racers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RacerPair]:
    """Two `memlens` processes that race each other round after round (tests/racers.py),
    for the session: the tests using them share the pytest-xdist group "racers", so one
    pair serves them all."""
    folder = tmp_path_factory.mktemp("racers")
    pair = RacerPair(folder, racer_env(folder / "cache"))
    try:
        yield pair
    finally:
        pair.close()


# -- object storage ------------------------------------------------------------------------

S3_BUCKET = "memlens-test"


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """A moto S3 server on a free 127.0.0.1 port for the whole run (of this worker)."""
    pytest.importorskip("moto.server", reason="moto[server] (the dev extra) serves S3 here")
    from tests.memory_core.store.object_storage_server import S3Server

    server = S3Server().start()
    server.bucket(S3_BUCKET)
    yield server
    server.stop()


@pytest.fixture
def s3_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    """The environment pointing memlens at `s3_server` (and no AWS_* of the shell)."""
    import os

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    return s3_server


@pytest.fixture
def s3_uri(s3_env: S3Server) -> str:
    """A fresh, empty store URI in the test bucket (`s3://memlens-test/<random>`)."""
    import uuid

    return f"s3://{S3_BUCKET}/{uuid.uuid4().hex[:12]}"
