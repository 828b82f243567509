"""The prose words of a Markdown source, whatever its dialect: what a reader should read.

The import's fidelity check (``shared.services.fidelity``) compares these with the words
of the built page. They are read from the source *without* the importer's pipeline (its
own reading is what is being checked): line by line, code fences, comments, scripts,
styles, ``import``/``export`` lines, tags, ``{…}`` expressions and attribute lists, link
targets, images, includes and directive markers are removed, and what is left is cut into
words folded with ``shared.text.fold``. A directive's title (``:::note[Title]``,
``::: tip Title``, ``!!! note "Title"``, ``=== "Tab"``) is prose; its name is not.
An ordered list's numbers are the list's, not the text's.
Indented text is kept (in MkDocs it is an admonition's or a tab's body), so the built
side counts code blocks' words too (see ``page_words``).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache

from shared.text.fold import fold

_WORD = re.compile(r"[^\W_]+")  # letters and digits: ``snake_case`` is two words, both sides
_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})")
# Lines that are markup only: includes, link and abbreviation definitions, block closers.
_MARKUP_LINE = re.compile(
    r"""^[ \t]*(?:
        <<<[ \t].*                                   # VitePress code import
      | -*8<-+.*                                     # pymdownx.snippets
      | \[[^\]^][^\]]*\]:[ \t]*\S.*                  # [ref]: https://…
      | \*\[[^\]]+\]:.*                              # *[HTML]: abbreviation
      | /{3,}[ \t]*                                  # closes a pymdownx block
    )$""",
    re.X,
)
_IMPORT_EXPORT = re.compile(
    r"""(?mx)^[ \t]*(?:
        import[ \t]+(?:[\w*{$][^\n]*?\bfrom[ \t]*["'][^"'\n]*["'] | ["'][^"'\n]*["']) [^\n]*
      | import[ \t]*\{[^}]*\}[ \t]*from[ \t]*["'][^"'\n]*["'][^\n]*
      | export[ \t]+(?:const|let|var|function|default|async|class|type|interface|\{)[^\n]*
    )$"""
)
# ``:::name[Title]{attrs} rest``, ``::: tip Title``, ``::::`` closers, ``::: pkg.mod.Obj``.
_COLON_DIRECTIVE = re.compile(r"^[ \t>]*:{3,}[ \t]*([\w.-]*)[ \t]*(?:\[([^\]\n]*)\])?(.*)$")
_ADMONITION = re.compile(r"^([ \t>]*)(?:!!!|\?\?\?\+?)[ \t]*[\w-]*(?:[ \t]+[\w-]+)*[ \t]*(.*)$")
_TAB = re.compile(r"^([ \t>]*)===!?[ \t]*(.*)$")
_BLOCK = re.compile(r"^[ \t>]*/{3,}[ \t]*[\w-]+[ \t]*(?:\|(.*))?$")  # /// admonition | Title
# An API directive's options: the indented YAML under ``::: pkg.mod.Obj``.
_OPTIONS = re.compile(r"^[ \t]+(?:options|handler|selection|rendering)[ \t]*:")
_PAIRED = re.compile(r"<!--.*?-->|\{/\*.*?\*/\}|<(script|style)\b[^>]*>.*?</\1[ \t]*>", re.S | re.I)
_OPENERS = re.compile(r"<!--|-->|\{/\*|\*/\}|</?(?:script|style)\b[^>]*>", re.I)
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_IMAGE = re.compile(r"!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_LINK = re.compile(r"\[([^\]]{0,500})\](?:\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\]\n]*\])")
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s(?:[^<>{}\"']|\"[^\"]*\"|'[^']*'|\{[^{}]*\})*)?/?>")
_BRACES = re.compile(r"\{[^{}\n]*\}")  # expressions, attribute lists, ``{#id}``, Jinja
_LIST_NUMBER = re.compile(r"(?m)^([ \t>]*)\d{1,9}[.)](?=[ \t]|$)")  # the list shows its own
_SHORTCODE = re.compile(r"(?<![\w:]):[a-z0-9_+-]+:(?![\w:])")  # :smile:, :material-x:
_FENCED_INCLUDE = re.compile(r"\{\*.*?\*\}|\{!.*?!\}", re.S)  # FastAPI's and mdx_include's


def source_words(body: str) -> Counter[str]:
    """The folded prose words of a Markdown ``body`` (front matter already removed), with
    how many times each occurs."""
    text = "\n".join(_prose_lines(body.replace("\r\n", "\n").split("\n")))
    text = _FENCED_INCLUDE.sub(" ", text)
    text = _LIST_NUMBER.sub(r"\1", text)
    text = _IMPORT_EXPORT.sub(" ", text)
    text = _PAIRED.sub(" ", text)
    text = _OPENERS.sub(" ", text)  # an unclosed comment or script hides nothing after it
    text = _CODE_SPAN.sub(" ", text)
    text = _IMAGE.sub(" ", text)
    for _ in range(3):  # [text](url) inside a link's text, e.g. a badge in a link
        text = _LINK.sub(r" \1 ", text)
    text = _TAG.sub(" ", text)
    for _ in range(4):  # ``{{ x }}``, ``{ a: { b } }``: innermost first
        text, found = _BRACES.subn(" ", text)
        if not found:
            break
    text = _SHORTCODE.sub(" ", text)
    return words_of(html.unescape(text))


def words_of(text: str) -> Counter[str]:
    """The folded words of a plain ``text``, with how many times each occurs."""
    out: Counter[str] = Counter()
    for word, n in Counter(_WORD.findall(text)).items():
        out[_folded(word)] += n  # each distinct spelling folded once: folding is the cost
    return out


@lru_cache(maxsize=65536)
def _folded(word: str) -> str:
    return fold(word)


def _prose_lines(lines: list[str]) -> Iterator[str]:
    """The lines outside code fences, directive markers reduced to their titles."""
    fence = ""
    options = False  # inside an API directive's indented options
    for i, line in enumerate(lines):
        opening = _FENCE.match(line)
        if fence:
            if _closes(opening, fence, line):
                fence = ""
            continue
        if opening:
            fence = opening.group(1)
            continue
        if options:
            if not line.strip() or line[:1] in " \t":
                continue
            options = False
        if _MARKUP_LINE.match(line):
            continue
        colon = _COLON_DIRECTIVE.match(line)
        if colon and _api_directive(colon.group(1), lines[i + 1 : i + 2]):
            options = True  # ``::: pkg.mod.Obj``: an API reference, rendered from the source
            continue
        yield from _marker_titles(line)


def _closes(opening: re.Match[str] | None, fence: str, line: str) -> bool:
    """A fence closes with its own character, at least as many, and nothing after."""
    return (
        opening is not None
        and opening.group(1)[0] == fence[0]
        and len(opening.group(1)) >= len(fence)
        and not line[opening.end() :].strip()
    )


def _api_directive(name: str, following: list[str]) -> bool:
    """``::: pkg.mod.Obj``, or ``::: pkg`` whose next line opens its options."""
    return "." in name or bool(name and following and _OPTIONS.match(following[0]))


def _marker_titles(line: str) -> Iterable[str]:
    """A directive marker's title (the reader sees it), or the line itself."""
    colon = _COLON_DIRECTIVE.match(line)
    if colon:
        _name, bracket, rest = colon.groups()
        return (bracket or "", rest)
    block = _BLOCK.match(line)
    if block:
        return (block.group(1) or "",)
    for marker in (_ADMONITION, _TAB):
        found = marker.match(line)
        if found:
            title = found.group(2).strip()
            return (title[1:-1] if len(title) > 1 and title[0] == title[-1] == '"' else title,)
    return (line,)
