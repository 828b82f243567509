"""``--since`` values, one reading for every command that takes one (``gaps``,
``feedback``): a duration back from now (``30m``, ``24h``, ``7d``, ``2w``) or an ISO
date or moment (``2026-11-01``, ``2026-11-01T08:00``; UTC unless it says otherwise)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from shared import clock
from shared.errors import InvalidInput

_DURATION = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """The moment ``text`` names; ``InvalidInput`` at ``since`` when it names none."""
    match = _DURATION.match(text)
    if match:
        moment = now or clock.now()
        try:
            return moment - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
        except OverflowError:  # further back than the calendar goes: since the beginning
            return datetime.min.replace(tzinfo=UTC)
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InvalidInput(
            "--since takes a duration (30m, 24h, 7d, 2w) or an ISO date (2026-11-01), "
            f"not {text[:40]!r}",
            field="since",
        ) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def describe(text: str) -> str:
    """How a listing names its window: ``in the last 7d``, ``since 2026-11-01``."""
    value = text.strip()
    return f"in the last {value}" if _DURATION.match(value) else f"since {value}"
