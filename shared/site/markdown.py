"""Markdown to HTML for the site: markdown-it-py's safe preset plus ``[[wiki links]]``.

``render_body`` depends on the page's own text only: each wiki link becomes a marker
(an HTML comment no page text can produce, since raw HTML is off and ``<`` is always
escaped) that ``links.resolve`` later turns into a link once the whole site is known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from shared import wikilinks
from shared.slugs import slugify

# Schemes refused in links and images. ``data:`` is refused even for images: a page
# never needs to inline one, and SVG data URLs are a known script vector.
_BAD_SCHEMES = ("javascript:", "vbscript:", "file:", "data:")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_MKDOCS_ID = re.compile(r"\s*\{\s*#([A-Za-z][\w.-]*)[^}]*\}\s*$")
_LANG = re.compile(r"[a-z0-9_+#.-]{1,40}")
MARKER = "<!--wl:{}-->"
MARKER_RE = re.compile(r"<!--wl:(\d+)-->")


@dataclass(frozen=True, slots=True)
class WikiLink:
    """One ``[[target]]`` or ``[[target|text]]`` as written (target stripped, not checked)."""

    target: str
    text: str | None


@dataclass(frozen=True, slots=True)
class Body:
    """A page's HTML with wiki-link markers, and the links the markers stand for."""

    html: str
    links: tuple[WikiLink, ...]
    leading_h1: str | None = None  # text of a level-1 heading that opens the body

    def targets(self) -> list[str]:
        """Distinct wiki-link targets, in order of first appearance."""
        return list(dict.fromkeys(link.target for link in self.links))


def validate_link(url: str) -> bool:
    """False for script-capable schemes, however the URL hides them (case, controls)."""
    probe = _CONTROL.sub("", url).lower()
    return not probe.startswith(_BAD_SCHEMES)


def _wikilink(state: StateInline, silent: bool) -> bool:
    """Inline rule: a wiki link (``shared.wikilinks``), outside code. In a table cell the
    table rule has already unescaped ``[[target\\|text]]``'s pipe."""
    start = state.pos
    src = state.src
    if not src.startswith("[[", start) or state.linkLevel > 0:
        return False
    end = src.find("]]", start + 2)
    if end < 0 or end > state.posMax:
        return False
    inner = src[start + 2 : end]
    if not wikilinks.is_link(inner):
        return False
    if not silent:
        target, text = wikilinks.split(inner)
        token = state.push("wikilink", "", 0)
        token.meta = {"target": target, "text": text}
    state.pos = end + 2
    return True


def _render_wikilink(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    meta = tokens[idx].meta
    found: list[WikiLink] = env.setdefault("wikilinks", [])
    found.append(WikiLink(meta["target"], meta["text"]))
    return MARKER.format(len(found) - 1)


def _heading_ids(state: StateCore) -> None:
    """Give headings ids: MkDocs' ``{ #id }`` when written (and removed), else from the text."""
    used: set[str] = set()
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or i + 1 >= len(tokens):
            continue
        inline = tokens[i + 1]
        explicit = _MKDOCS_ID.search(inline.content)
        if explicit:
            inline.content = inline.content[: explicit.start()]
            children = inline.children or []
            if children and children[-1].type == "text":
                children[-1].content = _MKDOCS_ID.sub("", children[-1].content)
        base = explicit.group(1) if explicit else (slugify(inline.content) or "section")
        anchor, n = base, 2
        while anchor in used:
            anchor, n = f"{base}-{n}", n + 1
        used.add(anchor)
        token.attrSet("id", anchor)
        if i == 0 and token.tag == "h1":
            state.env["leading_h1"] = inline.content.strip()


def _fence_language(state: StateCore) -> None:
    """Keep only a fence's language word, lower-cased (``Python hl_lines="2"`` -> ``python``)."""
    for token in state.tokens:
        if token.type == "fence" and token.info:
            word = token.info.split(maxsplit=1)[0].lower() if token.info.strip() else ""
            token.info = word if _LANG.fullmatch(word) else ""


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The one configured parser (``js-default``: raw HTML off, tables on)."""
    md = MarkdownIt("js-default", {"html": False, "linkify": False, "typographer": False})
    md.validateLink = validate_link  # type: ignore[method-assign]
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.add_render_rule("wikilink", _render_wikilink)
    md.core.ruler.push("heading_ids", _heading_ids)
    md.core.ruler.push("fence_language", _fence_language)
    return md


def render_body(content: str) -> Body:
    """The page body as HTML with wiki-link markers (safe: no raw HTML, no script links)."""
    env: dict[str, Any] = {}
    html = markdown().render(content, env)
    return Body(html=html, links=tuple(env.get("wikilinks", ())), leading_h1=env.get("leading_h1"))
