"""What the enrichment ledger keeps: a change that failed (and how often), and the
keys that make enrichment at most once per (page, version, enricher)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

# After this many failed attempts a change is set aside (dead letter), the contract's 5.
MAX_ATTEMPTS = 5
# Backoff between local retries: BASE * 2**(attempts-1) seconds, capped.
BACKOFF_BASE_S = 2.0
BACKOFF_MAX_S = 300.0


@dataclass(frozen=True, slots=True)
class Failure:
    """A change (a page at a version) whose enrichment failed ``attempts`` times; ``dead``
    once it reached ``MAX_ATTEMPTS`` (never retried again, counted by ``status``)."""

    slug: str
    version: int
    attempts: int
    error: str
    at: datetime
    next_at: float  # epoch seconds: when the local worker may try again
    dead: bool


def backoff_s(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failure before the next try."""
    return float(min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** max(0, attempts - 1)))


def done_key(slug: str, version: int, enricher: str) -> str:
    """The ledger key of one (page, version, enricher): claimed once, ever."""
    return _digest("done", slug, str(version), enricher)


def suggested_key(slug: str, enricher: str, suggestion: str) -> str:
    """The ledger key of one suggestion to one page: the same suggestion (accepted or
    rejected) is never proposed twice, so an accepted proposal's version suggests nothing."""
    return _digest("suggested", slug, enricher, suggestion)


def _digest(*parts: str) -> str:
    # A hash: slugs may hold characters a Firestore document id may not, and keys stay short.
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:40]
