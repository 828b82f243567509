"""The enrichment ledger's rules: how often a change may fail, how long it waits between
tries, and the keys that make enrichment at most once per (page, version, enricher)."""

from __future__ import annotations

import hashlib

# After this many failed attempts a change is set aside (dead letter), the contract's 5.
MAX_ATTEMPTS = 5
# Backoff between local retries: BASE * 2**(attempts-1) seconds, capped.
BACKOFF_BASE_S = 2.0
BACKOFF_MAX_S = 300.0


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
