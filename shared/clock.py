"""The one clock: every "now" Biblioteca computes (an update's date, a vote's moment, a
``--since`` window's end) comes from ``now()``, so a test can pin it with ``pinned``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

_pinned: datetime | None = None


def now() -> datetime:
    """The current moment, timezone-aware in UTC (or the pinned one)."""
    return _pinned if _pinned is not None else datetime.now(UTC)


@contextmanager
def pinned(moment: datetime) -> Iterator[datetime]:
    """``now()`` answers ``moment`` inside the block (tests; not thread-scoped)."""
    global _pinned
    before, _pinned = _pinned, moment
    try:
        yield moment
    finally:
        _pinned = before
