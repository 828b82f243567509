"""The front-matter table of the contract, rule by rule, and the stored page's shape."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from shared.api.models import PublicPage
from shared.errors import InvalidInput
from shared.schema import PAGE_TYPES, FrontMatter, Page, parse_front_matter

BASE: dict[str, Any] = {"title": "Biblioteca", "type": "concept"}


def invalid(data: object, field: str = "front_matter") -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        parse_front_matter(data, field)
    return caught.value


# -- title -------------------------------------------------------------------------------


def test_title_is_trimmed() -> None:
    """title is trimmed."""
    assert parse_front_matter({**BASE, "title": "  Hola mundo \n"}).title == "Hola mundo"


@pytest.mark.parametrize("length", [1, 200])
def test_title_of_1_to_200_characters_is_accepted(length: int) -> None:
    """title may have 1..200 characters, counted after trimming."""
    title = "x" * length
    assert parse_front_matter({**BASE, "title": f"  {title}  "}).title == title


@pytest.mark.parametrize("title", ["", "   ", "x" * 201, None, 5, ["t"]])
def test_bad_title_is_a_400_at_front_matter_title(title: object) -> None:
    """An empty, blank, too long or non-string title is a 400 at front_matter.title."""
    error = invalid({**BASE, "title": title})
    assert error.field == "front_matter.title"
    assert error.status == 400


def test_title_is_required() -> None:
    """A missing title is a 400 at front_matter.title that says it is required."""
    error = invalid({"type": "concept"})
    assert error.field == "front_matter.title"
    assert "required" in error.message


# -- type ------------------------------------------------------------------------------


@pytest.mark.parametrize("page_type", PAGE_TYPES)
def test_every_page_type_of_the_contract_is_accepted(page_type: str) -> None:
    """The seven types of the contract are valid."""
    assert parse_front_matter({**BASE, "type": page_type}).type == page_type


@pytest.mark.parametrize("page_type", ["blog", "", "concepts", None, 3, ["concept"]])
def test_other_types_are_a_400_naming_the_allowed_values(page_type: object) -> None:
    """Any other type is a 400 at front_matter.type whose message lists every allowed value."""
    error = invalid({**BASE, "type": page_type})
    assert error.field == "front_matter.type"
    for allowed in PAGE_TYPES:
        assert allowed in error.message


def test_type_is_required() -> None:
    """A missing type is a 400 at front_matter.type."""
    assert invalid({"title": "x"}).field == "front_matter.type"


# -- status ----------------------------------------------------------------------------


def test_status_defaults_to_active() -> None:
    """status defaults to active."""
    assert parse_front_matter(BASE).status == "active"


@pytest.mark.parametrize("status", ["draft", "active", "archived"])
def test_the_three_statuses_are_accepted(status: str) -> None:
    """draft, active and archived are the statuses."""
    assert parse_front_matter({**BASE, "status": status}).status == status


@pytest.mark.parametrize("status", ["published", "deleted", "", 1])
def test_other_statuses_are_a_400_naming_the_allowed_values(status: object) -> None:
    """Any other status is a 400 at front_matter.status naming draft, active, archived."""
    error = invalid({**BASE, "status": status})
    assert error.field == "front_matter.status"
    assert all(s in error.message for s in ("draft", "active", "archived"))


# -- tags, category -----------------------------------------------------------------------


def test_tags_are_trimmed_lower_cased_deduplicated_and_empties_dropped() -> None:
    """tags: trimmed, lower-cased, deduplicated (first kept), empties dropped."""
    fm = parse_front_matter({**BASE, "tags": [" Firestore ", "SQLite", "firestore", "", "  ", 7]})
    assert fm.tags == ["firestore", "sqlite", "7"]


@pytest.mark.parametrize(
    ("tags", "field"),
    [
        ("a", "front_matter.tags"),
        ([True], "front_matter.tags[0]"),
        (["a", {"x": 1}], "front_matter.tags[1]"),
    ],
)
def test_bad_tags_are_a_400_at_their_path(tags: object, field: str) -> None:
    """A non-list tags, or an entry that is not a string, is a 400 at its path."""
    assert invalid({**BASE, "tags": tags}).field == field


def test_tags_null_is_empty() -> None:
    """null tags are an empty list."""
    assert parse_front_matter({**BASE, "tags": None}).tags == []


@pytest.mark.parametrize(
    ("category", "stored"), [("  Operación ", "Operación"), ("", None), ("   ", None), (None, None)]
)
def test_category_is_trimmed_and_blank_is_null(category: object, stored: str | None) -> None:
    """category is trimmed; a blank one is null."""
    assert parse_front_matter({**BASE, "category": category}).category == stored


def test_category_that_is_not_a_string_is_a_400() -> None:
    """A category that is not a string or null is a 400 at front_matter.category."""
    assert invalid({**BASE, "category": ["a"]}).field == "front_matter.category"


# -- generated ---------------------------------------------------------------------------


def test_generated_records_by_and_at() -> None:
    """generated is {by, at}, with at an ISO timestamp, returned as ISO text."""
    fm = parse_front_matter(
        {**BASE, "generated": {"by": "gemini-2.5-flash", "at": "2025-03-01T10:00:00Z"}}
    )
    assert fm.dump()["generated"] == {"by": "gemini-2.5-flash", "at": "2025-03-01T10:00:00+00:00"}


@pytest.mark.parametrize(
    ("generated", "field"),
    [
        ({"by": "x"}, "front_matter.generated.at"),
        ({"at": "2025-01-01T00:00:00Z"}, "front_matter.generated.by"),
        ({"by": "", "at": "2025-01-01T00:00:00Z"}, "front_matter.generated.by"),
        ({"by": "x", "at": "not a date"}, "front_matter.generated.at"),
        ("gemini", "front_matter.generated"),
        ({"by": "x", "at": "2025-01-01T00:00:00Z", "model": "y"}, "front_matter.generated.model"),
    ],
)
def test_bad_generated_is_a_400_at_its_path(generated: object, field: str) -> None:
    """An incomplete or malformed generated is a 400 at the path of the fault."""
    assert invalid({**BASE, "generated": generated}).field == field


def test_an_unknown_key_inside_generated_is_named_in_the_message() -> None:
    """The message names the unknown nested key, not its parent."""
    error = invalid({**BASE, "generated": {"by": "x", "at": "2025-01-01T00:00:00Z", "model": "y"}})
    assert "model" in error.message


def test_generated_null_is_allowed() -> None:
    """generated may be null."""
    assert parse_front_matter({**BASE, "generated": None}).generated is None


# -- unknown keys, shape, prefixes ----------------------------------------------------------


@pytest.mark.parametrize("key", ["slug", "author", "Title", "content", "last_seen"])
def test_unknown_keys_are_a_400_naming_the_key(key: str) -> None:
    """An unknown front-matter key is a 400 at front_matter.<key> whose message names it."""
    error = invalid({**BASE, key: "x"})
    assert error.field == f"front_matter.{key}"
    assert f"'{key}'" in error.message


@pytest.mark.parametrize("data", [None, [], "title: x", 5])
def test_front_matter_that_is_not_an_object_is_a_400(data: object) -> None:
    """Front matter must be an object: anything else is a 400 at front_matter."""
    assert invalid(data).field == "front_matter"


def test_errors_name_the_prefix_the_caller_used() -> None:
    """update_metadata paths on update, bare paths for imported files."""
    bad = {**BASE, "sources": ["a.py", "b.py", True]}
    assert invalid(bad, "update_metadata").field == "update_metadata.sources[2]"
    assert invalid(bad, "").field == "sources[2]"
    assert invalid({**BASE, "type": "x"}, "").field == "type"


def test_several_faults_give_one_error_naming_one_of_them() -> None:
    """With several faults, the one error names one of the faulty fields."""
    error = invalid({"title": "", "type": "nope", "tags": "x"})
    assert error.field in {"front_matter.title", "front_matter.type", "front_matter.tags"}


def test_sources_and_related_are_normalized_by_the_schema() -> None:
    """The schema applies normalize_sources / normalize_related on the way in."""
    fm = parse_front_matter(
        {**BASE, "sources": ["a.py", {"path": "b.py", "type": "DOC"}], "related": [{"slug": " x "}]}
    )
    assert fm.dump()["sources"][1] == {"type": "doc", "ref": "b.py"}
    assert fm.related == ["x"]


def test_dump_round_trips_and_leaves_out_unset_last_seen() -> None:
    """dump() is JSON-ready, omits absent last_seen, and parses back to an equal model."""
    fm = parse_front_matter(
        {
            **BASE,
            "status": "draft",
            "sources": [{"type": "doc", "ref": "x"}, "y.py"],
            "related": ["a"],
            "tags": ["T"],
            "category": "c",
            "generated": {"by": "m", "at": "2025-01-01T00:00:00+02:00"},
        }
    )
    dumped = fm.dump()
    assert "last_seen" not in dumped["sources"][0]
    assert "last_seen" in dumped["sources"][1]
    assert parse_front_matter(dumped) == fm
    assert parse_front_matter(dumped).dump() == dumped


def test_front_matter_is_immutable() -> None:
    """A validated front matter cannot be changed behind the schema's back."""
    fm = parse_front_matter(BASE)
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen error type is internal
        fm.title = "x"  # type: ignore[misc]
    assert isinstance(fm, FrontMatter)


def test_a_public_page_is_front_matter_plus_bookkeeping() -> None:
    """A page as responses show it (``PublicPage.of(page).body()``) is the stored front
    matter, its null category and generated kept, plus slug, version and ISO timestamps
    as ``isoformat()`` writes them."""
    moment = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    page = Page(
        slug="concept—biblioteca",
        front_matter=parse_front_matter(BASE),
        content="# Hola",
        version=3,
        created_at=moment,
        updated_at=moment,
    )
    public = PublicPage.of(page).body()
    assert public == {
        **page.front_matter.dump(),
        "slug": "concept—biblioteca",
        "version": 3,
        "created_at": "2025-01-02T03:04:05+00:00",
        "updated_at": "2025-01-02T03:04:05+00:00",
    }
    assert public["title"] == "Biblioteca"
    assert public["category"] is None  # present, null
    assert "content" not in public


def test_description_is_optional_one_line_capped_and_absent_from_pages_without_it() -> None:
    """Docusaurus/Starlight's ``description`` is kept; a page without one dumps as before."""
    from shared.schema import MAX_DESCRIPTION

    base = {"title": "T", "type": "guide"}
    assert "description" not in parse_front_matter(base).dump()
    assert parse_front_matter({**base, "description": "  "}).description is None
    fm = parse_front_matter({**base, "description": " Una\n  frase. "})
    assert fm.dump()["description"] == "Una frase."
    with pytest.raises(InvalidInput) as caught:
        parse_front_matter({**base, "description": "x" * (MAX_DESCRIPTION + 1)})
    assert caught.value.field == "front_matter.description"


def test_a_title_is_one_line() -> None:
    """Line breaks, tabs and control characters in a title fold into single spaces."""
    front = parse_front_matter({"title": " Hola\r\n\tmundo\u2028\x1b[2J ", "type": "guide"})
    assert front.title == "Hola mundo [2J"
