"""Fence metadata in every spelling, applied: what the reader sees is the code and its title.

The info string's title (``title="a.py"``, VitePress's ``[a.py]``), line highlights
(``{1,3-5}``, ``hl_lines="1 3"``, ``mark=``) and line-number switches
(``:line-numbers``, ``showLineNumbers``) become the stored form's
``lang hl_lines="…" title="…"``. In the code, Shiki's notation comments
(``// [!code ++]``, ``[!code --]``, ``focus``, ``highlight``, ``error``, ``warning``,
``word:…``), Docusaurus' magic comments (``// highlight-next-line``,
``highlight-start``/``-end``) and twoslash directives (``// ---cut---``, ``// @errors``,
``// @noErrors``, ``// ^?``) are applied (a highlighted line, a removed line) and never
shown. VitePress's ``[!!code`` escape shows the notation itself. In a Markdown fence
only a directive in Markdown's own comments (HTML's, JSX's, front matter's ``#``) is
applied, as the generators do: a ``// highlight-next-line`` there is an example's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shared import mkdocs
from shared.importing.source import Source
from shared.importing.tree import Context

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_LABEL = re.compile(r"\[([^\]\n]+)\]")
_BRACES = re.compile(r"\{([\d,\s-]*)\}")
_TITLE = re.compile(r"""\btitle=(?:"([^"\n]*)"|'([^'\n]*)'|(\S+))""")
_MARKS = re.compile(r"""\b(?:hl_lines|mark|highlight)=(?:"([^"\n]*)"|'([^'\n]*)'|(\S+))""")
_SWITCH = re.compile(r"(?:^|\s):?(?:no-)?line-numbers(?:=\d+)?|\bshowLineNumbers(?:=\d+)?\b")
_LANG = re.compile(r"[\w+#.-]{1,40}")
_MARKDOWN = frozenset({"md", "markdown", "mdx", "vue-html"})
# A directive in a comment syntax Markdown itself has: HTML's, JSX's (MDX) and, in front
# matter, YAML's ``#`` (Docusaurus' table for ``md``: "text uses HTML, front matter uses
# bash"). In a Markdown fence only these apply; ``// …`` there is an example's text.
_MARKDOWN_DIRECTIVE = re.compile(
    r"(?:<!--|\{/\*|#)\s*(?:\[!code |highlight-(?:next-line|start|end)|this-will-error|error-next)"
)
# A notation comment in any comment syntax, alone at the end of a line.
_COMMENT = r"(?://|#|--|;|%|<!--|/\*|\{/\*)\s*"
_COMMENT_END = r"\s*(?:-->|\*/\}|\*/)?"
_NOTATION = re.compile(
    r"[ \t]*" + _COMMENT + r"\[!code (\+\+|--|focus|highlight|hl|error|warning|word:[^\]]*)"
    r"(?::\d+)?\]" + _COMMENT_END + r"[ \t]*$"
)
_MAGIC = re.compile(
    r"^[ \t]*" + _COMMENT + r"(highlight-next-line|highlight-start|highlight-end|"
    r"this-will-error|error-next-line)" + _COMMENT_END + r"[ \t]*$"
)
_CUT = re.compile(r"^[ \t]*//[ \t]*-{3}cut(?:-before|-after|-start|-end)?-{3}[ \t]*$")
_TWOSLASH = re.compile(
    r"^[ \t]*//[ \t]*(?:@(?:errors|noErrors|filename|log|warn|error|annotate|"
    r"noErrorTruncation|strict\w*|target|module\w*|jsx|lib|types|esModuleInterop|"
    r"allowJs|checkJs|declaration|showEmit|showEmittedFile|keepNotations|noImplicitAny)"
    r"\b.*|\s*\^[?|!^~]*.*)$"
)


def run(source: Source, context: Context) -> str:
    """Every fence's info in the stored form and its notation applied (module docstring)."""
    if not source.fences:
        return source.text
    lines: list[str | None] = list(source.lines)
    changed = False
    for first, last, _info in source.fences:
        changed |= _fence(lines, first, last, context)
    if not changed:
        return source.text
    return "\n".join(line for line in lines if line is not None)


@dataclass
class _Walk:
    """What one pass over a fence's body found: the lines to highlight, where a twoslash
    cut falls, and whether anything was applied."""

    highlight: list[int] = field(default_factory=list)
    cut: int | None = None
    after: int | None = None
    pending_next: bool = False
    in_range: bool = False
    touched: bool = False


def _fence(lines: list[str | None], first: int, last: int, context: Context) -> bool:
    opening = _FENCE.match(lines[first] or "")
    if opening is None:
        return False
    indent, marker, info = opening.groups()
    closing = last - 1
    has_close = closing > first and _closing(lines[closing] or "", marker)
    body = list(range(first + 1, closing if has_close else last))
    walk = _Walk()
    markdown = _lang(info) in _MARKDOWN
    for n in body:
        # Markdown shown as code (a page about the notation) keeps a directive written
        # in another language's comments: there it is the text.
        if markdown and not _MARKDOWN_DIRECTIVE.search(lines[n] or ""):
            _unescape(lines, n, walk)
            _mark(n, walk)
        else:
            _apply_line(lines, n, walk, context)
    _cut(lines, body, walk)
    shown = [n for n in body if lines[n] is not None]
    info_new, ranged = _info(info, context)
    numbers = sorted({shown.index(n) + 1 for n in walk.highlight if n in shown})
    for a, b in ranged:
        numbers += [k for k in range(a, min(b, a + 500) + 1) if k not in numbers]
    if info_new is None and not walk.touched:
        return False
    lang, title = info_new if info_new is not None else (_lang(info), _title_of(info))
    lines[first] = f"{indent}{marker}{_info_line(lang, numbers, title)}"
    return True


def _unescape(lines: list[str | None], n: int, walk: _Walk) -> None:
    """VitePress's ``[!!code`` escape: the line shows the notation itself."""
    line = lines[n] or ""
    if "[!!code" in line:
        lines[n] = line.replace("[!!code", "[!code")
        walk.touched = True


def _apply_line(lines: list[str | None], n: int, walk: _Walk, context: Context) -> None:
    """One line of code: a directive applied and dropped, or the line kept (and marked)."""
    line = lines[n] or ""
    if _CUT.match(line):
        walk.touched = True
        context.constructs.count("twoslash", "mapped")
        if "cut-after" in line or "cut-end" in line:
            walk.after = n
        else:
            walk.cut = n
        lines[n] = None
        return
    if _TWOSLASH.match(line):
        walk.touched = True
        context.constructs.count("twoslash", "dropped")
        lines[n] = None
        return
    magic = _MAGIC.match(line)
    if magic:
        walk.touched = True
        context.constructs.count("fence:magic-comment", "mapped")
        word = magic.group(1)
        walk.pending_next = word in ("highlight-next-line", "error-next-line", "this-will-error")
        walk.in_range = word == "highlight-start" or (walk.in_range and word != "highlight-end")
        lines[n] = None
        return
    notation = _NOTATION.search(line)
    if notation:
        walk.touched = True
        context.constructs.count("shiki-notation", "mapped")
        what = notation.group(1)
        if what == "--":
            lines[n] = None  # a removed line of a diff: the code as it is after
            return
        lines[n] = line[: notation.start()].rstrip()
        if what != "focus" and not what.startswith("word:"):
            walk.highlight.append(n)
    _unescape(lines, n, walk)
    _mark(n, walk)


def _mark(n: int, walk: _Walk) -> None:
    """Line ``n`` highlighted when a magic comment before it asked for it."""
    if walk.pending_next or walk.in_range:
        walk.highlight.append(n)
        walk.pending_next = False


def _cut(lines: list[str | None], body: list[int], walk: _Walk) -> None:
    """Twoslash's cuts: the code before ``---cut---`` and after ``---cut-after---`` goes."""
    for n in body:
        before = walk.cut is not None and n < walk.cut
        beyond = walk.after is not None and n > walk.after
        if (before or beyond) and lines[n] is not None:
            lines[n] = None


def _info_line(lang: str, numbers: list[int], title: str | None) -> str:
    out = lang
    if numbers:
        out += f' hl_lines="{" ".join(str(k) for k in sorted(set(numbers)))}"'
    if title:
        out += f' title="{title.replace(chr(34), chr(39))}"'
    return out


def _closing(line: str, marker: str) -> bool:
    match = _FENCE.match(line)
    return bool(
        match and match.group(2).startswith(marker[0] * len(marker)) and not match.group(3).strip()
    )


def _lang(info: str) -> str:
    first = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    first = re.split(r"[\[{:]", first, maxsplit=1)[0]
    return first.lower() if _LANG.fullmatch(first) else ""


def _title_of(info: str) -> str | None:
    match = _TITLE.search(info)
    if match:
        return next(g for g in match.groups() if g is not None)
    label = _LABEL.search(info)
    return label.group(1).strip() if label else None


def _info(
    info: str, context: Context
) -> tuple[tuple[str, str | None] | None, list[tuple[int, int]]]:
    """((lang, title), highlighted line ranges) when the info holds metadata in a spelling
    the stored form does not use, else (None, ranges)."""
    stripped = info.strip()
    if not stripped or stripped.startswith("{"):
        return None, []  # MyST directives and attribute-only infos are read elsewhere
    ranges: list[tuple[int, int]] = []
    foreign = False
    for match in _BRACES.finditer(stripped):
        ranges += list(mkdocs.parse_ranges(match.group(1).replace(",", " ")))
        foreign = True
    for match in _MARKS.finditer(stripped):
        value = next(g for g in match.groups() if g is not None)
        ranges += list(mkdocs.parse_ranges(value.strip("{}").replace(",", " ")))
    if _LABEL.search(stripped) or _SWITCH.search(stripped):
        foreign = True
    if not foreign:
        return None, ranges
    context.constructs.count("fence-meta", "mapped")
    return (_lang(stripped), _title_of(stripped)), ranges
