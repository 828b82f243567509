"""Markdown's inline markup read as plain text, for places that show text, not HTML.

``inline`` keeps the words and drops the marks: ``**bold**`` and ``*it*`` lose their
asterisks, ``code`` its backticks, ``[text](url)`` and ``[[slug|text]]`` keep their text,
images and HTML tags go. Identifiers keep their underscores (``user_id``).
"""

from __future__ import annotations

import re

from shared.text import wikilinks

_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_UNDERSCORE = re.compile(r"(?<!\w)_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)")
_CODE = re.compile(r"(`+)(.+?)\1")
_TAG = re.compile(r"</?[A-Za-z][^>\n]{0,200}>")
_HEADING = re.compile(r"(?:^|(?<=\s))#{1,6}\s+")


def inline(text: str) -> str:
    """``text`` without inline Markdown marks, whitespace collapsed (see the module)."""
    text = wikilinks.as_text(text)
    text = _IMAGE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _CODE.sub(lambda m: m.group(2).strip(), text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _UNDERSCORE.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = _HEADING.sub("", text)
    return " ".join(text.split())
