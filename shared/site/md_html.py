"""The inline HTML a page may use, for the site's parser: an allowlist, balanced, sanitized.

Raw HTML is parsed (markdown-it's ``html`` option) only to find the allowlisted tags;
everything else is shown as text. The rendered body then goes through nh3 with exactly
the tags and attributes the renderer writes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape, unescape
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from shared.text.html_tags import ALLOWED_TAGS, INLINE_TAGS, VOID_TAGS

_TAG = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9-]*)((?:\s+[a-zA-Z_:][\w:.-]*"
    r"""(?:\s*=\s*(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*"))?)*)\s*(/?)>"""
)

# What nh3 lets through: the tags the body renderer writes, with their attributes, plus the
# allowlist above (title only). Anything else would be a bug here, and is dropped.
_SANITIZER_TAGS = {
    *ALLOWED_TAGS,
    *("p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "hr"),
    *("pre", "code", "em", "strong", "s", "a", "img", "table", "thead", "tbody"),
    *("tr", "th", "td", "div", "span", "input", "label"),
}
_SANITIZER_ATTRIBUTES = {
    **{tag: {"title"} for tag in INLINE_TAGS | {"summary"}},
    **{f"h{n}": {"id"} for n in range(1, 7)},
    "details": {"title", "class", "open"},
    "a": {"href", "title", "class"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "pre": {"class"},
    "div": {"class"},
    "span": {"class"},
    "p": {"class", "id"},
    "li": {"id", "class"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
    "input": {"type", "name", "id", "checked", "class", "disabled"},
    "label": {"for"},
}
_TITLE_ATTR = re.compile(r"""title="([^"]*)"|title='([^']*)'""")


def plugin(md: MarkdownIt) -> None:
    """Pair the allowlisted tags (after every other core rule) and render HTML tokens."""
    md.core.ruler.push("balance_html", _balance_html)
    md.add_render_rule("html_inline", _render_html_inline)
    md.add_render_rule("html_block", _render_html_block)


def sanitize(html: str) -> str:
    """The rendered body through nh3 with exactly the tags and attributes written above."""
    return nh3.clean(
        html,
        tags=_SANITIZER_TAGS,
        attributes=_SANITIZER_ATTRIBUTES,
        strip_comments=False,  # the markers; page text cannot write a comment (escaped)
        link_rel=None,
    )


@dataclass(slots=True)
class _Tag:
    name: str
    closing: bool
    attrs: str
    kept: bool = False


def _html_pieces(text: str) -> list[str | _Tag]:
    """Raw HTML as text runs and tags (allowlisted tags only: the rest stays text)."""
    pieces: list[str | _Tag] = []
    last = 0
    for match in _TAG.finditer(text):
        name = match.group(2).lower()
        if name not in ALLOWED_TAGS:
            continue
        if match.start() > last:
            pieces.append(text[last : match.start()])
        pieces.append(_Tag(name, bool(match.group(1)), match.group(3)))
        last = match.end()
    if last < len(text):
        pieces.append(text[last:])
    return pieces


def _balance_html(state: StateCore) -> None:
    """Keep an allowlisted tag only when it is closed in the same place it was opened.

    Inline tags pair within one paragraph (or cell); ``details``/``summary`` may hold
    Markdown between two HTML blocks of the same container. An unclosed or stray tag is
    shown as text, so no page can leave an element open over the rest of the site's page.
    """
    stack: list[tuple[_Tag, object]] = []
    # How many tags of a name are open in a scope: a closing tag with none open is
    # stray at once, so a run of strays never rescans the stack (linear time).
    open_tags: dict[tuple[int, str], int] = {}
    containers: list[object] = [None]

    def pop() -> _Tag:
        opened, where = stack.pop()
        open_tags[(id(where), opened.name)] -= 1
        return opened

    def visit(tag: _Tag, scope: object) -> None:
        if tag.name in VOID_TAGS:
            tag.kept = not tag.closing
            return
        key = (id(scope), tag.name)
        if not tag.closing:
            stack.append((tag, scope))
            open_tags[key] = open_tags.get(key, 0) + 1
            return
        if not open_tags.get(key):
            return  # nothing of that name open here: never close across a boundary
        # Tags opened above the match in this scope are left unclosed (shown as text).
        while (opened := pop()).name != tag.name:
            pass
        opened.kept = tag.kept = True

    def leave(scope: object) -> None:
        while stack and stack[-1][1] is scope:
            pop()

    for token in state.tokens:
        if token.nesting == 1 and token.block:
            containers.append(token)
        elif token.nesting == -1 and token.block:
            leave(containers.pop() if len(containers) > 1 else None)
        if token.type == "html_block":
            token.meta = {"pieces": _html_pieces(token.content)}
            for piece in token.meta["pieces"]:
                if isinstance(piece, _Tag):
                    visit(piece, containers[-1])
        elif token.type == "inline" and token.children:
            for child in token.children:
                if child.type == "html_inline":
                    pieces = _html_pieces(child.content)
                    child.meta = {"pieces": pieces}
                    for piece in pieces:
                        if isinstance(piece, _Tag):
                            visit(piece, token)
            leave(token)
    stack.clear()


def _tag_html(tag: _Tag) -> str:
    """An allowlisted tag as written again by us: its name and, at most, its title."""
    if not tag.kept:
        return ""
    if tag.closing:
        return f"</{tag.name}>"
    title = _TITLE_ATTR.search(tag.attrs)
    value = next((g for g in title.groups() if g is not None), "") if title else ""
    attribute = f' title="{escape(unescape(value))}"' if title else ""
    return f"<{tag.name}{attribute}>"


def _pieces_html(pieces: list[str | _Tag], raw: str) -> str:
    out = []
    for piece in pieces:
        if isinstance(piece, _Tag):
            out.append(_tag_html(piece) or escape(_tag_text(piece)))
        else:
            out.append(escape(unescape(piece), quote=False))
    return "".join(out) if pieces else escape(raw, quote=False)


def _tag_text(tag: _Tag) -> str:
    return f"<{'/' if tag.closing else ''}{tag.name}{tag.attrs}>"


def shown_text(token: Token) -> str:
    """The text an ``html_inline`` token shows a reader once parsed: its tags the
    allowlist keeps are markup, not text; the rest of it is text."""
    pieces = (token.meta or {}).get("pieces")
    if not pieces:
        return token.content
    return "".join(
        ("" if piece.kept else _tag_text(piece)) if isinstance(piece, _Tag) else unescape(piece)
        for piece in pieces
    )


def _render_html_inline(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    pieces = (token.meta or {}).get("pieces")
    if not pieces or not any(isinstance(p, _Tag) and p.kept for p in pieces):
        return escape(token.content, quote=False)
    return _pieces_html(pieces, token.content)


def _render_html_block(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    pieces = (token.meta or {}).get("pieces")
    if not pieces or not any(isinstance(p, _Tag) and p.kept for p in pieces):
        return f"<p>{escape(token.content.strip(), quote=False)}</p>\n"
    return _pieces_html(pieces, token.content)
