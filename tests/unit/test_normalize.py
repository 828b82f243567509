"""normalize_sources / normalize_related: the original system's 13 regression cases and more."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shared.errors import InvalidInput
from shared.normalize import as_utc_date, normalize_related, normalize_sources


def today() -> str:
    return datetime.now(UTC).date().isoformat()


# -- sources: the regression cases ----------------------------------------------------


def test_path_strings_become_code_sources_seen_today() -> None:
    """Case 1: a list of file paths becomes {type: code, ref, last_seen: today}."""
    assert normalize_sources(["src/app.py", "  lib/util.ts  "]) == [
        {"type": "code", "ref": "src/app.py", "last_seen": today()},
        {"type": "code", "ref": "lib/util.ts", "last_seen": today()},
    ]


def test_valid_objects_are_left_untouched() -> None:
    """Case 2: already valid source objects come back equal, in order."""
    given = [
        {"type": "doc", "ref": "https://example.org/guide", "last_seen": "2024-05-01"},
        {"type": "wiki", "ref": "concept—biblioteca"},
        {"type": "query", "ref": "¿cómo se promueve un borrador?"},
    ]
    assert normalize_sources(given) == given


def test_last_seen_dates_are_kept() -> None:
    """Case 3: an ISO date in last_seen is kept as given."""
    result = normalize_sources([{"type": "commit", "ref": "abc123", "last_seen": "2023-12-31"}])
    assert result == [{"type": "commit", "ref": "abc123", "last_seen": "2023-12-31"}]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("2024-01-02T23:30:00-05:00", "2024-01-03"),  # the UTC date, not the local one
        ("2024-01-02T00:30:00+02:00", "2024-01-01"),
        ("2024-01-02T10:00:00Z", "2024-01-02"),
        ("2024-01-02T10:00:00", "2024-01-02"),  # naive: taken as UTC
        (" 2024-01-02 ", "2024-01-02"),
    ],
)
def test_last_seen_datetimes_are_stored_as_the_utc_date(given: str, stored: str) -> None:
    """Case 3b: a datetime with an offset is stored as its UTC date YYYY-MM-DD."""
    result = normalize_sources([{"type": "code", "ref": "a.py", "last_seen": given}])
    assert result == [{"type": "code", "ref": "a.py", "last_seen": stored}]


@pytest.mark.parametrize("bad", ["yesterday", "2024-02-30", 20240102, True, ["2024-01-01"], {}])
def test_last_seen_that_is_not_a_date_is_rejected_at_its_index(bad: object) -> None:
    """A present last_seen that is not an ISO date is a 400 at the entry's index."""
    with pytest.raises(InvalidInput) as caught:
        normalize_sources(["ok.py", {"type": "code", "ref": "a.py", "last_seen": bad}])
    assert caught.value.field == "front_matter.sources[1]"


@pytest.mark.parametrize(
    "moment",
    ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00", "9999-12-31T23:59:59-23:59"],
)
def test_last_seen_out_of_the_calendar_is_a_400_not_a_crash(moment: str) -> None:
    """A datetime whose UTC date falls outside years 1..9999 is rejected as invalid input."""
    with pytest.raises(InvalidInput) as caught:
        normalize_sources([{"type": "code", "ref": "a.py", "last_seen": moment}])
    assert caught.value.field == "front_matter.sources[0]"


def test_last_seen_absent_is_left_out() -> None:
    """An object without last_seen (or with null) gets none added."""
    assert normalize_sources([{"type": "doc", "ref": "x", "last_seen": None}]) == [
        {"type": "doc", "ref": "x"}
    ]


@pytest.mark.parametrize("kind", ["file", "", "  ", "CODIGO", 7, None, ["doc"], True])
def test_unknown_type_becomes_code(kind: object) -> None:
    """Case 4: a type outside the six known ones (or not a string) becomes code."""
    assert normalize_sources([{"type": kind, "ref": "x"}]) == [{"type": "code", "ref": "x"}]


@pytest.mark.parametrize("kind", ["DOC", " Doc ", "wiki", "MEMORY", "query", "commit"])
def test_known_types_are_trimmed_and_lower_cased(kind: str) -> None:
    """A known type in any case or padding is kept, lower-cased."""
    assert normalize_sources([{"type": kind, "ref": "x"}])[0]["type"] == kind.strip().lower()


def test_numeric_refs_become_text_and_integers_keep_every_digit() -> None:
    """Case 5: numbers are refs; 12345678901234567890 keeps all its digits."""
    assert normalize_sources([12345678901234567890, 42, 1.5]) == [
        {"type": "code", "ref": "12345678901234567890", "last_seen": today()},
        {"type": "code", "ref": "42", "last_seen": today()},
        {"type": "code", "ref": "1.5", "last_seen": today()},
    ]
    assert normalize_sources([{"type": "commit", "ref": 12345678901234567890}]) == [
        {"type": "commit", "ref": "12345678901234567890"}
    ]


@pytest.mark.parametrize("entry", [True, False, {"type": "code", "ref": True}])
def test_booleans_are_not_numbers(entry: object) -> None:
    """Case 6: a boolean (bare or as ref) is not a number: 400 at its index."""
    with pytest.raises(InvalidInput) as caught:
        normalize_sources(["a.py", "b.py", entry])
    assert caught.value.field == "front_matter.sources[2]"


def test_path_and_file_are_aliases_of_ref_in_that_order() -> None:
    """Case 7: ref is the first non-empty of ref, path, file."""
    assert normalize_sources(
        [
            {"type": "code", "path": " src/a.py "},
            {"file": "src/b.py"},
            {"ref": "", "path": "  ", "file": "src/c.py"},
            {"ref": "src/d.py", "path": "ignored.py"},
        ]
    ) == [
        {"type": "code", "ref": "src/a.py"},
        {"type": "code", "ref": "src/b.py"},
        {"type": "code", "ref": "src/c.py"},
        {"type": "code", "ref": "src/d.py"},
    ]


def test_empty_and_blank_strings_are_skipped() -> None:
    """Case 8: empty or blank strings are skipped without error."""
    assert normalize_sources(["", "   ", "\t\n", "a.py"]) == [
        {"type": "code", "ref": "a.py", "last_seen": today()}
    ]


@pytest.mark.parametrize(
    "entry",
    [None, [], ["a.py"], {}, {"type": "code"}, {"ref": ""}, {"ref": "  "}, {"ref": None},
     {"ref": ["a.py"]}, {"ref": {"path": "a.py"}}, {"type": "doc", "url": "https://x"}],
)  # fmt: skip
def test_unrecoverable_entries_are_rejected_with_their_index(entry: object) -> None:
    """Case 9: an entry with no usable ref is a 400 naming front_matter.sources[i]."""
    with pytest.raises(InvalidInput) as caught:
        normalize_sources(["a.py", "", entry, "b.py"])
    assert caught.value.field == "front_matter.sources[2]"
    assert caught.value.status == 400


def test_the_index_is_the_one_in_the_callers_list_on_update() -> None:
    """Case 9b: on update the path is update_metadata.sources[i], i counting skipped blanks."""
    with pytest.raises(InvalidInput) as caught:
        normalize_sources(["", "  ", {"nope": 1}], "update_metadata.sources")
    assert caught.value.field == "update_metadata.sources[2]"


def test_null_is_an_empty_list() -> None:
    """Case 10: null / missing sources normalize to []."""
    assert normalize_sources(None) == []
    assert normalize_sources([]) == []


@pytest.mark.parametrize("value", ["a.py", 5, {"ref": "a.py"}, True, 1.5])
def test_sources_that_are_not_a_list_are_rejected_at_the_field(value: object) -> None:
    """Case 10b: a non-list sources is a 400 at front_matter.sources (no index)."""
    with pytest.raises(InvalidInput) as caught:
        normalize_sources(value)
    assert caught.value.field == "front_matter.sources"


def test_duplicate_sources_are_dropped_first_kept_order_kept() -> None:
    """Duplicates (same type and exact ref) are dropped; the first one and the order are kept."""
    result = normalize_sources(
        [
            {"type": "doc", "ref": "b", "last_seen": "2024-01-01"},
            "a.py",
            {"type": "doc", "ref": "b", "last_seen": "2025-01-01"},
            {"type": "code", "ref": "a.py", "last_seen": "2020-01-01"},
            {"type": "wiki", "ref": "b"},
            {"type": "doc", "ref": "B"},
        ]
    )
    assert result == [
        {"type": "doc", "ref": "b", "last_seen": "2024-01-01"},
        {"type": "code", "ref": "a.py", "last_seen": today()},
        {"type": "wiki", "ref": "b"},
        {"type": "doc", "ref": "B"},
    ]


def test_unknown_keys_inside_a_source_object_are_dropped() -> None:
    """Friendly coercion: extra keys of a source object do not reach the stored source."""
    assert normalize_sources([{"type": "doc", "ref": "x", "note": "why"}]) == [
        {"type": "doc", "ref": "x"}
    ]


def test_normalized_sources_do_not_change_when_normalized_again() -> None:
    """Idempotence on a mixed list."""
    once = normalize_sources(["a.py", 7, {"path": "b.py", "type": "DOC"}, {"ref": "c"}])
    assert normalize_sources(once) == once


# -- related -------------------------------------------------------------------------


def test_related_strings_are_trimmed() -> None:
    """Case 11: related strings are trimmed slugs."""
    assert normalize_related(["  concept—biblioteca ", "runbook—reindexar"]) == [
        "concept—biblioteca",
        "runbook—reindexar",
    ]


def test_related_objects_are_flattened_by_slug_then_ref() -> None:
    """Case 12: {slug} and {ref} objects become their slug; slug wins, blanks fall through."""
    assert normalize_related(
        [{"slug": "a"}, {"ref": " b "}, {"slug": "", "ref": "c"}, {"slug": "d", "ref": "x"}]
    ) == ["a", "b", "c", "d"]


def test_related_numbers_are_slugs_and_blanks_are_skipped() -> None:
    """A number is a slug of its digits; empty and blank strings are skipped."""
    assert normalize_related(["", "  ", 2024, "a"]) == ["2024", "a"]


@pytest.mark.parametrize(
    "entry",
    [True, None, [], {}, {"title": "x"}, {"slug": True}, "Not A Slug", "con espacio", "ask",
     "wiki_create", "-a", "a" * 201, "ñandú", 1.5],
)  # fmt: skip
def test_related_rejects_with_its_index(entry: object) -> None:
    """Case 13: a related entry that is not a valid slug is a 400 at related[i]."""
    with pytest.raises(InvalidInput) as caught:
        normalize_related(["a", "", entry])
    assert caught.value.field == "front_matter.related[2]"
    with pytest.raises(InvalidInput) as caught:
        normalize_related([entry], "update_metadata.related")
    assert caught.value.field == "update_metadata.related[0]"


def test_related_null_is_empty_and_a_non_list_is_rejected() -> None:
    """Case 13b: null related is []; a non-list is a 400 at the field."""
    assert normalize_related(None) == []
    for value in ("a", {"slug": "a"}, 3):
        with pytest.raises(InvalidInput) as caught:
            normalize_related(value)
        assert caught.value.field == "front_matter.related"


def test_related_duplicates_dropped_order_kept() -> None:
    """Duplicates of related (after trimming and flattening) are dropped, order kept."""
    assert normalize_related(["b", " a", {"slug": "b"}, "a ", {"ref": "c"}]) == ["b", "a", "c"]


def test_the_error_message_of_a_huge_value_stays_short() -> None:
    """An invalid 100 000-character related value does not come back whole in the message."""
    with pytest.raises(InvalidInput) as caught:
        normalize_related(["x " * 50_000])
    assert len(caught.value.message) < 1000


# -- dates -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-01", "2024-03-01"),
        ("2024-03-01T05:00:00+06:00", "2024-02-29"),
        ("2024-03-01 12:00", "2024-03-01"),
        ("nope", None),
        ("", None),
        (5, None),
        (None, None),
        ("0001-01-01T00:00:00+00:01", None),
    ],
)
def test_as_utc_date(value: object, expected: str | None) -> None:
    """as_utc_date gives the UTC date of an ISO date/datetime, None for anything else."""
    assert as_utc_date(value) == expected
