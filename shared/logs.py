"""Structured JSON logs on stdout, in the shape Cloud Logging understands.

Each line has ``severity``, ``message``, ``time`` and any ``extra`` fields passed
to the logger (``httpRequest`` for request logs). Known secrets are scrubbed from
every line as a last line of defence: no token or key is ever logged on purpose.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from datetime import UTC, datetime
from typing import Any

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
_SEVERITY = {"WARNING": "WARNING", "CRITICAL": "CRITICAL", "ERROR": "ERROR", "INFO": "INFO"}
_secrets: set[str] = set()
_lock = threading.Lock()
_configured = False


def register_secret(value: str | None) -> None:
    """Make sure ``value`` never appears in a log line (it is replaced by ``[redacted]``)."""
    if value and len(value) >= 6:
        with _lock:
            _secrets.add(value)


def scrub(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return text


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": _SEVERITY.get(record.levelname, "DEBUG"),
            "message": record.getMessage(),
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "logger": record.name,
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["stack_trace"] = self.formatException(record.exc_info)
        return scrub(json.dumps(entry, ensure_ascii=False, default=str))


def configure_logging(level: int = logging.INFO, stream: Any = None) -> None:
    """Route the ``biblioteca`` loggers to stdout (or ``stream``) as JSON (idempotent)."""
    global _configured
    with _lock:
        if _configured:
            return
        handler = logging.StreamHandler(stream or sys.stdout)
        handler.setFormatter(JsonFormatter())
        logger = logging.getLogger("biblioteca")
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = True
        _configured = True


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(f"biblioteca.{name}")
