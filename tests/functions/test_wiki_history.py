"""POST /wiki_history per route and status, on both stores: who wrote each version, with
the named credentials of BIBLIOTECA_API_TOKENS and the single BIBLIOTECA_API_TOKEN."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from shared.bootstrap import reset
from shared.config import get_settings
from tests.fixtures.contract import assert_error
from tests.fixtures.secrets import NAMED_TOKENS, NAMED_TOKENS_VALUE, TOKEN
from tests.fixtures.server import Api


@pytest.fixture
def named(api: Api, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    """The api with the named tokens configured in this process too (the client route)."""
    monkeypatch.setenv("BIBLIOTECA_API_TOKENS", NAMED_TOKENS_VALUE)
    get_settings.cache_clear()
    reset()
    return api


def _written_by_three(api: Api) -> str:
    title = f"Historia {uuid.uuid4().hex[:8]}"
    created = api.post(
        "wiki_create",
        {"content": "# H\n\nuno", "front_matter": {"title": title, "type": "guide"}},
        token=NAMED_TOKENS["ana"],
    )
    assert created.status == 201, created.text
    slug = str(created.json["slug"])
    tagged = api.post(
        "wiki_update",
        {"slug": slug, "update_metadata": {"tags": ["ci"]}},
        token=NAMED_TOKENS["ci-docs"],
    )
    assert tagged.status == 200, tagged.text
    edited = api.post("wiki_update", {"slug": slug, "content": "# H\n\ntres"}, token=TOKEN)
    assert edited.status == 200, edited.text
    return slug


def test_history_names_each_credential_newest_first(named: Api) -> None:
    """200 {slug, revisions}: each version with its time, the name of the token that wrote
    it (default for BIBLIOTECA_API_TOKEN) and what it changed; limit keeps the newest."""
    slug = _written_by_three(named)
    reply = named.post("wiki_history", {"slug": slug})
    assert reply.status == 200, reply.text
    assert reply.json["slug"] == slug
    revisions = reply.json["revisions"]
    assert [(r["version"], r["actor"]) for r in revisions] == [
        (3, "default"),
        (2, "ci-docs"),
        (1, "ana"),
    ]
    assert [r["changed"] for r in revisions[:2]] == [["content"], ["tags"]]
    assert all(r["at"].endswith("+00:00") for r in revisions)
    two = named.post("wiki_history", {"slug": slug, "limit": 2}, token=NAMED_TOKENS["ana"])
    assert [r["version"] for r in two.json["revisions"]] == [3, 2]


def test_history_needs_write_credentials(api: Api) -> None:
    """Who wrote what is not the widget's: no token, or a wrong one, is a 401."""
    assert_error(api.post("wiki_history", {"slug": "x"}, token=None), 401, "unauthorized")
    assert_error(api.post("wiki_history", {"slug": "x"}, token="wrong"), 401, "unauthorized")


def test_history_of_an_unknown_page_is_404(api: Api) -> None:
    """A slug that names no page is not_found at slug."""
    assert_error(api.post("wiki_history", {"slug": "nadie-aqui"}), 404, "not_found", "slug")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "slug"),
        ({"slug": "Not A Slug"}, "slug"),
        ({"slug": "ok", "limit": 0}, "limit"),
        ({"slug": "ok", "limit": 101}, "limit"),
        ({"slug": "ok", "limit": "5"}, "limit"),
        ({"slug": "ok", "limit": True}, "limit"),
        ({"slug": "ok", "since": 3}, "since"),
    ],
)
def test_a_bad_history_request_is_a_400_at_its_field(
    api: Api, body: dict[str, object], field: str
) -> None:
    """slug required and valid, limit an integer 1..100, no other key."""
    assert_error(api.post("wiki_history", body), 400, "validation_error", field)


def test_history_is_a_post_of_json(api: Api) -> None:
    """GET is a 405; a body not sent as JSON is a 415."""
    assert_error(api.post("wiki_history", {"slug": "x"}, method="GET"), 405, "method_not_allowed")
    reply = api.post("wiki_history", data="slug=x", content_type="text/plain")
    assert_error(reply, 415, "unsupported_media_type")
