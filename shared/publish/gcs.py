"""Publishing a build to ``gs://bucket/prefix`` with google-cloud-storage, in a safe order.

Also the one place that speaks to Cloud Storage: locations, clients, content types
and error translation, shared with the private curator report (``shared.publish.report``).

A bucket has no atomic swap, so the order is the guarantee: pages and static files
first, then the listings and indexes that link to them, ``index.html`` next, the
build marker after that, and deletions last. A reader may see a new page before the
index lists it, never a link to a page that is not there yet.
"""

from __future__ import annotations

import contextlib
import mimetypes
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from itertools import groupby
from typing import Any

from shared.dialects.assets import ASSET_DIR
from shared.errors import BibliotecaError, InvalidInput, NotConfigured, Unavailable
from shared.publish.local import marker_bytes, read_marker
from shared.records import Output, Publication
from shared.site.paths import MARKER, safe_relative
from shared.text.safe_assets import delivery

WORKERS = 8  # uploads in flight: the API is latency-bound, not CPU-bound
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}
# Pages change in place under the same name: caches must revalidate. Static files
# are small and rarely change; a short cache is a fair trade.
_CACHE_PAGES = "no-cache"
_CACHE_STATIC = "public, max-age=300"
# The curator report is private and rewritten by every build: never kept by a cache.
_CACHE_PRIVATE = "private, no-store"


def is_gcs(location: str) -> bool:
    return location.startswith("gs://")


def parse_location(location: str, variable: str = "BIBLIOTECA_SITE_DIR") -> tuple[str, str]:
    """``gs://bucket/some/prefix`` -> ("bucket", "some/prefix/") (prefix may be "").

    ``variable`` names the setting the location came from, for the error message.
    """
    rest = location.removeprefix("gs://")
    bucket, _, prefix = rest.partition("/")
    prefix = prefix.strip("/")
    if not bucket:
        raise NotConfigured(f"{variable} {location!r} names no bucket")
    if prefix:
        try:
            prefix = safe_relative(prefix)
        except ValueError as exc:
            raise NotConfigured(f"{variable} {location!r} has an unsafe prefix") from exc
    return bucket, f"{prefix}/" if prefix else ""


def public_url(location: str) -> str:
    """Where a public bucket serves the prefix (used for absolute sitemap URLs)."""
    bucket, prefix = parse_location(location)
    return f"https://storage.googleapis.com/{bucket}/{prefix}"


def content_type(path: str) -> str:
    suffix = path[path.rfind(".") :] if "." in path else ""
    return _TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"


@contextmanager
def _guard(action: str) -> Iterator[None]:
    """Translate the storage client's exceptions into our error tree."""
    from google.api_core import exceptions as gexc
    from google.auth import exceptions as auth_exc

    try:
        yield
    except BibliotecaError:
        raise
    except (gexc.Forbidden, gexc.Unauthorized, auth_exc.DefaultCredentialsError) as exc:
        raise NotConfigured(
            f"Cloud Storage refused access while {action}: give the function's service "
            "account the Storage Object Admin role on the bucket"
        ) from exc
    except gexc.NotFound as exc:
        raise NotConfigured(f"Cloud Storage: the bucket does not exist ({action})") from exc
    except gexc.BadRequest as exc:
        raise InvalidInput(f"Cloud Storage rejected a request while {action}: {exc}") from exc
    except (gexc.GoogleAPIError, auth_exc.GoogleAuthError, OSError) as exc:
        raise Unavailable(f"Cloud Storage did not answer while {action}: {exc}") from exc
    except Exception as exc:  # requests' transport errors, which api_core does not wrap
        if type(exc).__module__.startswith(("requests", "urllib3")):
            raise Unavailable(f"Cloud Storage did not answer while {action}: {exc}") from exc
        raise


def open_bucket(name: str, client_factory: Callable[[], Any] | None = None) -> Any:
    """A bucket handle; the default client honours STORAGE_EMULATOR_HOST."""
    if client_factory is not None:
        client = client_factory()
    else:
        from google.cloud import storage  # type: ignore[attr-defined]

        with _guard("creating the client"):
            client = storage.Client()
    return client.bucket(name)


def upload(bucket: Any, name: str, data: bytes, cache_control: str, *, asset: bool = False) -> None:
    """One object, typed by its name's suffix; an ``asset`` of a document type (HTML,
    XML) as a plain-text download, so it never renders on the site's origin."""
    blob = bucket.blob(name)
    blob.cache_control = cache_control
    kind = content_type(name)
    if asset and (served := delivery(name)).attachment:
        blob.content_disposition = "attachment"
        kind = served.content_type or kind
    with _guard(f"uploading {name}"):
        blob.upload_from_string(data, content_type=kind)


def write_private(
    location: str,
    files: Mapping[str, bytes],
    variable: str,
    client_factory: Callable[[], Any] | None = None,
) -> None:
    """Upload ``files`` (relative name -> bytes) under ``location``, never cached."""
    bucket_name, prefix = parse_location(location, variable)
    bucket = open_bucket(bucket_name, client_factory)
    for relative, data in files.items():
        upload(bucket, prefix + safe_relative(relative), data, _CACHE_PRIVATE)


class GcsPublisher:
    """A site under ``gs://bucket/prefix`` (see the module docstring)."""

    def __init__(self, location: str, client_factory: Callable[[], Any] | None = None) -> None:
        self.location = location
        self._factory = client_factory
        self._bucket: Any = None
        self._lock = threading.Lock()

    # The location is parsed when first used, not when built: a malformed one is then a
    # failure of the rebuild it belongs to (its report), not of the wiring.
    @property
    def bucket_name(self) -> str:
        return parse_location(self.location)[0]

    @property
    def prefix(self) -> str:
        return parse_location(self.location)[1]

    @property
    def public_url(self) -> str:
        return public_url(self.location)

    def bucket(self) -> Any:
        """The bucket handle; the client is built on first use (honours STORAGE_EMULATOR_HOST)."""
        with self._lock:
            if self._bucket is None:
                self._bucket = open_bucket(self.bucket_name, self._factory)
            return self._bucket

    def name(self, relative: str) -> str:
        return self.prefix + safe_relative(relative)

    def current_build(self) -> str | None:
        from google.api_core import exceptions as gexc

        with _guard("reading the build marker"):
            try:
                data = self.bucket().blob(self.name(MARKER)).download_as_bytes()
            except gexc.NotFound:
                return None
        return read_marker(data)

    def publish(self, publication: Publication) -> None:
        ordered = sorted(publication.writes, key=lambda o: o.stage)
        for _stage, outputs in groupby(ordered, key=lambda o: o.stage):
            self._upload_all(list(outputs))
        built = marker_bytes(publication.build_id, "")
        self._upload_all([Output(MARKER, built)])
        if publication.full:
            wanted = {self.name(o.path) for o in publication.writes}
            wanted |= {self.name(p) for p in publication.keep} | {self.name(MARKER)}
            stale = [n for n in self._existing() if n not in wanted]
        else:
            stale = [self.name(p) for p in publication.delete]
        self._delete_all(stale)

    def cleanup(self) -> None:
        """Nothing to do: deletions are part of ``publish``, after everything else."""

    # -- helpers ----------------------------------------------------------------------

    def _upload(self, output: Output) -> None:
        static = output.path.startswith("static/")
        cache = _CACHE_STATIC if static else _CACHE_PAGES
        asset = output.path.startswith(f"{ASSET_DIR}/")
        upload(self.bucket(), self.name(output.path), output.data, cache, asset=asset)

    def _upload_all(self, outputs: list[Output]) -> None:
        self._each(self._upload, outputs)

    def _delete(self, name: str) -> None:
        from google.api_core import exceptions as gexc

        # Already gone is fine: a rerun after a crash converges.
        with _guard(f"deleting {name}"), contextlib.suppress(gexc.NotFound):
            self.bucket().blob(name).delete()

    def _delete_all(self, names: list[str]) -> None:
        self._each(self._delete, names)

    def _existing(self) -> list[str]:
        with _guard("listing the published site"):
            client = self.bucket().client
            return [b.name for b in client.list_blobs(self.bucket_name, prefix=self.prefix)]

    @staticmethod
    def _each(action: Callable[[Any], None], items: Iterable[Any]) -> None:
        batch = list(items)
        if not batch:
            return
        if len(batch) == 1:
            action(batch[0])
            return
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for future in [pool.submit(action, item) for item in batch]:
                future.result()
