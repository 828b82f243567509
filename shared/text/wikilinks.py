"""The wiki-link syntax in one place: ``[[target]]``, ``[[target|text]]``, ``[[target\\|text]]``.

A link sits on one line and holds no ``[`` or ``]``; the escaped pipe is how a link with
a text is written in a table cell. The site's Markdown rule finds links (it knows code
spans and blocks); plain-text views (search excerpts, offline answers) show each link as
its text, or its target when it has none.
"""

from __future__ import annotations

import re

_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")


def is_link(inner: str) -> bool:
    """Whether what stands between ``[[`` and ``]]`` can be a link."""
    return bool(inner.strip()) and not any(c in inner for c in "[]\n")


def split(inner: str) -> tuple[str, str | None]:
    """``target|text`` (or ``target\\|text``) -> (target, text or None), both stripped."""
    target, sep, text = inner.partition("|")
    if not sep:
        return inner.strip(), None
    return target.removesuffix("\\").strip(), text.strip() or None


def as_text(markdown: str) -> str:
    """``markdown`` with each wiki link replaced by what it shows."""

    def shown(match: re.Match[str]) -> str:
        if not is_link(match.group(1)):
            return match.group(0)
        target, text = split(match.group(1))
        return text or target

    return _LINK.sub(shown, markdown)
