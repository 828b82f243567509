"""The wiki-link syntax in one place: ``[[target]]``, ``[[target|text]]``, ``[[target\\|text]]``.

A link sits on one line and holds no ``[`` or ``]``; the escaped pipe is how a link with
a text is written in a table cell. The site's Markdown rule finds links (it knows code
spans and blocks); plain-text views (search excerpts, offline answers) show each link as
its text, or its target when it has none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

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


def spans(text: str) -> list[tuple[int, int]]:
    """Where the wiki links of ``text`` stand (start, end): a sentence is not cut inside
    one (its text may hold a ':' or a '.')."""
    return [m.span() for m in _LINK.finditer(text) if is_link(m.group(1))]


def as_text(markdown: str) -> str:
    """``markdown`` with each wiki link replaced by what it shows."""

    def shown(match: re.Match[str]) -> str:
        if not is_link(match.group(1)):
            return match.group(0)
        target, text = split(match.group(1))
        return text or target

    return _LINK.sub(shown, markdown)


# ``[text](#anchor)``, not an image, its text one line without brackets.
_PAGE_ANCHOR = re.compile(r"(?<!!)\[([^\[\]\n]+)\]\(#([^()\s|]+)\)")
# Fenced blocks and code spans, which hold code, not links.
_CODE = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(?s:.*?)(?:^ {0,3}\1[ \t]*$|\Z)"  # a fenced block
    r"|(`+)(?!`)[^\n]*?(?<!`)\2(?!`)",  # a code span, on one line
    re.M,
)


def anchor_links(markdown: str, slug: str) -> str:
    """``markdown`` of the page ``slug`` with its links to its own headings
    (``[text](#anchor)``) written as wiki links (``[[slug#anchor|text]]``): a passage
    quoted outside its page (an answer, the widget) still leads to the heading."""
    if "](#" not in markdown:
        return markdown
    out: list[str] = []
    last = 0
    for code in _CODE.finditer(markdown):
        out.append(_anchored(markdown[last : code.start()], slug))
        out.append(code.group(0))
        last = code.end()
    out.append(_anchored(markdown[last:], slug))
    return "".join(out)


def _anchored(text: str, slug: str) -> str:
    def wiki(match: re.Match[str]) -> str:
        line = text[text.rfind("\n", 0, match.start()) + 1 :]
        pipe = "\\|" if line.lstrip().startswith("|") else "|"  # a table row's cell
        return f"[[{slug}#{match.group(2)}{pipe}{match.group(1)}]]"

    return _PAGE_ANCHOR.sub(wiki, text)


def targets(markdown: str) -> set[str]:
    """The pages (slugs, anchors left off) that ``markdown``'s wiki links without a text
    name, outside code."""
    found: set[str] = set()
    for part in _outside_code(markdown):
        for match in _LINK.finditer(part):
            if is_link(match.group(1)):
                target, text = split(match.group(1))
                if text is None:
                    found.add(target.partition("#")[0])
    return found


def titled(markdown: str, titles: Mapping[str, str]) -> str:
    """``markdown`` with each wiki link that has no text given its page's title
    (``[[concept—x]]`` -> ``[[concept—x|Title]]``): whoever shows it (the widget, the site,
    a terminal) shows the title as the link's words, never the slug. Code is left alone;
    a link to a page ``titles`` does not know keeps its form."""
    if "[[" not in markdown:
        return markdown

    def in_part(part: str) -> str:
        def named(match: re.Match[str]) -> str:
            if not is_link(match.group(1)):
                return match.group(0)
            target, text = split(match.group(1))
            title = titles.get(target.partition("#")[0]) if text is None else None
            if not title or any(c in title for c in "[]|\n"):
                return match.group(0)
            line = part[part.rfind("\n", 0, match.start()) + 1 : match.start()]
            pipe = "\\|" if line.lstrip().startswith("|") else "|"  # a table row's cell
            return f"[[{target}{pipe}{title}]]"

        return _LINK.sub(named, part)

    out: list[str] = []
    last = 0
    for code in _CODE.finditer(markdown):
        out += [in_part(markdown[last : code.start()]), code.group(0)]
        last = code.end()
    out.append(in_part(markdown[last:]))
    return "".join(out)


def _outside_code(markdown: str) -> list[str]:
    parts: list[str] = []
    last = 0
    for code in _CODE.finditer(markdown):
        parts.append(markdown[last : code.start()])
        last = code.end()
    parts.append(markdown[last:])
    return parts
