"""Stores on object storage: storage options from the environment, a store on a real
S3-compatible server (moto, on loopback), and the errors a user can fix."""

from __future__ import annotations

import pytest

from memory_core.model.config import Settings
from memory_core.model.errors import (
    BucketNotFoundError,
    ObjectStorageAuthError,
    ObjectStorageConfigError,
    ObjectStorageUnreachableError,
)
from memory_core.model.records import Memory
from memory_core.store import MemoryStore, store_exists
from memory_core.store.object_storage import object_storage_error, storage_options
from tests.conftest import S3_BUCKET, FakeEmbedder
from tests.memory_core.store.object_storage_server import S3Server


def options(env: dict[str, str], uri: str = "s3://bucket/prefix") -> dict[str, str] | None:
    return storage_options(uri, Settings.from_env(env))


# -- storage options -----------------------------------------------------------------------

def test_a_local_folder_gets_no_storage_options() -> None:
    assert options({"AWS_ENDPOINT_URL": "http://127.0.0.1:9000"}, "./data/store") is None
    assert options({"AWS_REGION": "eu-west-1"}, "file:///tmp/store") is None


def test_s3_options_come_from_the_aws_variables() -> None:
    env = {"AWS_ENDPOINT_URL": "https://s3.example.org", "AWS_DEFAULT_REGION": "eu-west-3",
           "AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s3cret",
           "AWS_SESSION_TOKEN": "tok", "AWS_PROFILE": "ignored"}
    assert options(env) == {"aws_endpoint": "https://s3.example.org", "aws_region": "eu-west-3",
                            "aws_access_key_id": "AKIA1", "aws_secret_access_key": "s3cret",
                            "aws_session_token": "tok"}
    # AWS_REGION wins over AWS_DEFAULT_REGION; nothing set means LanceDB's own defaults
    assert options({"AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "x"}) == {
        "aws_region": "us-west-2"}
    assert options({}) is None


def test_the_variables_are_read_when_settings_are_made_not_at_import(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "ap-south-1")
    assert storage_options("s3://b/p") == {"aws_region": "ap-south-1"}
    monkeypatch.setenv("AWS_REGION", "sa-east-1")
    assert storage_options("s3://b/p") == {"aws_region": "sa-east-1"}


def test_secrets_stay_out_of_the_settings_repr() -> None:
    settings = Settings.from_env({"AWS_SECRET_ACCESS_KEY": "s3cret"})
    assert "s3cret" not in repr(settings)
    assert dict(settings.storage_env) == {"AWS_SECRET_ACCESS_KEY": "s3cret"}


def test_plain_http_is_allowed_on_loopback_only_unless_asked() -> None:
    for host in ("127.0.0.1", "localhost", "[::1]"):
        assert options({"AWS_ENDPOINT_URL": f"http://{host}:9000"})["allow_http"] == "true"
    assert "allow_http" not in options({"AWS_ENDPOINT_URL": "https://127.0.0.1:9000"})
    with pytest.raises(ObjectStorageConfigError, match="plain http on another machine"):
        options({"AWS_ENDPOINT_URL": "http://10.0.0.5:9000"})
    assert options({"AWS_ENDPOINT_URL": "http://10.0.0.5:9000",
                    "AWS_ALLOW_HTTP": "TRUE"})["allow_http"] == "true"
    assert options({"AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
                    "AWS_ALLOW_HTTP": "0"})["allow_http"] == "false"
    for bad in ("", "maybe"):
        with pytest.raises(ObjectStorageConfigError, match="AWS_ALLOW_HTTP is"):
            options({"AWS_ALLOW_HTTP": bad})


def test_memlens_storage_options_pass_further_options_through() -> None:
    env = {"AWS_REGION": "eu-west-1",
           "MEMLENS_STORAGE_OPTIONS": " client_max_retries=2, Timeout=60s ,"}
    assert options(env) == {"aws_region": "eu-west-1", "client_max_retries": "2",
                            "timeout": "60s"}
    # other schemes get only these: LanceDB reads their own variables
    assert options(env, "gs://bucket/p") == {"client_max_retries": "2", "timeout": "60s"}
    with pytest.raises(ObjectStorageConfigError, match="holds 'retries', not key=value"):
        options({"MEMLENS_STORAGE_OPTIONS": "retries"})


# -- failures recognised in LanceDB's text -------------------------------------------------

LANCE = ('Invalid input, Failed to connect to namespace: IO { source: Generic { store: "S3", '
         'source: ListRequest { source: RetryError(RetryErrorImpl { method: GET, uri: Some('
         'http://10.1.2.3:9000/mem?list-type=2&prefix=p%2F), retries: 3, inner: ')


def test_lance_failures_become_errors_that_say_what_to_do() -> None:
    missing = object_storage_error(ValueError(
        LANCE + 'Status { status: 404, body: Some("<Error><Code>NoSuchBucket</Code>'
        '<BucketName>mem</BucketName></Error>") } }'), "s3://mem/p")
    assert isinstance(missing, BucketNotFoundError)
    assert str(missing) == (
        "the bucket 'mem' does not exist at 'http://10.1.2.3:9000' for 's3://mem/p'; create "
        "it (e.g. `aws s3 mb s3://mem`) or point MEMLENS_STORE / --store at a bucket that "
        "exists")
    refused = object_storage_error(RuntimeError(
        LANCE + 'Status { status: 403, body: Some("<Error><Code>SignatureDoesNotMatch</Code>'))
    assert isinstance(refused, ObjectStorageAuthError)
    assert "(SignatureDoesNotMatch); check AWS_ACCESS_KEY_ID" in str(refused)
    down = object_storage_error(OSError(
        LANCE + 'Http(HttpError { kind: Connect, source: ConnectError("tcp connect error", '
        'Os { code: 111, kind: ConnectionRefused }) }'))
    assert isinstance(down, ObjectStorageUnreachableError)
    assert "at 'http://10.1.2.3:9000' does not answer (connection refused)" in str(down)


def test_an_outage_as_lance_itself_words_it_is_an_unreachable_endpoint() -> None:
    """Lance (not LanceDB) prints object_store's errors as "Generic S3 error: ...": a server
    that died during a write gave this, and a traceback."""
    died = object_storage_error(RuntimeError(
        "lance error: LanceError(IO): Generic S3 error: Error performing list request: Error "
        "performing GET http://127.0.0.1:42051/mem?list-type=2&prefix=p%2Fmemories.lance%2F"
        "_versions%2F in 438.7ms, after 3 retries, max_retries: 3, retry_timeout: 180s  - "
        "HTTP error: error sending request, /root/.cargo/registry/src/lance-io-13.0.0/src/"
        "object_store.rs:1506:92"), "s3://mem/p")
    assert isinstance(died, ObjectStorageUnreachableError)
    assert str(died).startswith("the object store at 'http://127.0.0.1:42051' does not answer "
                                "(no answer) for 's3://mem/p'; check AWS_ENDPOINT_URL")


def test_a_watched_store_gives_its_endpoint_and_the_uri_the_errors_name() -> None:
    from memory_core.store import stall_watch

    options({"AWS_ENDPOINT_URL": "http://127.0.0.1:9000"}, "s3://mem/p")
    assert stall_watch.only_uri() == "s3://mem/p"
    down = object_storage_error(OSError(LANCE + "error sending request"))
    assert down is not None and "for 's3://mem/p'" in str(down)
    assert options({"AWS_REGION": "eu-west-1"}, "s3://mem/q") == {"aws_region": "eu-west-1"}
    assert stall_watch.only_uri() is None  # two stores: the error cannot tell which


def test_a_bucket_in_another_region_says_to_set_aws_region() -> None:
    moved = object_storage_error(OSError(
        LANCE + 'Status { status: 400, body: Some("<Error><Code>AuthorizationHeaderMalformed'
        '</Code><Message>the region \'us-east-1\' is wrong; expecting \'eu-west-1\'")'),
        "s3://mem/p")
    assert isinstance(moved, ObjectStorageConfigError)
    assert str(moved).endswith("set AWS_REGION to the bucket's region")


def test_other_failures_are_left_alone() -> None:
    assert object_storage_error(ValueError("Table 'x' was not found")) is None
    assert object_storage_error(OSError("connection refused by a local socket")) is None


# -- a store on a real S3-compatible server ------------------------------------------------

def test_a_store_on_s3_holds_its_tables_in_the_bucket_and_its_lock_locally(
        s3_uri: str, s3_env: S3Server, fake_embedder: FakeEmbedder,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = tmp_path_factory.mktemp("cache")
    settings = Settings.from_env(store_uri=s3_uri, model_cache=cache)
    assert not store_exists(s3_uri, storage_options=storage_options(s3_uri, settings))
    store = MemoryStore.open(settings=settings, embedder=fake_embedder)
    store.add([Memory.new("Object storage keeps the tables", "fact", id="m1")])
    again = MemoryStore.open(settings=settings, embedder=fake_embedder)
    assert [m.id for m in again.list()] == ["m1"]
    assert store_exists(s3_uri, storage_options=storage_options(s3_uri, settings))
    prefix = s3_uri.removeprefix(f"s3://{S3_BUCKET}/")
    tops = {key.removeprefix(prefix + "/").split("/")[0] for key in s3_env.keys(S3_BUCKET,
                                                                                prefix)}
    assert tops == {"memories.lance", "edges.lance", "audit.lance", "events.lance"}
    # the write lock (and its journal, scratch folders) live under the local cache
    assert [p.name for p in (cache / "locks").iterdir()] and not (cache / "locks").is_file()


def _open(uri: str) -> MemoryStore:
    return MemoryStore.open(settings=Settings.from_env(store_uri=uri), embedder=FakeEmbedder())


def test_a_missing_bucket_says_to_create_it(s3_env: S3Server) -> None:
    with pytest.raises(BucketNotFoundError,
                       match=r"^the bucket 'no-such-bucket' does not exist at 'http://127"):
        _open("s3://no-such-bucket/memories")


def test_wrong_credentials_say_which_variables_to_check(s3_uri: str, s3_env: S3Server) -> None:
    with s3_env.requiring_auth(), pytest.raises(
            ObjectStorageAuthError, match=r"refused the credentials for 's3://memlens-test/"
                                          r"\w+' \(InvalidAccessKeyId\); check AWS_ACCESS_KEY_ID"):
        _open(s3_uri)
    assert s3_env.keys(S3_BUCKET, s3_uri.rsplit("/", 1)[1]) == []  # nothing half-written


def test_an_endpoint_that_does_not_answer_says_so(
        s3_env: S3Server, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("MEMLENS_STORAGE_OPTIONS", "client_max_retries=0")  # fail fast
        with pytest.raises(ObjectStorageUnreachableError,
                           match=rf"at 'http://127.0.0.1:{port}' does not answer \(connection "
                                 r"refused\).*check AWS_ENDPOINT_URL"):
            _open(f"s3://{S3_BUCKET}/unreachable")


def test_two_spellings_of_one_s3_store_share_one_local_lock(tmp_path_factory: pytest.TempPathFactory
                                                            ) -> None:
    from memory_core.store.lock import control_folder

    cache = tmp_path_factory.mktemp("cache")
    folder = control_folder("s3://bucket/team", cache)
    assert folder.parent == cache / "locks"
    assert control_folder("s3://bucket/team/", cache) == folder
    assert control_folder("s3://bucket/other", cache) != folder
