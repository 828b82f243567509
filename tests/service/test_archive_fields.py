"""archive's per-field checks and the local triage's refusals, without HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functions.test_archive import BODY, question, sources, unique
from tests.service.conftest import Call


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"answer": "a"}, 400, "question"),
        ({"question": "   ", "answer": "a"}, 400, "question"),
        ({"question": 3, "answer": "a"}, 400, "question"),
        ({"question": "q" * 2001, "answer": "a"}, 400, "question"),
        ({"question": "q"}, 400, "answer"),
        ({"question": "q", "answer": " \n "}, 400, "answer"),
        ({"question": "q", "answer": ["a"]}, 400, "answer"),
        ({"question": "q", "answer": "a" * (512 * 1024 + 1)}, 413, "answer"),
        ({"question": "q", "answer": "a", "sources": "slug"}, 400, "sources"),
        ({"question": "q", "answer": "a", "sources": ["ok", "Not A Slug"]}, 400, "sources[1]"),
        ({"question": "q", "answer": "a", "sources": ["ok", {"title": "x"}]}, 400, "sources[1]"),
        ({"question": "q", "answer": "a", "sources": [True]}, 400, "sources[0]"),
        ({"question": "q", "answer": "a", "model": ""}, 400, "model"),
        ({"question": "q", "answer": "a", "mode": "help"}, 400, "mode"),
    ],
    ids=repr,
)
def test_malformed_input_is_an_error_at_the_field(
    call: Call, body: dict[str, Any], status: int, field: str
) -> None:
    """Malformed input is a 400 (413 for a too large answer) naming the field."""
    got, reply = call("archive", body)
    assert (got, reply["field"]) == (status, field)


def test_a_question_of_2000_chars_is_accepted(call: Call) -> None:
    """The limit is inclusive: exactly 2,000 characters is a question."""
    status, reply = call(
        "archive", {"question": "¿" + "a" * 1998 + "?", "answer": "corto", "sources": sources()}
    )
    assert (status, reply["reason"]) == (200, "triage:short")


@pytest.mark.parametrize(
    ("text", "srcs", "reason"),
    [
        (BODY + " No encontré información sobre el caso asíncrono.", None, "triage:gap"),
        (BODY + " Solo puedo responder parcialmente.", None, "triage:partial"),
        (BODY, ["solo-una"], "triage:sources"),
        ("Usa `status_code=201`.", None, "triage:short"),
    ],
)
def test_triage_refusals(call: Call, text: str, srcs: list[Any] | None, reason: str) -> None:
    """The local triage refuses gaps, partial answers, one source and short answers."""
    body = {"question": question(), "answer": text + f" {unique()}", "sources": srcs or sources()}
    status, reply = call("archive", body)
    assert (status, reply["archived"], reply["reason"]) == (200, False, reason)
