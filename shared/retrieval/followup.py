"""A follow-up question read as a standalone one (pure), for retrieval and the answer.

"¿y con cookies?" after "¿cómo autentico con OAuth2?" finds nothing on its own. Offline,
the previous question's salient words (what is left once stopwords, question words and
the words the follow-up already has are gone) are carried over, but only when the new
question reads as a follow-up: it is short, or it opens like one ("y …", "¿y …?",
"what about …", "and …", "also …"). A long question that opens on its own is a new
subject and is left alone. The rule and its numbers were chosen on follow-up pairs of
three real wikis (``bench/followups.py``; figures in bench/README.md).

With a model, ``condense`` asks it to rewrite the follow-up instead (the prompt is in
``prompts.condense_prompt``); this module's rule stays the offline reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.retrieval.tokens import STOPWORDS
from shared.text.fold import fold

# At most this many content words and a question is a follow-up whatever its opening
# ("modal ones?"). bench/followups.py: 2 is the best of 2/4/6 on R@1 of the pairs
# (fastapi-es 0.85 against 0.77): from 4 on, a terse new subject ("¿cómo sirvo archivos
# estáticos?") was taken for a follow-up and got the old subject's words.
SHORT_WORDS = 2
# How follow-ups open, folded (accents off, lower case), before the first content word.
_OPENINGS = (
    "y ",
    "e ",
    "o ",
    "pero ",
    "tambien ",
    "ademas ",
    "entonces ",
    "y si ",
    "and ",
    "or ",
    "but ",
    "also ",
    "so ",
    "what about ",
    "how about ",
    "what if ",
    "and if ",
    "then ",
)
# Question words that carry no subject: never carried over.
_QUESTION_WORDS_TEXT = """
    como cual cuales cuando donde que quien quienes cuanto cuanta cuantos cuantas
    puedo podemos debo hago hacer hace funciona sirve explica explicame dime
    what which how why where who whom whose when does do did is are can could should
"""
_QUESTION_WORDS = frozenset(_QUESTION_WORDS_TEXT.split())
_WORD = re.compile(r"[^\W_][\w./:-]*[\w]|[^\W_]", re.UNICODE)


def content_words(text: str) -> list[str]:
    """The words of ``text`` that say its subject, as written, first occurrence first."""
    seen: dict[str, str] = {}
    for word in _WORD.findall(text):
        key = fold(word)
        if len(key) < 2 or key in STOPWORDS or key in _QUESTION_WORDS or key in seen:
            continue
        seen[key] = word
    return list(seen.values())


def is_follow_up(question: str) -> bool:
    """Whether ``question`` leans on the one before it (see the module docstring)."""
    opening = fold(question).lstrip("¿¡ \t\"'(").replace("?", " ")
    if any(opening.startswith(o) for o in _OPENINGS):
        return True
    return len(content_words(question)) <= SHORT_WORDS


def standalone(question: str, earlier: Sequence[str]) -> str:
    """``question`` with the subject of the questions before it (``earlier``, oldest
    first) when it is a follow-up; the question itself otherwise."""
    if not earlier or not is_follow_up(question):
        return question
    # The previous question as it was itself read: a thread keeps its subject over turns.
    context = standalone(earlier[-1], earlier[:-1])
    has = {fold(w) for w in content_words(question)}
    carried = [w for w in content_words(context) if fold(w) not in has]
    if not carried:
        return question
    return f"{question.rstrip()} ({' '.join(carried)})"
