"""Pure pieces of streaming and follow-ups: SSE both ways, sentence pieces, the follow-up rule."""

from __future__ import annotations

import json

from shared.providers.answerers import sentence_pieces
from shared.providers.sse import encode, events
from shared.retrieval.followup import content_words, is_follow_up, standalone


def test_an_encoded_event_reads_back_whatever_its_text() -> None:
    """Newlines and a blank line inside the text cannot end our event early."""
    data = {"text": "una línea\n\nevent: done\ndata: {}"}
    (name, raw), *rest = list(events(encode("delta", data).splitlines()))
    assert rest == []
    assert (name, json.loads(raw)) == ("delta", data)


def test_events_follow_the_whatwg_fields() -> None:
    """Comments skipped, multi-line data joined, the default name, a last event unterminated."""
    lines = [": keep-alive", "data: a", "data: b", "", "event: x", "data:c"]
    assert list(events(lines)) == [("message", "a\nb"), ("x", "c")]


def test_sentence_pieces_join_to_the_text_and_keep_code_whole() -> None:
    """Each sentence (with its citation) is a piece; a fenced block is one piece."""
    fence = "```sh\npip install x.y\nrun. it\n```"
    text = f"Primero se instala. [1] Luego se configura: \n\n{fence}\n\nY listo [2]."
    pieces = list(sentence_pieces(text))
    assert "".join(pieces) == text
    assert [p.strip() for p in pieces if "pip" in p] == [fence]
    assert pieces[0] == "Primero se instala. [1] "


def test_content_words_drop_question_and_stop_words() -> None:
    """What a question is about, as written."""
    assert content_words("¿Cómo configuro el pool de conexiones?") == [
        "configuro",
        "pool",
        "conexiones",
    ]
    assert content_words("How do I mock an HTTP call?") == ["mock", "HTTP", "call"]


def test_follow_ups_are_short_or_open_like_one() -> None:
    """'¿y con cookies?', 'what about in tests?' lean on the turn before; a long one does not."""
    assert is_follow_up("¿y con cookies?")
    assert is_follow_up("what about in tests?")
    assert is_follow_up("And how would I do the same with a background worker thread pool?")
    assert not is_follow_up("¿Cómo se despliega la aplicación con Docker en un servidor propio?")


def test_standalone_carries_the_previous_subject_only_into_follow_ups() -> None:
    """The previous question's words the follow-up lacks, in brackets; a new subject alone."""
    earlier = ["¿Cómo autentico usuarios con OAuth2?"]
    assert standalone("¿y con cookies?", earlier) == "¿y con cookies? (autentico usuarios OAuth2)"
    new = "¿Cómo se despliega la aplicación con Docker en un servidor propio?"
    assert standalone(new, earlier) == new
    assert standalone("¿y con cookies?", []) == "¿y con cookies?"


def test_a_thread_keeps_its_subject_over_turns() -> None:
    """The previous question is itself read in its context: the subject survives two follow-ups."""
    earlier = ["How do I mock an HTTP call in a Textual app?", "what about in tests?"]
    assert "Textual" in standalone("and with pytest?", earlier)
