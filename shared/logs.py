"""Structured JSON logs on stdout, in the shape Cloud Logging understands.

Each line has ``severity``, ``message``, ``time`` and any ``extra`` fields passed
to the logger (``httpRequest`` for request logs); a line written while a request is
served carries that request's Cloud trace (``logging.googleapis.com/trace``), so Cloud
Logging groups every line of one request under it. Known secrets are scrubbed from
every line as a last line of defence: no token or key is ever logged on purpose.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
_SEVERITY = {"WARNING": "WARNING", "CRITICAL": "CRITICAL", "ERROR": "ERROR", "INFO": "INFO"}
# Replaced whole, never changed in place: ``scrub`` runs in every request thread while a
# provider built for a request may register its key (a set changing size while another
# thread iterates it raises).
_secrets: frozenset[str] = frozenset()
_lock = threading.Lock()
_handler: _StreamHandler | None = None
# The trace fields of the request being served in this context (thread or task).
_trace: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "biblioteca_trace", default=None
)
# X-Cloud-Trace-Context: TRACE_ID/SPAN_ID;o=1 (Google's front end adds it); W3C
# traceparent: 00-TRACE_ID-SPAN_ID-FLAGS. Ids are hex: anything else is ignored.
_CLOUD_TRACE = re.compile(r"^([0-9a-fA-F]{32})(?:/(\d{1,20}))?(?:;o=\d)?$")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$")


def trace_fields(headers: Mapping[str, str], project: str | None) -> dict[str, str]:
    """The Cloud Logging trace fields of a request with these headers (none: ``{}``).

    With the project known the trace is the resource name Cloud Logging correlates
    (``projects/P/traces/ID``); without it, the bare id under ``trace_id``.
    """
    named = {key.lower(): value for key, value in headers.items()}
    cloud = _CLOUD_TRACE.match(named.get("x-cloud-trace-context", "").strip())
    parent = _TRACEPARENT.match(named.get("traceparent", "").strip())
    if cloud:
        trace, span = cloud.group(1).lower(), cloud.group(2)
    elif parent:
        trace, span = parent.group(1), parent.group(2)
    else:
        return {}
    fields = (
        {"logging.googleapis.com/trace": f"projects/{project}/traces/{trace}"}
        if project
        else {"trace_id": trace}
    )
    if span:
        fields["logging.googleapis.com/spanId"] = span
    return fields


@contextmanager
def request_trace(fields: dict[str, str]) -> Iterator[None]:
    """Every line logged inside carries ``fields`` (see ``trace_fields``)."""
    token = _trace.set(fields or None)
    try:
        yield
    finally:
        _trace.reset(token)


def register_secret(value: str | None) -> None:
    """Make sure ``value`` never appears in a log line (it is replaced by ``[redacted]``)."""
    global _secrets
    if value and len(value) >= 6 and value not in _secrets:
        with _lock:
            _secrets = _secrets | {value}


def scrub(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return text


def _secret_start(text: str) -> int:
    """The length of ``text``'s longest end that begins some secret (0: none)."""
    longest = 0
    for secret in _secrets:
        for size in range(min(len(secret) - 1, len(text)), longest, -1):
            if text.endswith(secret[:size]):
                longest = size
                break
    return longest


class PieceScrubber:
    """``scrub`` for text that arrives in pieces (a streamed answer's deltas): a secret
    split across two pieces is caught as well. ``feed`` answers what is safe to show
    now, holding back an end that could begin a secret until the next piece shows
    whether it does; ``flush`` answers what is held at the end."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = scrub(self._held + piece)
        hold = _secret_start(text)
        self._held = text[len(text) - hold :]
        return text[: len(text) - hold]

    def flush(self) -> str:
        text, self._held = self._held, ""
        return scrub(text)


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": _SEVERITY.get(record.levelname, "DEBUG"),
            "message": record.getMessage(),
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "logger": record.name,
        }
        entry.update(_trace.get() or {})
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["stack_trace"] = self.formatException(record.exc_info)
        return scrub(json.dumps(entry, ensure_ascii=False, default=str))


class _StreamHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to ``sys.stdout``/``sys.stderr`` as they are at each write.

    Binding the stream object at set-up would keep writing to a replaced one
    (pytest's per-test capture, a reconfigured console) after it was closed.
    """

    def __init__(self) -> None:
        super().__init__()
        self.target: Any = "stdout"  # "stdout", "stderr" or a stream object

    def emit(self, record: logging.LogRecord) -> None:
        target = self.target
        self.stream = getattr(sys, target) if isinstance(target, str) else target
        super().emit(record)


def configure_logging(level: int = logging.INFO, stream: Any = None) -> None:
    """Route the ``biblioteca`` loggers to stdout as JSON; installed once.

    A call naming ``stream`` moves the output there (``sys.stdout``/``sys.stderr`` are
    remembered by name, not by object); a call without one keeps the current target.
    """
    global _handler
    with _lock:
        if _handler is None:
            _handler = _StreamHandler()
            _handler.setFormatter(JsonFormatter())
            logger = logging.getLogger("biblioteca")
            logger.addHandler(_handler)
            logger.setLevel(level)
            logger.propagate = True
        if stream is not None:
            _handler.target = (
                "stdout" if stream is sys.stdout else "stderr" if stream is sys.stderr else stream
            )


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(f"biblioteca.{name}")
