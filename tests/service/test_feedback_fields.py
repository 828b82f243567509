"""feedback's per-field checks, and what a recorded vote holds (SQLite, no HTTP)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.store.sqlite import SqliteStore
from tests.service.conftest import Call

PAGE = {
    "slug": "runbook—pool",
    "content": "# Pool de conexiones\n\nLa variable `DB_POOL_SIZE` fija cuántas conexiones "
    "abiertas mantiene el servicio con la base de datos.",
    "front_matter": {"title": "Pool de conexiones", "type": "runbook", "status": "active"},
}
QUESTION = "¿Cuántas conexiones abiertas mantiene el pool de conexiones?"
ID = "0" * 32

INVALID = [
    ({"answer_id": ID}, "rating"),
    ({"answer_id": ID, "rating": "meh"}, "rating"),
    ({"answer_id": ID, "rating": 1}, "rating"),
    ({"answer_id": ID, "rating": "up", "reason": "outdated"}, "reason"),
    ({"answer_id": ID, "rating": "down", "reason": "ugly"}, "reason"),
    ({"answer_id": ID, "rating": "down", "comment": "x" * 2001}, "comment"),
    ({"answer_id": ID, "rating": "down", "comment": 5}, "comment"),
    ({"rating": "down"}, "answer_id"),
    ({"answer_id": "../etc", "rating": "down"}, "answer_id"),
    ({"answer_id": "a" * 65, "rating": "down"}, "answer_id"),
    ({"slug": "Not A Slug", "rating": "down"}, "slug"),
    ({"answer_id": ID, "rating": "down", "question": "q" * 2001}, "question"),
    ({"answer_id": ID, "rating": "down", "stars": 5}, "stars"),
    (["rating"], None),
]


@pytest.mark.parametrize(("body", "field"), INVALID, ids=repr)
def test_invalid_input_is_a_400_at_the_field(call: Call, body: Any, field: str | None) -> None:
    """Each rule of the contract is a 400 validation_error naming its field."""
    status, reply = call("feedback", body)
    assert (status, reply["code"], reply.get("field")) == (400, "validation_error", field), reply
    assert reply["error"]


def test_a_comment_of_exactly_2000_chars_is_accepted(call: Call) -> None:
    """The comment limit is inclusive."""
    assert call("wiki_create", PAGE)[0] == 201
    body = {"slug": "runbook—pool", "rating": "down", "comment": "c" * 2000}
    assert call("feedback", body)[0] == 200


def test_unknown_answer_id_or_slug_is_a_404_at_the_field(call: Call) -> None:
    """An answer_id with no kept trace, or a slug with no page, is not_found at that field."""
    status, reply = call("feedback", {"answer_id": ID, "rating": "down"})
    assert (status, reply["code"], reply["field"]) == (404, "not_found", "answer_id")
    status, reply = call("feedback", {"slug": "runbook—nada", "rating": "down"})
    assert (status, reply["code"], reply["field"]) == (404, "not_found", "slug")


def test_a_vote_keeps_the_answers_trace_with_page_versions(call: Call, store: SqliteStore) -> None:
    """The recorded vote carries the trace: which page version produced the answer."""
    assert call("wiki_create", PAGE)[0] == 201
    answer = call("ask", {"question": QUESTION})[1]

    status, reply = call(
        "feedback",
        {"answer_id": answer["answer_id"], "rating": "down", "reason": "outdated", "comment": "x"},
    )

    assert status == 200
    assert reply == {"recorded": True, "id": reply["id"]}
    [item] = store.feedback.list()
    assert (item.id, item.rating, item.reason, item.comment) == (
        reply["id"],
        "down",
        "outdated",
        "x",
    )
    assert item.question == QUESTION
    assert item.trace is not None
    assert [(s.slug, s.version) for s in item.trace.sources] == [("runbook—pool", 1)]


def test_a_repeat_from_one_client_counts_once_and_the_last_vote_stands(
    call: Call, store: SqliteStore
) -> None:
    """Same client, same answer: the same id, one item, the latest rating."""
    assert call("wiki_create", PAGE)[0] == 201
    answer_id = call("ask", {"question": QUESTION})[1]["answer_id"]
    first = call("feedback", {"answer_id": answer_id, "rating": "up"})[1]
    second = call("feedback", {"answer_id": answer_id, "rating": "down", "reason": "unclear"})[1]
    assert first["id"] == second["id"]
    assert [(f.rating, f.reason) for f in store.feedback.list()] == [("down", "unclear")]


def test_votes_never_change_ranking(call: Call) -> None:
    """Sources and their scores are the same after a flood of 👎 on the answer."""
    assert call("wiki_create", PAGE)[0] == 201
    before = call("ask", {"question": QUESTION})[1]
    call("feedback", {"answer_id": before["answer_id"], "rating": "down", "reason": "incorrect"})
    call("feedback", {"slug": "runbook—pool", "rating": "down", "reason": "incorrect"})
    after = call("ask", {"question": QUESTION})[1]
    assert after["sources"] == before["sources"]
