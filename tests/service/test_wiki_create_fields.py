"""wiki_create's per-field checks: every bad field is a 400 (413 for size) at its path."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.fixtures.contract import FRONT_MATTER_KEYS
from tests.service.conftest import Call


def unique(prefix: str = "Página") -> str:
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def body(title: str | None = None, content: str = "# Hola\n\nUn texto.", **fm: Any) -> Any:
    return {
        "content": content,
        "front_matter": {"title": title or unique(), "type": "concept", **fm},
    }


@pytest.mark.parametrize(
    "bad", ["Mi Página", "concepto-", "a/b", "UPPER", "x" * 201, "concept\n", 42, ["a"]]
)
def test_an_invalid_explicit_slug_is_a_400_at_slug_and_not_rewritten(
    call: Call, store: Any, bad: object
) -> None:
    """An explicit slug outside the regex is refused (400 at slug), never slugified."""
    status, reply = call("wiki_create", {**body(), "slug": bad})
    assert (status, reply["code"], reply["field"]) == (400, "validation_error", "slug")
    assert store.pages.get("mi-pagina") is None


@pytest.mark.parametrize("name", ["ask", "wiki_create", "rebuild"])
def test_a_reserved_slug_is_a_400_at_slug(call: Call, name: str) -> None:
    """The function names are not page slugs."""
    status, reply = call("wiki_create", {**body(), "slug": name})
    assert (status, reply["field"]) == (400, "slug")
    assert "reserved" in reply["error"]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"sources": ["a.py", "b.py", True]}, "front_matter.sources[2]"),
        ({"sources": [{"type": "code"}]}, "front_matter.sources[0]"),
        ({"sources": "a.py"}, "front_matter.sources"),
        ({"related": ["ok", "No Vale"]}, "front_matter.related[1]"),
        ({"type": "blog"}, "front_matter.type"),
        ({"author": "ana"}, "front_matter.author"),
        ({"title": " "}, "front_matter.title"),
    ],
)
def test_front_matter_errors_name_the_path_in_the_request(
    call: Call, extra: dict[str, Any], field: str
) -> None:
    """A bad source, related entry, type or unknown key is a 400 at front_matter.<path>."""
    status, reply = call("wiki_create", body(**extra))
    assert (status, reply["code"], reply["field"]) == (400, "validation_error", field)


def test_a_bad_type_names_the_allowed_values(call: Call) -> None:
    """The message of a wrong type lists the types a page may have."""
    _, reply = call("wiki_create", body(type="blog"))
    assert all(t in reply["error"] for t in ("concept", "decision", "runbook", "reference"))


@pytest.mark.parametrize(
    ("sent", "field"),
    [
        ({"front_matter": {"title": "t", "type": "concept"}}, "content"),
        ({"content": 5, "front_matter": {"title": "t", "type": "concept"}}, "content"),
        ({"content": "x"}, "front_matter"),
        ({"content": "x", "front_matter": "title: x"}, "front_matter"),
        (
            {"content": "x", "front_matter": {"title": "t", "type": "concept"}, "version": 3},
            "version",
        ),
    ],
)
def test_missing_or_malformed_parts_of_the_body_are_400s_at_their_field(
    call: Call, sent: dict[str, Any], field: str
) -> None:
    """content and front_matter are required; unknown top-level keys are refused."""
    status, reply = call("wiki_create", sent)
    assert (status, reply["field"]) == (400, field)


def test_content_over_512_kib_is_a_413_at_content(call: Call) -> None:
    """content is limited to 512 KiB counted in UTF-8 bytes: 413 payload_too_large at content."""
    status, reply = call("wiki_create", body(content="ñ" * (256 * 1024 + 1)))
    assert (status, reply["code"], reply["field"]) == (413, "payload_too_large", "content")


# -- hostile values inside fields (the edge checks the bytes: encodings, nesting depth) ----


def test_nesting_inside_fields_is_a_400_at_the_field(call: Call) -> None:
    """Nested values where a string or list of strings belongs are 400s at that field."""
    nested: Any = "x"
    for _ in range(300):
        nested = [nested]
    for key, field in [
        ("category", "front_matter.category"),
        ("tags", "front_matter.tags[0]"),
        ("sources", "front_matter.sources[0]"),
        ("related", "front_matter.related[0]"),
        ("title", "front_matter.title"),
    ]:
        status, reply = call("wiki_create", body(**{key: nested}))
        assert (status, reply["field"]) == (400, field)
        assert len(reply["error"]) < 4096


def test_huge_strings_in_bounded_fields_are_400s_with_short_messages(call: Call) -> None:
    """A 900 KB slug, title, type or related entry is refused without echoing it."""
    huge = "a" * 900_000
    cases = [
        ({**body(), "slug": huge}, "slug"),
        (body(title=huge), "front_matter.title"),
        ({"content": "x", "front_matter": {"title": "t", "type": huge}}, "front_matter.type"),
        (body(related=[huge]), "front_matter.related[0]"),
        (
            {"content": "x", "front_matter": {"title": "t", "type": "concept", huge: 1}},
            f"front_matter.{huge}",
        ),
    ]
    for sent, field in cases:
        status, reply = call("wiki_create", sent)
        assert status == 400
        assert reply["field"][:200] == field[:200]
        assert len(reply["error"]) < 2000


def test_huge_strings_in_free_fields_are_stored_or_refused(call: Call) -> None:
    """300 KB in a tag, a category or a source ref: stored or refused at a field, never a bug."""
    big = "b" * 300_000
    for extra in (
        {"tags": [big]},
        {"category": big},
        {"sources": [big]},
        {"sources": [{"type": "doc", "ref": big}]},
    ):
        status, _ = call("wiki_create", body(**extra))
        assert status in (201, 400, 413)


def test_control_characters_are_stored_or_refused(call: Call, store: Any) -> None:
    """NUL and other control characters in content, title and tags are stored or refused."""
    controls = "".join(chr(c) for c in range(32)) + "\x7f\u2028\u2029\ufeff"
    status, reply = call(
        "wiki_create", body(title=f"T{controls}x", content=f"# T\n\n{controls}", tags=[controls])
    )
    assert status in (201, 400)
    if status == 201:
        assert store.pages.get(reply["slug"]).content == f"# T\n\n{controls}"
    status, reply = call("wiki_create", {**body(), "slug": "a\x00b"})
    assert (status, reply["field"]) == (400, "slug")


ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1e308,
    12345678901234567890,
    "",
    " ",
    [],
    {},
    [None],
    [[]],
    {"a": {}},
]


@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_odd_json_values_in_every_field_are_answered_or_refused(call: Call, value: Any) -> None:
    """Every field of both write bodies given every kind of JSON value: a 2xx or the
    contract's 4xx, never a bug."""
    _, created = call("wiki_create", body())
    slug = created["slug"]
    for key in FRONT_MATTER_KEYS:
        assert call("wiki_create", body(**{key: value}))[0] in (201, 400), key
        assert call("wiki_update", {"slug": slug, "update_metadata": {key: value}})[0] in (
            200,
            400,
        ), key
    for key in ("slug", "content", "front_matter"):
        assert call("wiki_create", {**body(), key: value})[0] in (201, 400, 409), key
    for key in ("slug", "content", "update_metadata", "expected_version"):
        assert call("wiki_update", {"slug": slug, key: value})[0] in (200, 400, 404, 409), key
