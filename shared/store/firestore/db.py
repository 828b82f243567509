"""The Firestore client of the store, built on first use, and the vendor-error boundary.

Every call goes through ``Database.guard``, which maps vendor failures through one table
(``_TABLE``): transient failures become ``Unavailable`` (503), refusals ``NotConfigured``,
and so on; one the table does not know is re-raised as it is, a bug to see in the log.
Every call also carries our own deadline (``options``; ``stream_options`` for a query
that streams a whole collection), never the client's defaults of up to 60 s a call:
a dead backend costs a request seconds (docs/limits.md says why these numbers).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.api_core import retry as gretry
from google.auth import exceptions as auth_exc

from shared.errors import (
    BibliotecaError,
    Conflict,
    NotConfigured,
    PayloadTooLarge,
    Unavailable,
)

# A transient failure (UNAVAILABLE, a refused connection) is retried with backoff for at
# most RETRY_DEADLINE_S: Firestore's own blips last well under a second, and a backend
# still failing after 5 s is down; the request then answers 503 at once. One call,
# retries included, may take DEFAULT_TIMEOUT_S (a commit of 10 MiB takes ~1-2 s); a
# query that streams a whole collection (every page, every chunk text) STREAM_TIMEOUT_S.
RETRY_DEADLINE_S = 5.0
DEFAULT_TIMEOUT_S = 10.0
STREAM_TIMEOUT_S = 45.0
# The largest commit request: Firestore takes 10 MiB (its old 500-writes cap is gone);
# the emulator's gRPC server refuses messages over 4 MiB. A margin covers encoding.
MAX_REQUEST_BYTES = 10 * 1024 * 1024 - 512 * 1024
EMULATOR_MAX_REQUEST_BYTES = 4 * 1024 * 1024 - 64 * 1024

# Failures that say "not now" rather than "not this": retried, then a 503.
_TRANSIENT: tuple[type[Exception], ...] = (
    gexc.ServiceUnavailable,
    gexc.DeadlineExceeded,
    gexc.InternalServerError,
    gexc.TooManyRequests,  # ResourceExhausted (quota) is one
    gexc.Unknown,
    gexc.Cancelled,
    gexc.BadGateway,
    gexc.GatewayTimeout,
    gexc.RetryError,
    gexc.Aborted,  # a transaction that lost to others past its retries: try again
    auth_exc.TransportError,
    auth_exc.TimeoutError,
)
_NOT_ALLOWED: tuple[type[Exception], ...] = (
    gexc.Forbidden,  # PermissionDenied is one
    gexc.Unauthorized,  # Unauthenticated is one
    auth_exc.DefaultCredentialsError,  # a missing or malformed credentials file too
    auth_exc.RefreshError,
    auth_exc.UserAccessTokenError,
)


def _too_large(exc: Exception) -> bool:
    detail = str(getattr(exc, "message", None) or exc).lower()
    return isinstance(exc, gexc.ResourceExhausted | gexc.InvalidArgument) and any(
        word in detail for word in ("too large", "exceeds", "maximum size", "too big")
    )


def _needs_index(exc: Exception) -> bool:
    detail = str(getattr(exc, "message", None) or exc).lower()
    return isinstance(exc, gexc.FailedPrecondition) and "index" in detail


def _retryable(exc: Exception) -> bool:
    """Transient errors, except a request too large: sending it again cannot help."""
    return bool(gretry.if_transient_error(exc)) and not _too_large(exc)


def _detail(exc: Exception) -> str:
    return str(getattr(exc, "message", None) or exc)


# The one table from vendor failures to our tree, first match wins (httpx's
# ``_transports/default.py`` maps its transport errors the same way). What no row matches is
# a bug or a failure nobody has seen yet: ``guard`` re-raises it as it is, so the edge logs
# its traceback and answers a plain 500 with no vendor text in the body.
_TABLE: tuple[
    tuple[Callable[[Exception], bool], Callable[[Exception, str], BibliotecaError]], ...
] = (
    (
        _too_large,
        lambda e, a: PayloadTooLarge(f"too large for the Firestore store while {a}: {_detail(e)}"),
    ),
    (
        lambda e: isinstance(e, _TRANSIENT),
        lambda e, a: Unavailable(f"the Firestore store did not answer while {a}: {_detail(e)}"),
    ),
    (
        lambda e: isinstance(e, _NOT_ALLOWED),
        lambda e, a: NotConfigured(
            f"the Firestore store refused access while {a} ({_detail(e)}): check "
            "GOOGLE_CLOUD_PROJECT and that the service account has the Datastore User role"
        ),
    ),
    (
        _needs_index,
        lambda e, a: NotConfigured(
            f"the Firestore store lacks an index for {a}: deploy firestore.indexes.json "
            f"({_detail(e)})"
        ),
    ),
    (
        lambda e: isinstance(e, gexc.AlreadyExists),
        lambda e, a: Conflict(f"the document already exists while {a}"),
    ),
)


def translate(exc: Exception, action: str) -> BibliotecaError | None:
    """Our error for a vendor exception met while doing ``action`` (raise it ``from exc``);
    None when the table does not know it (the caller re-raises the vendor's own)."""
    for matches, ours in _TABLE:
        if matches(exc):
            return ours(exc, action)
    return None


class Database:
    """A lazily built ``firestore.Client`` and the retry/timeout every call uses.

    The client honours ``FIRESTORE_EMULATOR_HOST`` itself; nothing is opened until the
    first call, so importing or constructing the store costs no I/O.
    """

    def __init__(
        self,
        project: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        stream_timeout: float = STREAM_TIMEOUT_S,
    ) -> None:
        self.project = project
        self.timeout = timeout
        self.stream_timeout = max(stream_timeout, timeout)
        deadline = min(RETRY_DEADLINE_S, timeout)
        self.retry = gretry.Retry(
            predicate=_retryable,
            initial=0.1,
            maximum=min(1.0, deadline),
            multiplier=2.0,
            timeout=deadline,
        )
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def max_commit_bytes(self) -> int:
        """The largest commit this database takes (the emulator's cap is lower)."""
        if os.environ.get("FIRESTORE_EMULATOR_HOST", "").strip():
            return EMULATOR_MAX_REQUEST_BYTES
        return MAX_REQUEST_BYTES

    @property
    def options(self) -> dict[str, Any]:
        """``retry`` and ``timeout`` keyword arguments for one client call."""
        return {"retry": self.retry, "timeout": self.timeout}

    @property
    def stream_options(self) -> dict[str, Any]:
        """The same for a query streaming a whole collection (its deadline covers the stream)."""
        return {"retry": self.retry, "timeout": self.stream_timeout}

    def client(self) -> Any:
        """The ``google.cloud.firestore.Client``, created on first use (thread-safe)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    # Imported here too: the client library is heavy, a cold start that
                    # never touches the store should not pay for it.
                    from google.cloud import firestore

                    self._client = firestore.Client(project=self.project)
        return self._client

    def collection(self, name: str) -> Any:
        return self.client().collection(name)

    @contextmanager
    def guard(self, action: str) -> Iterator[None]:
        """Turn any vendor exception raised inside into our error tree."""
        try:
            yield
        except BibliotecaError:
            raise
        except (gexc.GoogleAPIError, auth_exc.GoogleAuthError) as exc:
            ours = translate(exc, action)
            if ours is None:
                raise  # unknown: a traceback in the log, a plain 500 (see _TABLE)
            raise ours from exc


def plain_utc(value: datetime) -> datetime:
    """A plain aware UTC ``datetime`` (not the client's nanosecond subclass)."""
    moment = value.astimezone(UTC)
    return datetime(
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
        moment.microsecond,
        tzinfo=UTC,
    )
