"""MkDocs blocks and includes for the site's parser (``shared.mkdocs`` is their syntax).

``/// kind | title`` … ``///`` renders as an admonition, a ``<details>`` or one tab of
a set; ``{* path *}`` as a marker the renderer turns into an example block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from shared import mkdocs

INCLUDE_MARKER = "<!--inc:{}-->"
INCLUDE_RE = re.compile(r"<!--inc:(\d+)-->")


def plugin(md: MarkdownIt) -> None:
    """Register the block and include rules, tab grouping and their renderers."""
    md.block.ruler.before(
        "fence", "mkblock", _block, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    md.block.ruler.before("fence", "mkinclude", _include, {"alt": ["paragraph"]})
    md.core.ruler.push("tab_sets", _tab_sets)
    for name, rule in {
        "mkblock_open": _render_block_open,
        "mkblock_title_open": _render_block_title_open,
        "mkblock_title_close": _render_block_title_close,
        "mkblock_close": _render_block_close,
        "mkinclude": _render_include,
    }.items():
        md.add_render_rule(name, rule)


def _block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """``/// kind | title`` … ``///`` (``shared.mkdocs``): admonitions, details, tabs."""
    if state.is_code_block(start_line):
        return False
    pos = state.bMarks[start_line] + state.tShift[start_line]
    line = state.src[pos : state.eMarks[start_line]]
    if not line.startswith("///"):
        return False
    opening = mkdocs.BLOCK_OPEN.match(line)
    if not opening:
        return False
    if silent:
        return True
    fence = opening.group(1)
    kind = opening.group(2).lower()
    options: dict[str, str] = {}
    body_start = start_line + 1
    while body_start < end_line:
        text = state.src[state.bMarks[body_start] : state.eMarks[body_start]]
        option = mkdocs.BLOCK_OPTION.match(text)
        if not option or state.sCount[body_start] - state.blkIndent < 4:
            break
        options[option.group(1).lower()] = option.group(2)
        body_start += 1
    close_line, closed = _block_end(state, body_start, end_line, fence)

    old_parent, old_max = state.parentType, state.lineMax
    state.parentType = "mkblock"
    state.lineMax = close_line
    meta = {"kind": kind, "options": options, "fence": fence}
    token = state.push("mkblock_open", "div", 1)
    token.meta, token.block, token.map = meta, True, [start_line, close_line]
    title = (opening.group(3) or "").strip() or kind.capitalize()
    state.push("mkblock_title_open", "", 1).meta = meta
    inline = state.push("inline", "", 0)
    inline.content, inline.map, inline.children = title, [start_line, start_line + 1], []
    state.push("mkblock_title_close", "", -1).meta = meta
    state.md.block.tokenize(state, body_start, close_line)
    state.push("mkblock_close", "div", -1).meta = meta
    state.parentType, state.lineMax = old_parent, old_max
    state.line = close_line + (1 if closed else 0)
    return True


def _block_end(state: StateBlock, line: int, end_line: int, fence: str) -> tuple[int, bool]:
    """The line that closes a block opened with ``fence`` (blocks of that fence nest)."""
    depth = 0
    code = ""
    while line < end_line:
        start = state.bMarks[line] + state.tShift[line]
        text = state.src[start : state.eMarks[line]]
        if text and state.sCount[line] < state.blkIndent:
            return line, False  # a line left of the block's container ends it
        if state.sCount[line] - state.blkIndent < 4:
            opening = mkdocs.FENCE.match(text)
            if code:
                if opening and opening.group(2).startswith(code) and not opening.group(3).strip():
                    code = ""
            elif opening:
                code = opening.group(2)
            elif text.startswith(fence):
                close = mkdocs.BLOCK_CLOSE.match(text)
                if close and close.group(1) == fence:
                    if depth == 0:
                        return line, True
                    depth -= 1
                elif (nested := mkdocs.BLOCK_OPEN.match(text)) and nested.group(1) == fence:
                    depth += 1
        line += 1
    return end_line, False


def _include(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """``{* path … *}`` on its own line: an example block (see ``renderer``)."""
    if state.is_code_block(start_line):
        return False
    pos = state.bMarks[start_line] + state.tShift[start_line]
    text = state.src[pos : state.eMarks[start_line]]
    if not text.startswith("{*"):
        return False
    include = mkdocs.parse_include(text)
    if include is None:
        return False
    if not silent:
        token = state.push("mkinclude", "", 0)
        token.meta, token.block, token.map = (
            {"include": include},
            True,
            [start_line, start_line + 1],
        )
        state.line = start_line + 1
    return True


def _render_include(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    found: list[mkdocs.Include] = env.setdefault("includes", [])
    found.append(tokens[idx].meta["include"])
    return INCLUDE_MARKER.format(len(found) - 1) + "\n"


def _tab_sets(state: StateCore) -> None:
    """Consecutive ``tab`` blocks form one set (a ``new: true`` tab starts another)."""
    tokens = state.tokens
    previous_close = -2
    current: dict[str, Any] | None = None
    for i, token in enumerate(tokens):
        if token.type == "mkblock_open" and token.meta["kind"] == "tab":
            joined = previous_close == i - 1 and current is not None
            if joined and _truthy(token.meta["options"].get("new", "")):
                joined = False
            if not joined:
                number = state.env["tabsets"] = state.env.get("tabsets", 0) + 1
                current = {"number": number, "count": 0, "last": token.meta}
            assert current is not None
            current["count"] += 1
            current["last"] = token.meta
            token.meta.update(set=current, index=current["count"])
        elif token.type == "mkblock_close" and token.meta["kind"] == "tab":
            previous_close = i


def _truthy(value: str) -> bool:
    return value.strip().lower() in ("true", "yes", "1", "on")


def _block_kind(meta: dict[str, Any]) -> tuple[str, str]:
    """(element, class) of a block: admonition (div), details, or tab."""
    kind = meta["kind"]
    if kind == "tab":
        return "tab", ""
    if kind in ("details", "admonition"):
        flavour = meta["options"].get("type", "").strip().lower() or "note"
        flavour = flavour if re.fullmatch(r"[a-z][\w-]{0,30}", flavour) else "note"
        return ("details" if kind == "details" else "div"), flavour
    return "div", kind


def _render_block_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    meta = tokens[idx].meta
    element, flavour = _block_kind(meta)
    if element == "tab":
        tabset, index = meta["set"], meta["index"]
        name = f"tabs-{tabset['number']}"
        checked = " checked" if index == 1 else ""
        opening = '<div class="tabbed-set">\n' if index == 1 else ""
        return (
            f'{opening}<input type="radio" class="tab" name="{name}" id="{name}-{index}"{checked}>'
        )
    if element == "details":
        is_open = " open" if _truthy(meta["options"].get("open", "")) else ""
        return f'<details class="admonition {flavour}"{is_open}>'
    return f'<div class="admonition {flavour}">\n'


def _render_block_title_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    meta = tokens[idx].meta
    element, _ = _block_kind(meta)
    if element == "tab":
        return f'<label for="tabs-{meta["set"]["number"]}-{meta["index"]}">'
    return "<summary>" if element == "details" else '<p class="admonition-title">'


def _render_block_title_close(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    element, _ = _block_kind(tokens[idx].meta)
    if element == "tab":
        return '</label><div class="tabbed-content">\n'
    return "</summary>\n" if element == "details" else "</p>\n"


def _render_block_close(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    meta = tokens[idx].meta
    element, _ = _block_kind(meta)
    if element == "tab":
        last = meta["set"]["last"] is meta
        return "</div>\n" + ("</div>\n" if last else "")
    return "</details>\n" if element == "details" else "</div>\n"
