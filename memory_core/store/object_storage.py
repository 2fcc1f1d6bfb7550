"""Stores on object storage (`s3://bucket/prefix`): LanceDB's storage options from the
environment, and its failures turned into errors that say what to do.

`storage_options(uri, settings)` reads the variables `Settings.from_env` captured at call time
(`Settings.storage_env`) and returns the options `lancedb.connect` gets:

=========================================  ================================================
environment                                storage option
=========================================  ================================================
`AWS_ENDPOINT_URL` (or `AWS_ENDPOINT`)     `aws_endpoint`: an S3-compatible service
`AWS_REGION` (or `AWS_DEFAULT_REGION`)     `aws_region`
`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`
                                           the credentials (else LanceDB's own chain:
                                           instance profile, web identity, ...)
`AWS_ALLOW_HTTP`                           `allow_http`; on by itself for a plain-http
                                           endpoint on this machine (127.0.0.1, localhost)
`MEMLENS_STORAGE_OPTIONS`                  further options, `key=value,key=value` (e.g.
                                           `client_max_retries=2,timeout=60s`)
=========================================  ================================================

Other schemes (gs://, az://) get only `MEMLENS_STORAGE_OPTIONS`; LanceDB reads their own
variables. A local folder gets none.

A remote store is also watched (`stall_watch`): LanceDB's waits on it end when its endpoint
(`endpoint_of`) has not answered for `MEMLENS_STORAGE_TIMEOUT` seconds (30 by default), and
Ctrl-C stops them.

`object_storage_error(exc)` recognises the failures a user can fix (no such bucket, refused
credentials, an endpoint that does not answer) in LanceDB's error text and returns the
`ObjectStorageError` to raise instead; anything else returns None and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from memory_core.model.config import Settings
from memory_core.model.errors import (
    BucketNotFoundError,
    ObjectStorageAuthError,
    ObjectStorageConfigError,
    ObjectStorageError,
    ObjectStorageUnreachableError,
)
from memory_core.model.untrusted import shown
from memory_core.store import stall_watch

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: (option, the variables that set it, first found wins)
_S3_VARIABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("aws_endpoint", ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT")),
    ("aws_region", ("AWS_REGION", "AWS_DEFAULT_REGION")),
    ("aws_access_key_id", ("AWS_ACCESS_KEY_ID",)),
    ("aws_secret_access_key", ("AWS_SECRET_ACCESS_KEY",)),
    ("aws_session_token", ("AWS_SESSION_TOKEN",)),
)
#: Storage options that name the endpoint, as object_store spells them.
_ENDPOINT_OPTIONS = ("aws_endpoint", "aws_endpoint_url", "endpoint", "endpoint_url",
                     "google_service_endpoint", "azure_storage_endpoint")


def storage_options(uri: str, settings: Settings | None = None) -> dict[str, str] | None:
    """The LanceDB storage options for the store at `uri` (None for a local folder).

    >>> env = {"AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_REGION": "eu-west-1"}
    >>> storage_options("s3://bucket/memories", Settings.from_env(env))
    {'aws_endpoint': 'http://127.0.0.1:9000', 'aws_region': 'eu-west-1', 'allow_http': 'true'}
    """
    if not is_remote(uri):
        return None
    env = dict((settings or Settings.from_env()).storage_env)
    options: dict[str, str] = {}
    if uri.startswith(("s3://", "s3a://")):
        for option, names in _S3_VARIABLES:
            value = next((env[n] for n in names if env.get(n, "").strip()), None)
            if value is not None:
                options[option] = value.strip()
        allow = _allow_http(options.get("aws_endpoint"), env.get("AWS_ALLOW_HTTP"))
        if allow is not None:
            options["allow_http"] = allow
    options.update(_extra_options(env.get("MEMLENS_STORAGE_OPTIONS", "")))
    stall_watch.watch(uri, endpoint_of(uri, options), stall_watch.timeout_of(env))
    return options or None


def endpoint_of(uri: str, options: Mapping[str, str]) -> str | None:
    """The HTTP endpoint that serves the store at `uri` (None where it cannot be told).

    >>> endpoint_of("s3://bucket/m", {"aws_region": "eu-west-1"})
    'https://s3.eu-west-1.amazonaws.com'
    """
    given = next((options[k] for k in _ENDPOINT_OPTIONS if options.get(k)), None)
    if given:
        return given
    scheme = urlsplit(uri).scheme
    if scheme in ("s3", "s3a"):
        region = options.get("aws_region") or options.get("region")
        return f"https://s3.{region}.amazonaws.com" if region else "https://s3.amazonaws.com"
    if scheme in ("gs", "gcs"):
        return "https://storage.googleapis.com"
    account = options.get("azure_storage_account_name") or options.get("account_name")
    if scheme in ("az", "abfs", "abfss") and account:
        return f"https://{account}.blob.core.windows.net"
    return None


def _allow_http(endpoint: str | None, flag: str | None) -> str | None:
    """`allow_http` from AWS_ALLOW_HTTP, else on for a plain-http endpoint on this machine."""
    if flag is not None:
        # LanceDB parses the variable itself too, and fails on anything but a boolean
        if flag.strip().lower() not in _TRUE | _FALSE:
            raise ObjectStorageConfigError(
                f"AWS_ALLOW_HTTP is {shown(flag)}; set it to true or false, or unset it")
        return "true" if flag.strip().lower() in _TRUE else "false"
    if endpoint is None or urlsplit(endpoint).scheme != "http":
        return None
    host = urlsplit(endpoint).hostname or ""
    if host in LOOPBACK:
        return "true"
    raise ObjectStorageConfigError(
        f"the object-storage endpoint {shown(endpoint)} is plain http on another machine, "
        f"so credentials would cross the network unencrypted; use https, or set "
        f"AWS_ALLOW_HTTP=true if you mean it")


def _extra_options(text: str) -> dict[str, str]:
    out = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ObjectStorageConfigError(
                f"MEMLENS_STORAGE_OPTIONS holds {shown(item)}, not key=value; write it as "
                f"key=value pairs separated by commas, e.g. client_max_retries=2,timeout=60s")
        out[key.strip().lower()] = value.strip()
    return out


def is_remote(uri: str) -> bool:
    """True for object-storage and other scheme URIs (s3://, gs://, az://, db://, ...)."""
    return "://" in uri and not uri.startswith("file://")


# -- failures ------------------------------------------------------------------------------

#: Text only the object-store layer of LanceDB writes (its error kinds as LanceDB and as
#: Lance print them, S3's XML errors).
_OBJECT_STORE_MARKERS = ('store: "', "RetryError", "<Error><Code>", "Config error",
                         "Generic S3 error", "Generic GCS error", "Generic MicrosoftAzure error")
_BUCKET = re.compile(r"<BucketName>([^<]+)</BucketName>")
#: The request's URL, as LanceDB's errors give it and as Lance's do.
_REQUEST_URL = re.compile(r"(?:uri: Some\(|Error performing [A-Z]+ )(https?://[^/?)\s]+)")
_REGION_CODES = ("AuthorizationHeaderMalformed", "PermanentRedirect", "IncorrectEndpoint")
_AUTH_CODES = ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken",
               "InvalidToken", "InvalidClientTokenId", "status: 403", "Forbidden")
_UNREACHABLE = (("ConnectionRefused", "connection refused"), ("dns error", "unknown host"),
                ("timed out", "timed out"), ("TimedOut", "timed out"),
                ("kind: Connect", "cannot connect"), ("error sending request", "no answer"))


def object_storage_error(exc: BaseException, uri: str | None = None
                         ) -> ObjectStorageError | None:
    """The `ObjectStorageError` a LanceDB or object-store failure means, or None.

    `uri` is the store's URI, for the message (by default the one store on object storage
    in use, if there is one); the endpoint and bucket are read from the error itself where it
    names them.
    """
    text = "\n".join(_messages(exc))
    if not any(marker in text for marker in _OBJECT_STORE_MARKERS):
        return None  # not the object store's: a local file, a bug
    uri = uri or stall_watch.only_uri()
    where = f" for {shown(uri)}" if uri else ""
    endpoint = _endpoint(text)
    at = f" at {shown(endpoint)}" if endpoint else ""
    if "NoSuchBucket" in text or "bucket does not exist" in text.lower():
        found = _BUCKET.search(text)
        bucket = found.group(1) if found else (_bucket_of(uri) if uri else None)
        name = shown(bucket) if bucket else "the store's bucket"
        return BucketNotFoundError(
            f"the bucket {name} does not exist{at}{where}; create it (e.g. `aws s3 mb "
            f"s3://{bucket or 'BUCKET'}`) or point MEMLENS_STORE / --store at a bucket that "
            f"exists")
    if any(code in text for code in _REGION_CODES):
        return ObjectStorageConfigError(
            f"the bucket{where} is in another region than the one memlens asked{at}; set "
            f"AWS_REGION to the bucket's region")
    code = next((c for c in _AUTH_CODES if c in text), None)
    if code is not None:
        return ObjectStorageAuthError(
            f"the object store{at} refused the credentials{where} ({code.removeprefix('status: ')}"
            f"); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), "
            f"or the bucket's access policy")
    why = next((why for marker, why in _UNREACHABLE if marker in text), None)
    if why is not None:
        return ObjectStorageUnreachableError(
            f"the object store{at} does not answer ({why}){where}; check AWS_ENDPOINT_URL "
            f"(unset it for AWS itself) and that the service is running and reachable")
    if "Config error" in text or "failed to parse" in text:
        return ObjectStorageConfigError(
            f"an object-storage setting is not valid{where}: {_first_line(text)}; check the "
            f"AWS_* variables and MEMLENS_STORAGE_OPTIONS")
    return None


def _messages(exc: BaseException) -> Iterable[str]:
    """The messages of `exc` and of the exceptions it was raised from (each once)."""
    current: BaseException | None = exc
    met: set[int] = set()
    while current is not None and id(current) not in met:
        met.add(id(current))
        yield str(current)
        current = current.__cause__ or current.__context__


def _endpoint(text: str) -> str | None:
    found = _REQUEST_URL.search(text)
    return found.group(1) if found else None


def _bucket_of(uri: str) -> str | None:
    return urlsplit(uri).netloc or None


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return shown(line[:160])


def drop_scratch_store(uri: str, settings: Settings | None = None) -> None:
    """Remove the store at `uri` (every table; the folder of a local one): for the scratch
    stores benchmarks make under a location they were given, never for a user's store."""
    import shutil
    from pathlib import Path

    import lancedb

    if not is_remote(uri):
        shutil.rmtree(Path(uri.removeprefix("file://")).expanduser(), ignore_errors=True)
        return
    lancedb.connect(uri, storage_options=storage_options(uri, settings)).drop_all_tables()
