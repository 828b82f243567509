"""``--since``: one reading for ``gaps`` and ``feedback`` (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from shared import clock
from shared.errors import InvalidInput
from shared.text.since import describe, parse_since

T0 = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "back"),
    [
        ("7d", timedelta(days=7)),
        ("24h", timedelta(hours=24)),
        ("30m", timedelta(minutes=30)),
        (" 2w ", timedelta(weeks=2)),
        ("7 d", timedelta(days=7)),
    ],
)
def test_a_duration_counts_back_from_now(text: str, back: timedelta) -> None:
    assert parse_since(text, T0) == T0 - back


def test_a_duration_counts_back_from_the_clock_when_no_moment_is_given() -> None:
    with clock.pinned(T0):
        assert parse_since("1d") == T0 - timedelta(days=1)


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-01T08:30", datetime(2026, 11, 1, 8, 30, tzinfo=UTC)),
        ("2026-11-01T08:30+01:00", datetime(2026, 11, 1, 7, 30, tzinfo=UTC)),
    ],
)
def test_an_iso_date_or_moment_is_that_moment_utc_unless_it_says(
    text: str, moment: datetime
) -> None:
    assert parse_since(text, T0) == moment


@pytest.mark.parametrize("text", ["7", "d", "7x", "-1d", "1.5d", "last week", ""])
def test_anything_else_is_invalid_input_at_since(text: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_since(text, T0)
    assert caught.value.field == "since"


def test_a_listing_names_its_window_by_what_was_typed() -> None:
    assert describe("7d") == "in the last 7d"
    assert describe(" 2026-11-01 ") == "since 2026-11-01"


@pytest.mark.parametrize("text", ["9999999w", "99999999999999999999d"])
def test_a_duration_past_the_calendars_start_means_since_the_beginning(text: str) -> None:
    assert parse_since(text, T0) == datetime.min.replace(tzinfo=UTC)
