"""Token roles per route, on both stores: an agent's token proposes and reads, never
publishes; a curator's and a writer's write as before (API.md "Token roles")."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from shared.bootstrap import reset
from shared.config import get_settings
from tests.fixtures.contract import assert_error
from tests.fixtures.secrets import NAMED_TOKENS, NAMED_TOKENS_VALUE
from tests.fixtures.server import Api, Reply

AGENT = NAMED_TOKENS["bot"]
CURATOR = NAMED_TOKENS["cura"]


@pytest.fixture
def roles(api: Api, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    """The api with the named tokens (and their roles) configured in this process too."""
    monkeypatch.setenv("BIBLIOTECA_API_TOKENS", NAMED_TOKENS_VALUE)
    get_settings.cache_clear()
    reset()
    return api


def _create(api: Api, status: str, token: str = CURATOR) -> Reply:
    return api.post(
        "wiki_create",
        {
            "content": "# Roles\n\nUna página para probar los roles.",
            "front_matter": {
                "title": f"Roles {uuid.uuid4().hex[:8]}",
                "type": "guide",
                "status": status,
            },
        },
        token=token,
    )


def _forbidden(reply: Reply) -> None:
    assert_error(reply, 403, "forbidden")
    assert "agent" in reply.json["error"]


def test_an_agent_token_cannot_publish_a_draft_by_a_status_change(roles: Api) -> None:
    """The reported bypass: an agent's wiki_update {"status": "active"} of a draft is a
    403 forbidden naming the role, and the draft stays a draft."""
    draft = _create(roles, "draft")
    assert draft.status == 201, draft.text
    slug = draft.json["slug"]
    reply = roles.post(
        "wiki_update", {"slug": slug, "update_metadata": {"status": "active"}}, token=AGENT
    )
    _forbidden(reply)
    assert reply.json["field"] == "update_metadata.status"
    assert roles.store.pages.get(slug).front_matter.get("status") == "draft"


def test_an_agent_token_cannot_edit_or_archive_an_active_page(roles: Api) -> None:
    """An agent's edit of an active page's text, and its archiving of one: 403, unchanged."""
    page = _create(roles, "active")
    assert page.status == 201, page.text
    slug = page.json["slug"]
    edit = roles.post("wiki_update", {"slug": slug, "content": "# Roles\n\nplantado"}, token=AGENT)
    _forbidden(edit)
    archive = roles.post(
        "wiki_update", {"slug": slug, "update_metadata": {"status": "archived"}}, token=AGENT
    )
    _forbidden(archive)
    stored = roles.store.pages.get(slug)
    assert (stored.version, stored.front_matter.get("status")) == (1, "active")


def test_an_agent_token_creates_and_edits_drafts_only(roles: Api) -> None:
    """An agent may create a draft and edit it; creating an active page is a 403."""
    _forbidden(_create(roles, "active", token=AGENT))
    draft = _create(roles, "draft", token=AGENT)
    assert draft.status == 201, draft.text
    edit = roles.post(
        "wiki_update",
        {
            "slug": draft.json["slug"],
            "content": "# Roles\n\nmejor",
            "update_metadata": {"tags": ["x"]},
        },
        token=AGENT,
    )
    assert edit.status == 200, edit.text


def test_an_agent_token_may_not_rebuild_or_index_code(roles: Api) -> None:
    """Functions that are not reading or proposing refuse an agent before its body."""
    for name in ("rebuild", "index_code"):
        _forbidden(roles.post(name, {}, token=AGENT))


def test_a_curator_token_writes_like_a_writer(roles: Api) -> None:
    """A curator publishes a draft through wiki_update as any writer may."""
    draft = _create(roles, "draft")
    reply = roles.post(
        "wiki_update",
        {"slug": draft.json["slug"], "update_metadata": {"status": "active"}},
        token=CURATOR,
    )
    assert reply.status == 200, reply.text
