"""POST /ask through both routes: the test client and a real `biblioteca serve` process."""

from __future__ import annotations

import uuid

from tests.fixtures.server import Api


def test_ask_finds_a_fresh_page_through_either_route(api: Api) -> None:
    """A page written through wiki_create is the first source of the next question."""
    marker = f"QX_{uuid.uuid4().hex[:8].upper()}"
    page = {
        "content": f"# Variable {marker}\n\nLa variable `{marker}` limita los reintentos.",
        "front_matter": {"title": f"Variable {marker}", "type": "reference"},
    }
    created = api.post("wiki_create", page)
    assert created.status == 201, created.text
    reply = api.post("ask", {"question": f"¿Qué limita {marker}?"}, token=None)
    assert reply.status == 200, reply.text
    assert reply.json["sources"][0]["slug"] == created.json["slug"]
    assert reply.json["archive"] == {"attempted": False, "reason": "not-requested"}
    refused = api.post("ask", {"question": "hola", "archive": True}, token=None)
    assert refused.json["archive"] == {"attempted": False, "reason": "unauthorized"}


def test_ask_errors_keep_the_contract_body_through_either_route(api: Api) -> None:
    """A bad limit is a 400 at `limit`; a text body is a 415."""
    reply = api.post("ask", {"question": "hola", "limit": 99}, token=None)
    assert (reply.status, reply.json["code"], reply.json["field"]) == (
        400,
        "validation_error",
        "limit",
    )
    media = api.post("ask", None, data=b"hola", content_type="text/plain", token=None)
    assert media.status == 415
