"""Hostile bytes never give a 500: parser bombs, bad encodings, lone surrogates.

Hostile values inside fields (nesting, huge strings, control characters, odd JSON
values) are checked where fields are, in tests/service.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
