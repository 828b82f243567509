"""The one clock: every "now" reads it, so a test pins it in one place."""

from __future__ import annotations

from datetime import UTC, datetime

from shared import clock
from shared.normalize import today
from shared.services.wiki import now as wiki_now

MOMENT = datetime(2026, 11, 1, 12, 30, tzinfo=UTC)


def test_now_is_aware_utc() -> None:
    assert clock.now().tzinfo is UTC


def test_pinning_the_clock_pins_every_now_and_is_undone_after() -> None:
    """Modules that imported ``now`` by name see the pinned moment too."""
    with clock.pinned(MOMENT):
        assert clock.now() == MOMENT
        assert wiki_now() == MOMENT
        assert today() == "2026-11-01"
    assert clock.now() != MOMENT
