"""ask's per-field checks: the contract's limits, each a 400 at its field."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import Call

INVALID = [
    ({}, "question"),
    ({"question": "   "}, "question"),
    ({"question": 42}, "question"),
    ({"question": "\u200b\u200d"}, "question"),
    ({"question": "x" * 2001}, "question"),
    ({"question": "hola", "limit": 0}, "limit"),
    ({"question": "hola", "limit": 21}, "limit"),
    ({"question": "hola", "limit": "6"}, "limit"),
    ({"question": "hola", "limit": True}, "limit"),
    ({"question": "hola", "limit": 2.5}, "limit"),
    ({"question": "hola", "source_type": 5}, "source_type"),
    ({"question": "hola", "category": ["a"]}, "category"),
    ({"question": "hola", "tag": {"a": 1}}, "tag"),
    (["question"], None),
    ("hola", None),
]


@pytest.mark.parametrize(("body", "field"), INVALID, ids=repr)
def test_invalid_input_is_a_400_at_the_field(call: Call, body: Any, field: str | None) -> None:
    """Each contract limit is a 400 validation_error naming the field (none for a non-object)."""
    status, reply = call("ask", body)
    assert (status, reply["code"], reply.get("field")) == (400, "validation_error", field)
    assert reply["error"]


def test_a_question_of_exactly_2000_chars_is_accepted(call: Call) -> None:
    """The limit is inclusive."""
    assert call("ask", {"question": "a" * 2000})[0] == 200


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"question": "hola", "mode": "anything"}, "help"),
        ({"question": "hola", "mode": 5}, "help"),
        ({"question": "hola", "mode": "tutor"}, "tutor"),
        ({"question": "hola", "limit": None, "tag": " ", "unknown": 1}, "help"),
    ],
    ids=repr,
)
def test_mode_is_help_unless_tutor_and_lax_fields_are_tolerated(
    call: Call, body: dict[str, Any], expected: str
) -> None:
    """Anything but "tutor" is help; a null limit is the default; unknown keys are ignored."""
    status, reply = call("ask", body)
    assert (status, reply["mode"]) == (200, expected)
