"""Hostile input never gives a 500: nesting, huge strings, bad encodings, control characters."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.contract import FRONT_MATTER_KEYS
from tests.fixtures.server import Api, Reply


def fm(**extra: Any) -> dict[str, Any]:
    return {"title": f"Hostil {uuid.uuid4().hex[:8]}", "type": "concept", **extra}


def assert_contract_error(reply: Reply, status: int | None = None) -> None:
    """A 4xx whose body is exactly the contract's error shape."""
    assert 400 <= reply.status < 500, reply.text[:300]
    if status is not None:
        assert reply.status == status, reply.text[:300]
    assert set(reply.json) <= {"error", "code", "field"}
    assert {"error", "code"} <= set(reply.json)
    assert len(reply.text) < 4096  # errors never echo a huge input back


def test_deeply_nested_json_is_a_400(api: Api) -> None:
    """100 000 nested arrays (a parser bomb) is a 400 invalid_json, not a crash."""
    reply = api.post("wiki_create", data="[" * 100_000 + "]" * 100_000)
    assert_contract_error(reply, 400)
    assert reply.json["code"] == "invalid_json"


def test_nesting_inside_fields_is_a_400_at_the_field(api: Api) -> None:
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
        reply = api.post("wiki_create", {"content": "x", "front_matter": fm(**{key: nested})})
        assert_contract_error(reply, 400)
        assert reply.json["field"] == field


def test_huge_strings_in_bounded_fields_are_400s_with_short_messages(api: Api) -> None:
    """A 900 KB slug, title, type or related entry is refused without echoing it."""
    huge = "a" * 900_000
    cases = [
        ({"slug": huge, "content": "x", "front_matter": fm()}, "slug"),
        ({"content": "x", "front_matter": fm(title=huge)}, "front_matter.title"),
        ({"content": "x", "front_matter": fm(type=huge)}, "front_matter.type"),
        ({"content": "x", "front_matter": fm(related=[huge])}, "front_matter.related[0]"),
        ({"content": "x", "front_matter": {**fm(), huge: 1}}, f"front_matter.{huge}"),
    ]
    for sent, field in cases:
        reply = api.post("wiki_create", sent)
        assert reply.status == 400
        assert reply.json["field"][:200] == field[:200]
        assert len(reply.json["error"]) < 2000


def test_huge_strings_in_free_fields_never_give_a_500(api: Api) -> None:
    """300 KB in a tag, a category or a source ref: stored or refused, never a 500."""
    big = "b" * 300_000
    for extra in (
        {"tags": [big]},
        {"category": big},
        {"sources": [big]},
        {"sources": [{"type": "doc", "ref": big}]},
    ):
        reply = api.post("wiki_create", {"content": "x", "front_matter": fm(**extra)})
        assert reply.status in (201, 400, 413), reply.text[:300]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"content": "\xff", "front_matter": {"title": "x", "type": "concept"}}',
        b'{"content": "\xc3\x28"}',
        b'{"content": "\xed\xa0\x80"}',  # a surrogate encoded as UTF-8 bytes: not UTF-8
        b"\xef\xbb\xbf\xff",
    ],
)
def test_invalid_utf8_is_a_400_invalid_json(api: Api, raw: bytes) -> None:
    """A body that is not UTF-8 is a 400 invalid_json."""
    reply = api.post("wiki_create", data=raw)
    assert_contract_error(reply, 400)
    assert reply.json["code"] == "invalid_json"


@pytest.mark.parametrize(
    "where",
    [
        '"content": "\\ud800 suelto"',
        '"content": "ok", "slug": "a\\udfff"',
        '"content": "ok", "front_matter": {"title": "t\\udc00", "type": "concept"}',
        '"content": "ok", "front_matter": {"title": "t", "type": "concept", "tags": ["\\ud83d"]}',
        '"content": "ok", "front_matter": {"title": "t", "type": "x", "sources": ["\\ud800.py"]}',
        '"content": "ok", "front_matter": {"title": "t", "type": "concept", "\\ud800": 1}',
    ],
)
def test_lone_surrogate_escapes_are_a_400(api: Api, where: str) -> None:
    """A \\ud800-style escape that pairs with nothing cannot be stored as text: a 400, not a 500."""
    reply = api.post("wiki_create", data="{" + where + "}")
    assert_contract_error(reply, 400)


def test_paired_surrogate_escapes_are_text(api: Api) -> None:
    """An escaped surrogate pair is one character (an emoji) and is stored as such."""
    raw = (
        '{"content": "libros \\ud83d\\udcda",'
        ' "front_matter": {"title": "Emoji \\ud83d\\udcda %s", "type": "concept"}}'
    )
    reply = api.post("wiki_create", data=raw % uuid.uuid4().hex[:6])
    assert reply.status == 201, reply.text
    assert api.store.pages.get(reply.json["slug"]).content == "libros 📚"


def test_control_characters_never_give_a_500(api: Api) -> None:
    """NUL and other control characters in content, title and tags are stored or refused."""
    controls = "".join(chr(c) for c in range(32)) + "\x7f\u2028\u2029\ufeff"
    reply = api.post(
        "wiki_create",
        {
            "content": f"# T\n\n{controls}",
            "front_matter": fm(title=f"T{controls}x", tags=[controls]),
        },
    )
    assert reply.status in (201, 400), reply.text[:300]
    if reply.status == 201:
        stored = api.store.pages.get(reply.json["slug"])
        assert stored.content == f"# T\n\n{controls}"
    slugged = api.post("wiki_create", {"slug": "a\x00b", "content": "x", "front_matter": fm()})
    assert_contract_error(slugged, 400)


def test_odd_json_values_in_every_field_never_give_a_500(api: Api) -> None:
    """Every field given every kind of JSON value: only 2xx or the contract's 4xx."""
    values: list[Any] = [
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
    slug = api.post("wiki_create", {"content": "x", "front_matter": fm()}).json["slug"]
    for value in values:
        for key in FRONT_MATTER_KEYS:
            reply = api.post("wiki_create", {"content": "x", "front_matter": fm(**{key: value})})
            assert reply.status in (201, 400), (key, value, reply.text[:200])
            reply = api.post("wiki_update", {"slug": slug, "update_metadata": {key: value}})
            assert reply.status in (200, 400), (key, value, reply.text[:200])
        for key in ("slug", "content", "front_matter"):
            reply = api.post("wiki_create", {"content": "x", "front_matter": fm(), key: value})
            assert reply.status in (201, 400, 409), (key, value, reply.text[:200])
        for key in ("slug", "content", "update_metadata", "expected_version"):
            reply = api.post("wiki_update", {"slug": slug, key: value})
            assert reply.status in (200, 400, 404, 409), (key, value, reply.text[:200])


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_front_matter = st.fixed_dictionaries(
    {},
    optional={
        "title": _json | st.text(max_size=40),
        "type": _json | st.sampled_from(["concept", "guide", " Runbook "]),
        "status": _json | st.sampled_from(["draft", "active", "archived"]),
        "sources": _json,
        "related": _json,
        "tags": _json,
        "category": _json,
        "generated": _json | st.fixed_dictionaries({"by": _json, "at": _json}),
    },
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.fixed_dictionaries(
        {},
        optional={
            "slug": _json,
            "content": _json | st.text(max_size=50),
            "front_matter": _front_matter | _json,
        },
    )
)
def test_any_json_create_body_gives_201_or_a_contract_4xx(
    client: Any, body: dict[str, Any]
) -> None:
    """Fuzzed wiki_create bodies (through the test client, SQLite) never give a 500."""
    reply = client("wiki_create").post(
        "/",
        data=json.dumps(body),
        headers={
            "Authorization": "Bearer test-token-0123456789",
            "Content-Type": "application/json",
        },
    )
    assert reply.status_code in (201, 400, 409, 413), reply.get_data(as_text=True)[:300]
    payload = reply.get_json()
    if reply.status_code >= 400:
        assert {"error", "code"} <= set(payload) <= {"error", "code", "field"}
