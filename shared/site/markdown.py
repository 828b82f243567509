"""Markdown to HTML for the site: markdown-it-py plus wiki links, MkDocs blocks and a little HTML.

``render_body`` depends on the page's own text (and slug) only: each wiki link and each
include becomes a marker (an HTML comment no page text can produce: raw HTML outside a
small allowlist is escaped) that ``links.resolve`` and the renderer later turn into links
once the whole site and its settings are known. The output goes through nh3 last.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt, rules_inline
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from shared import mkdocs
from shared.site import highlight, md_blocks, md_html
from shared.text import wikilinks
from shared.text.slugs import SEPARATOR, slug_from_path, slugify

# Schemes refused in links and images. ``data:`` is refused even for images: a page
# never needs to inline one, and SVG data URLs are a known script vector.
_BAD_SCHEMES = ("javascript:", "vbscript:", "file:", "data:")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_MKDOCS_ID = mkdocs.EXPLICIT_ID  # the stored form's ids, one rule with the import
_LANG = re.compile(r"[a-z0-9_+#.-]{1,40}")
MARKER = "<!--wl:{}-->"
MARKER_RE = re.compile(r"<!--wl:(\d+)-->")
# A link with Markdown text: its rendered text between an opening and a closing marker.
LINK_MARKERS_RE = re.compile(r"<!--wl:(\d+)-->|<!--wlo:(\d+)-->(.*?)<!--wlc:\2-->", re.S)

MAX_NESTING = 20  # blocks inside blocks (quotes, lists, admonitions) and inline nesting
MAX_WIKILINK = 500  # characters between [[ and ]]: a slug, an anchor and a short text


class RenderTimeout(Exception):
    """A page took longer than its budget to render."""


@dataclass(frozen=True, slots=True)
class WikiLink:
    """One link to another page as written (target stripped, not checked).

    ``[[target]]``, ``[[target#anchor|text]]``, or a relative Markdown link to a ``.md``
    file, whose target is the slug that file would have been imported under.
    """

    target: str
    text: str | None
    anchor: str | None = None


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading as the renderer gave it its id: level, id, the words its id was made of
    (``label``), and the text a reader sees in pieces, each code or not (the TOC shows a
    heading's code as code and an HTML tag the page shows as text, as text)."""

    level: int
    anchor: str
    label: str
    pieces: tuple[tuple[str, bool], ...]  # (text, is code), in order

    @property
    def text(self) -> str:
        return " ".join("".join(text for text, _ in self.pieces).split())


def _headings(env: Mapping[str, Any]) -> tuple[Heading, ...]:
    """The headings ``_heading_ids`` met, once the parse is over (the allowlist has then
    decided which inline tags are kept and which are shown as text)."""
    out = []
    for level, anchor, inline in env.get("headings", ()):
        pieces: list[tuple[str, bool]] = []
        for child in inline.children or ():
            if child.type in ("text", "code_inline"):
                pieces.append((child.content, child.type == "code_inline"))
            elif child.type == "html_inline":
                pieces.append((md_html.shown_text(child), False))
        label = "".join(c.content for c in inline.children or () if c.type in _LABEL_TOKENS)
        out.append(Heading(level, anchor, " ".join(label.split()), tuple(pieces)))
    return tuple(out)


_LABEL_TOKENS = ("text", "code_inline")


@dataclass(frozen=True, slots=True)
class Body:
    """A page's HTML with markers, and the links and includes the markers stand for."""

    html: str
    links: tuple[WikiLink, ...]
    leading_h1: str | None = None  # text of a level-1 heading that opens the body
    includes: tuple[mkdocs.Include, ...] = field(default=())
    headings: tuple[Heading, ...] = field(default=())  # in order, with their ids

    def targets(self) -> list[str]:
        """Distinct wiki-link targets, in order of first appearance."""
        return list(dict.fromkeys(link.target for link in self.links))


def validate_link(url: str) -> bool:
    """False for script-capable schemes, however the URL hides them (case, controls)."""
    probe = _CONTROL.sub("", url).lower()
    return not probe.startswith(_BAD_SCHEMES)


# -- the time budget ----------------------------------------------------------------------


def _deadline_inline(state: StateInline, silent: bool) -> bool:
    _check_deadline(state.env)
    return False


def _deadline_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    _check_deadline(state.env)
    return False


def _check_deadline(env: MutableMapping[str, Any]) -> None:
    """Every 256 calls, stop the page if it is past its deadline (a rule that always fails)."""
    budget = env.get("budget")
    if budget is None:
        return
    budget[1] -= 1
    if budget[1] <= 0:
        budget[1] = 256
        if time.perf_counter() > budget[0]:
            raise RenderTimeout


def _closable(rule: Any) -> Any:
    """``rule`` (link, image) tried only where a link can still close: a ``](`` or ``][``
    later in the text, or any ``]`` when the page defines references (``[label]`` alone is
    then a link). Otherwise markdown-it scans ahead from every ``[``: seconds for a page of
    brackets."""

    def guarded(state: StateInline, silent: bool) -> bool:
        cached = state.env.get("last_close")
        if cached is None or cached[0] is not state.src:
            src = state.src
            cached = (src, max(src.rfind("]("), src.rfind("][")), src.rfind("]"))
            state.env["last_close"] = cached
        last = cached[2] if state.env.get("references") else cached[1]
        if last <= state.pos:
            return False
        return bool(rule(state, silent))

    return guarded


# -- wiki links -----------------------------------------------------------------------------


def _wikilink(state: StateInline, silent: bool) -> bool:
    """Inline rule: a wiki link (``shared.text.wikilinks``), outside code; its text is Markdown.

    In a table cell the table rule has already unescaped ``[[target\\|text]]``'s pipe.
    """
    start = state.pos
    src = state.src
    if not src.startswith("[[", start) or state.linkLevel > 0:
        return False
    # Look for the closing brackets within the longest link there can be: a page of
    # unclosed ``[[`` then costs linear time, not a scan to the end for each.
    end = src.find("]]", start + 2, min(state.posMax, start + 2 + MAX_WIKILINK))
    if end < 0:
        return False
    inner = src[start + 2 : end]
    if not wikilinks.is_link(inner):
        return False
    target, text = wikilinks.split(inner)
    target, _, anchor = target.partition("#")
    if not target:
        return False
    if not silent:
        token = state.push("wikilink_open", "", 1)
        token.meta = {"target": target, "text": text, "anchor": anchor or None, "inner": bool(text)}
        if text:
            # Parse the text as inline Markdown (code, emphasis) inside the link.
            text_start = start + 2 + inner.index("|") + 1
            text_start += len(src[text_start:end]) - len(src[text_start:end].lstrip())
            text_end = text_start + len(text)
            old_pos, old_max = state.pos, state.posMax
            state.pos, state.posMax = text_start, text_end
            state.linkLevel += 1
            state.md.inline.tokenize(state)
            state.linkLevel -= 1
            state.pos, state.posMax = old_pos, old_max
        close = state.push("wikilink_close", "", -1)
        close.meta = token.meta
    state.pos = end + 2
    return True


def _render_wikilink_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    meta = tokens[idx].meta
    found: list[WikiLink] = env.setdefault("wikilinks", [])
    found.append(WikiLink(meta["target"], meta["text"] or None, meta["anchor"]))
    meta["number"] = len(found) - 1
    return ("<!--wlo:{}-->" if meta["inner"] else MARKER).format(meta["number"])


def _render_wikilink_close(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    meta = tokens[idx].meta
    return f"<!--wlc:{meta['number']}-->" if meta["inner"] else ""


def _markdown_file_links(state: StateCore) -> None:
    """Relative links to ``.md`` files are links to the pages those files were imported as.

    The target is the slug the file's path would get, relative to the page's own path as
    its slug spells it (folders joined with '—'): a link the site cannot resolve is then
    reported as broken instead of being published as a dead ``.md`` link.
    """
    page_slug = state.env.get("slug", "")
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        _markdown_links_of(block, page_slug)
        _plain_link_texts(block)


def _markdown_links_of(block: Token, page_slug: str) -> None:
    stack: list[Token] = []
    for token in block.children or ():
        if token.type == "link_open":
            target = page_target(page_slug, str(token.attrGet("href") or ""))
            if target is None:
                stack.append(token)
                continue
            slug, anchor = target
            token.type = "wikilink_open"
            token.meta = {"target": slug, "text": "", "anchor": anchor, "inner": True}
            stack.append(token)
        elif token.type == "link_close" and stack:
            opening = stack.pop()
            if opening.type == "wikilink_open":
                token.type = "wikilink_close"
                token.meta = opening.meta
        elif stack and stack[-1].type == "wikilink_open" and token.type == "text":
            stack[-1].meta["text"] += token.content


def _plain_link_texts(block: Token) -> None:
    """A link whose text is plain text keeps it in ``WikiLink.text`` (escaped when resolved)
    instead of rendered markup between two markers."""
    children = block.children or []
    keep: list[Token] = []
    for i, token in enumerate(children):
        if (
            token.type == "text"
            and 0 < i < len(children) - 1
            and children[i - 1].type == "wikilink_open"
            and children[i + 1].type == "wikilink_close"
        ):
            children[i - 1].meta["inner"] = False
            children[i - 1].meta["text"] = token.content
            continue
        keep.append(token)
    block.children = keep


def page_target(page_slug: str, href: str) -> tuple[str, str | None] | None:
    """(slug, anchor) of a relative link to a Markdown file, seen from ``page_slug``."""
    folder = "/".join(page_slug.split(SEPARATOR)[:-1])
    found = mkdocs.relative_path(folder, unquote(href))
    if found is None or not found[0].lower().endswith((".md", ".markdown")):
        return None
    joined, anchor = found
    if joined.startswith("../"):
        return joined, anchor or None  # outside the wiki: never a slug, so always broken
    return slug_from_path(joined) or joined, anchor or None


# -- headings and code ----------------------------------------------------------------------


def _heading_ids(state: StateCore) -> None:
    """Give headings ids: MkDocs' ``{ #id }`` when written (and removed), else from the text.

    Linear in the number of headings, however many share a text.
    """
    used: set[str] = set()
    next_suffix: dict[str, int] = {}
    headings: list[tuple[int, str, Token]] = state.env.setdefault("headings", [])
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type == "paragraph_open" and i + 1 < len(tokens):
            _paragraph_id(tokens, i, used)
            continue
        if token.type != "heading_open" or i + 1 >= len(tokens):
            continue
        inline = tokens[i + 1]
        explicit = _explicit_id(inline)
        text = "".join(c.content for c in inline.children or () if c.type in _LABEL_TOKENS)
        base = explicit or (slugify(text[:200]) or "section")
        anchor, n = base, next_suffix.get(base, 2)
        if anchor in used:
            anchor = f"{base}-{n}"
            while anchor in used:
                n += 1
                anchor = f"{base}-{n}"
            next_suffix[base] = n + 1
        used.add(anchor)
        token.attrSet("id", anchor)
        headings.append((int(token.tag[1:]), anchor, inline))
        if i == 0 and token.tag == "h1":
            state.env["leading_h1"] = inline.content.strip()


def _explicit_id(inline: Token) -> str | None:
    """MkDocs' trailing ``{ #id }`` of a heading's or paragraph's text, removed; or None."""
    brace = inline.content.rfind("{")
    explicit = _MKDOCS_ID.match(inline.content, brace) if brace >= 0 else None
    if explicit is None:
        return None
    inline.content = inline.content[:brace].rstrip()
    children = inline.children or []
    if children and children[-1].type == "text":
        tail = children[-1].content
        cut = tail.rfind("{")
        if cut >= 0 and _MKDOCS_ID.match(tail, cut):
            children[-1].content = tail[:cut].rstrip()
    return explicit.group(1)


def _paragraph_id(tokens: list[Token], i: int, used: set[str]) -> None:
    """A paragraph's ``{ #id }`` (what the import writes for attr_list ids and anchors) as
    its id; a tight list's paragraph is not shown, so its list item takes it. Headings
    come first: an id a heading also has stays the heading's."""
    inline = tokens[i + 1]
    if "{" not in inline.content or inline.type != "inline":
        return
    anchor = _explicit_id(inline)
    if anchor is None or anchor in used:
        return
    holder = tokens[i]
    if holder.hidden:
        holder = next((t for t in reversed(tokens[:i]) if t.type == "list_item_open"), holder)
    if holder.hidden or holder.attrGet("id"):
        return
    holder.attrSet("id", anchor)
    used.add(anchor)


def _fence_language(state: StateCore) -> None:
    """Keep a fence's language word, lower-cased (``Python hl_lines="2"`` -> ``python``),
    and remember its highlighted lines and title."""
    for token in state.tokens:
        if token.type == "fence" and token.info:
            info = token.info
            word = info.split(maxsplit=1)[0].lower() if info.strip() else ""
            hl = re.search(r"""hl_lines=["']([\d\s-]+)["']""", info)
            # ``[a.py]``: VitePress' form, in a page stored before the import mapped it.
            title = re.search(r'title="([^"\n]{1,200})"', info) or re.search(
                r"\[([^\[\]\n]{1,200})\]", info
            )
            token.meta = {
                "highlight": mkdocs.parse_ranges(hl.group(1)) if hl else (),
                "title": title.group(1) if title else None,
                "first": int(m.group(1)) if (m := re.search(r'linenums="(\d+)"', info)) else 1,
            }
            token.info = word if _LANG.fullmatch(word) else ""


def _render_fence(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    """A fence as ``<pre><code>``: coloured by Pygments when its language is known and the
    page's highlighting budget allows (``shared.site.highlight``), its ``hl_lines`` wrapped
    in ``<span class="hll">``, its ``title`` above it."""
    token = tokens[idx]
    meta = token.meta or {}
    code = token.content
    _check_deadline({"budget": [env["budget"][0], 1]} if "budget" in env else {})
    budget = env.setdefault("highlight_budget", highlight.Budget())
    coloured = highlight.lines(code, token.info) if token.info and budget.take(code) else None
    if coloured is None:
        lines = [escape(line, quote=False) for line in code.split("\n")]
        if code.endswith("\n"):
            lines.pop()
    else:
        lines = coloured
    highlight_lines = meta.get("highlight", ())
    first = meta.get("first", 1)
    code_html = "".join(
        f'<span class="hll">{line}\n</span>'
        if highlight_lines and mkdocs.in_ranges(first + n, highlight_lines)
        else line + "\n"
        for n, line in enumerate(lines)
    )
    if not code.endswith("\n") and code_html.endswith("\n"):
        code_html = code_html[:-1]
    classes = [f"language-{token.info}"] if token.info else []
    if coloured is not None:
        classes.append("hl")
    language = f' class="{" ".join(classes)}"' if classes else ""
    block = f"<pre><code{language}>{code_html}</code></pre>\n"
    if meta.get("title"):
        caption = f'<p class="code-title"><code>{escape(meta["title"])}</code></p>\n'
        return f'<div class="code-block">\n{caption}{block}</div>\n'
    return block


# -- task lists -----------------------------------------------------------------------------------

_TASK = re.compile(r"\[([ xX])\][ \t]+")


def _task_lists(state: StateCore) -> None:
    """GitHub task lists: a list item whose text opens with ``[ ]`` or ``[x]`` shows a
    checkbox (disabled: the page records a state, it is no form), not the brackets."""
    tokens = state.tokens
    for i in range(len(tokens) - 2):
        item, para, inline = tokens[i], tokens[i + 1], tokens[i + 2]
        if item.type != "list_item_open" or para.type != "paragraph_open":
            continue
        children = inline.children if inline.type == "inline" else None
        if not children or children[0].type != "text":
            continue
        match = _TASK.match(children[0].content)
        if match is None:
            continue
        children[0].content = children[0].content[match.end() :]
        box = Token("task_checkbox", "input", 0)
        box.meta = {"checked": match.group(1) != " "}
        children.insert(0, box)
        item.attrSet("class", "task-list-item")


def _render_task_checkbox(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    checked = " checked" if (tokens[idx].meta or {}).get("checked") else ""
    return f'<input type="checkbox" class="task-list-item-checkbox" disabled{checked}> '


# -- the parser ---------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The one configured parser (``js-default``, tables on; raw HTML parsed, then escaped
    unless allowlisted)."""
    md = MarkdownIt(
        "js-default",
        {"html": True, "linkify": False, "typographer": False, "maxNesting": MAX_NESTING},
    )
    md.validateLink = validate_link  # type: ignore[method-assign]
    md.block.ruler.before("table", "deadline", _deadline_block)
    md.inline.ruler.before("text", "deadline", _deadline_inline)
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.at("link", _closable(rules_inline.link))
    md.inline.ruler.at("image", _closable(rules_inline.image))
    md.core.ruler.push("markdown_file_links", _markdown_file_links)
    md.core.ruler.push("heading_ids", _heading_ids)
    md.core.ruler.push("fence_language", _fence_language)
    md.core.ruler.push("task_lists", _task_lists)
    for name, rule in {
        "task_checkbox": _render_task_checkbox,
        "wikilink_open": _render_wikilink_open,
        "wikilink_close": _render_wikilink_close,
        "fence": _render_fence,
    }.items():
        md.add_render_rule(name, rule)
    md_blocks.plugin(md)
    md_html.plugin(md)
    return md


def heading_anchors(content: str) -> list[tuple[int, str, str]]:
    """(level, text, id) of each heading of a page body, the id being the one the site
    renders (``_heading_ids``: MkDocs' ``{ #id }`` or the text's slug, numbered apart
    when repeated). An answer's source links its heading through this, so the site and
    ``ask`` can never disagree on an anchor."""
    env: dict[str, Any] = {"slug": ""}
    markdown().parse(mkdocs.canonical(content), env)
    return [(h.level, h.label, h.anchor) for h in _headings(env)]


def render_body(
    content: str, slug: str = "", budget: float | None = None, *, colour: bool = True
) -> Body:
    """The page body as HTML with markers (safe: allowlisted HTML only, no script links).

    ``slug`` places the page for relative ``.md`` links; past ``budget`` seconds the
    parse stops with ``RenderTimeout``. Without ``colour`` every fence is plain: the
    same text, none of Pygments' spans (for a reader of words, not a page to publish).
    """
    env: dict[str, Any] = {"slug": slug}
    if not colour:
        env["highlight_budget"] = highlight.Budget(0)
    if budget is not None:
        env["budget"] = [time.perf_counter() + budget, 256]
    text = mkdocs.canonical(content)
    if budget is not None:
        _check_deadline({"budget": [env["budget"][0], 1]})
    html = md_html.sanitize(markdown().render(text, env))
    return Body(
        html=html,
        links=tuple(env.get("wikilinks", ())),
        leading_h1=env.get("leading_h1"),
        includes=tuple(env.get("includes", ())),
        headings=_headings(env),
    )
