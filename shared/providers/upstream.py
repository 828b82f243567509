"""How a model API's failures become ours: one table for every HTTP provider.

Both model clients (Gemini's REST API and any OpenAI-compatible server) fail the same
few ways, and a caller must see the same contract codes whichever it talks to::

    httpx.TimeoutException (connect, read, write, pool)  -> Unavailable   503 upstream_unavailable
    httpx.RemoteProtocolError, httpx.DecodingError       -> UpstreamError 502 upstream_error
    any other httpx.TransportError (refused, DNS, reset)  -> Unavailable   503 upstream_unavailable
    status 408 429 500 502 503 504                       -> retried, then Unavailable
    status 401 403                                       -> NotConfigured 503 (names the key)
    any other 4xx                                        -> UpstreamError 502 upstream_error
    a 2xx that is not the JSON (or event stream) asked   -> UpstreamError 502 upstream_error

The first matching row wins (the order matters: a read timeout is a transport error too).
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from datetime import UTC

import httpx

from shared.errors import BibliotecaError, Unavailable, UpstreamError

RETRYABLE = frozenset({408, 429, 500, 502, 503, 504})
KEY_REFUSED = frozenset({401, 403})

# (httpx exception, our error, what the message says); see the module docstring.
TRANSPORT: tuple[tuple[type[Exception], type[BibliotecaError], str], ...] = (
    (httpx.TimeoutException, Unavailable, "did not answer in time"),
    (httpx.RemoteProtocolError, UpstreamError, "sent a broken or truncated reply"),
    (httpx.DecodingError, UpstreamError, "sent a broken or truncated reply"),
    (httpx.TransportError, Unavailable, "cannot be reached"),
)


def translate(exc: Exception, vendor: str) -> BibliotecaError:
    """Our error for an ``httpx`` exception met while talking to ``vendor``."""
    for kind, ours, says in TRANSPORT:
        if isinstance(exc, kind):
            detail = (
                ""
                if ours is UpstreamError or kind is httpx.TimeoutException
                else (f" ({type(exc).__name__})")
            )
            return ours(f"{vendor} {says}{detail}")
    return UpstreamError(f"{vendor} failed ({type(exc).__name__})")


def retry_after(value: str | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date), if usable."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - now()
    return max(0.0, seconds) if seconds == seconds else None  # NaN is not a delay


def backoff(attempt: int, jitter: Callable[[], float], base_s: float = 0.5) -> float:
    """Full jitter around an exponential base: 0.5, 1, 2 … seconds."""
    return float(base_s * 2.0 ** (attempt - 1) * (0.5 + jitter()))
