"""MkDocs' Markdown extensions and the HTML real pages mix in, mapped into the stored form.

The stored form is clean Markdown plus the project's ``///`` blocks, so at import:

- HTML comments vanish, and so do mkdocs-macros/Jinja ``{{ … }}``, ``{% … %}``,
  ``{# … #}`` (counted: a macro's output cannot be known without running the site);
- ``attr_list`` lists (``{ #id .class key=value }``) go, but for a heading's id, which the
  stored form keeps as ``{ #id }`` (the site renderer makes it the heading's id);
  ``[](){#id}`` anchors go (autorefs still find the page they stood on);
- ``md_in_html`` wrappers (``<div markdown>``) and any other HTML block tag go, their
  Markdown kept; inline HTML becomes Markdown (``<img>``, ``<a>``, ``<code>``,
  ``<strong>``…), tables become Markdown tables, scripts, styles and inline SVG go;
- fence attributes (``{.py title="a.py" hl_lines="2"}``, ``python title="x"``,
  ``{ .css .no-copy }``) become the one info form the project writes for includes:
  ``python hl_lines="2 3" title="a.py"``, the language first.

Code (fences, code spans) is never touched. Each construct is counted in ``Constructs``.
Every pattern is bounded to one line or one tag, so the work is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape
from html.parser import HTMLParser

from shared import mkdocs
from shared.dialects.constructs import Constructs
from shared.text.html_tags import ALLOWED_TAGS

_COMMENT_OPEN = "<!--"
_COMMENT_CLOSE = "-->"
_MACRO = re.compile(r"\{\{.{0,500}?\}\}|\{%.{0,500}?%\}|\{#.{0,500}?#\}")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")

_ONE_ATTR = r"""(?:#[\w:.-]+|\.[\w:-]+|[\w:-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s{}"']+))"""
ATTR_LIST = re.compile(r"\{:?[ \t]*" + _ONE_ATTR + r"(?:[ \t]+" + _ONE_ATTR + r")*[ \t]*\}")
_ATTR_ID = re.compile(r"(?:^|[\s{:])#([\w:.-]+)")
_ANCHOR = re.compile(r"\[\]\(\)(" + ATTR_LIST.pattern + r")")
_EMOJI = re.compile(r":(?:material|fontawesome|octicons|simple)-[\w-]{1,80}:")
# pymdownx.keys: ++ctrl+alt+del++, ++r++ (a key or a chord, written between double pluses).
_KEYS = re.compile(
    r"(?<![\w+])\+\+([A-Za-z0-9][\w-]{0,30}(?:\+[A-Za-z0-9][\w-]{0,30}){0,5})\+\+(?![\w+])"
)
_HEADING = re.compile(r"^([ \t]{0,3}#{1,6}[ \t]+.*?)[ \t]*$")

_TAG = re.compile(r"<(/?)([a-z][a-z0-9-]*)((?:\s[^<>]*)?)(/?)>")
_DROPPED_WITH_CONTENT = frozenset({"script", "style", "svg", "iframe", "video", "audio", "object"})
_VOID = frozenset({"img", "br", "hr", "input", "source", "meta", "link", "wbr"})
_INLINE_MARKDOWN = {"strong": "**", "b": "**", "em": "*", "i": "*", "code": "`"}
_ATTRS = re.compile(r"""([a-zA-Z_:][\w:.-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")


def without_comments(text: str, constructs: Constructs) -> str:
    """``text`` with HTML comments outside fenced code removed (a comment may span lines).

    A ``<!--`` that never closes is not a comment of the rest of the page: only the
    marker goes, the text after it stays (counted as ``html-comment:unclosed``).
    """
    if _COMMENT_OPEN not in text:
        return text
    out: list[str] = []
    inside = False
    lines = text.split("\n")
    opened: tuple[int, int, str, str] | None = None  # where the last comment opened
    for n, (line, code) in enumerate(mkdocs.fenced(lines)):
        if code and not inside:
            out.append(line)
            continue
        kept = ""
        rest = line
        while rest:
            if inside:
                end = rest.find(_COMMENT_CLOSE)
                if end < 0:
                    rest = ""
                    break
                rest = rest[end + len(_COMMENT_CLOSE) :]
                inside = False
                constructs.count("html-comment", "dropped")
                continue
            start = _outside_code(rest, _COMMENT_OPEN)
            if start < 0:
                kept += rest
                break
            kept += rest[:start]
            opened = (n, len(out), kept, rest[start + len(_COMMENT_OPEN) :])
            rest = rest[start + len(_COMMENT_OPEN) :]
            inside = True
        if kept == line:
            out.append(line)
        elif kept.strip():
            out.append(kept.rstrip())
        # a line that held only a comment goes with it
    if inside and opened is not None:
        n, at, before, after = opened
        constructs.count("html-comment:unclosed", "dropped")
        tail = [before + after, *lines[n + 1 :]]
        out = out[:at] + [x.replace(_COMMENT_OPEN, "") for x in tail]
    return "\n".join(out)


def _outside_code(line: str, needle: str) -> int:
    """Where ``needle`` first occurs in ``line`` outside a code span, or -1."""
    at = line.find(needle)
    if at < 0 or "`" not in line:
        return at
    spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)]
    while at >= 0:
        if not any(a <= at < b for a, b in spans):
            return at
        at = line.find(needle, at + 1)
    return -1


def outside_code_spans(line: str, change: Callable[[str], str]) -> str:
    """``change`` applied to the parts of ``line`` between its code spans."""
    if "`" not in line:
        return change(line)
    out: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(line):
        out.append(change(line[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(change(line[last:]))
    return "".join(out)


def _chord(match: re.Match[str]) -> str:
    """A pymdownx.keys chord as the code a reader presses: ``++ctrl+p++`` is ``Ctrl+P``."""
    names = [k.upper() if len(k) == 1 else k[:1].upper() + k[1:] for k in match.group(1).split("+")]
    return f"`{'+'.join(names)}`"


def keys(line: str, constructs: Constructs) -> str:
    """pymdownx.keys outside code (``++ctrl+p++``) as the code a reader presses."""
    if "++" not in line:
        return line

    def change(part: str) -> str:
        found = len(_KEYS.findall(part))
        if not found:
            return part
        constructs.count("keys", "mapped", found)
        return _KEYS.sub(_chord, part)

    return outside_code_spans(line, change)


def without_macros(line: str, constructs: Constructs) -> str:
    if "{" not in line:
        return line

    def drop(part: str) -> str:
        found = len(_MACRO.findall(part))
        if not found:
            return part
        constructs.count("macro", "dropped", found)
        return _MACRO.sub("", part)

    return outside_code_spans(line, drop)


_BLOCK_SPELLING = re.compile(r"^[ \t]*(?:(!!!|\?\?\?)|(===)|/{3,}[ \t]*([A-Za-z][\w-]*))")
_CODE_SNIPPET = re.compile(r'^[ \t]*-{1,}8<-{1,}[ \t]+"')


def count_blocks(text: str, constructs: Constructs) -> None:
    """Admonitions (``!!!``, ``???``, ``/// kind``), tabs (``===``, ``/// tab``) and the
    snippets left for ``shared.mkdocs`` to make includes of, as ``mapped``: the stored form
    writes them as its own ``///`` blocks and ``{* path *}`` includes."""
    if not any(s in text for s in ("!!!", "???", "===", "///", "8<")):
        return
    for line, code in mkdocs.fenced(text.split("\n")):
        found = None if code else _BLOCK_SPELLING.match(line)
        if found is not None:
            tab = found.group(2) is not None or found.group(3) == "tab"
            constructs.count("tabs" if tab else "admonition", "mapped")
        elif not code and _CODE_SNIPPET.match(line):
            constructs.count("snippet", "mapped")


# -- attr_list ------------------------------------------------------------------------------


def attr_lists(line: str, constructs: Constructs, ids: list[str] | None = None) -> str:
    """Attribute lists gone but a heading's id, kept as ``{ #id }``; ``[](){#id}`` anchors
    and Material's icon shortcodes gone. The ids of other elements (a paragraph, a link,
    an anchor) are put in ``ids``: ``paragraph_ids`` gives them to their block."""
    if "{" not in line and ":" not in line:
        return line
    heading = _HEADING.match(line) if line.lstrip().startswith("#") else None
    if heading is not None:
        text = heading.group(1)
        brace = text.rfind("{")
        tail = ATTR_LIST.fullmatch(text, brace) if brace >= 0 else None
        if tail is not None:
            constructs.count("attr-list", "mapped")
            found = _ATTR_ID.search(tail.group(0))
            head = text[:brace].rstrip()
            return f"{head} {{ #{found.group(1)} }}" if found else head

    def change(part: str) -> str:
        anchors = [m.group(1) for m in _ANCHOR.finditer(part)]
        if anchors:
            constructs.count("anchor", "mapped", len(anchors))
            part = _ANCHOR.sub("", part)
            if ids is not None:
                ids.extend(found.group(1) for a in anchors if (found := _ATTR_ID.search(a)))
        lists = [m.group(0) for m in ATTR_LIST.finditer(part)]
        if lists:
            for written in lists:
                found = _ATTR_ID.search(written)
                if found and ids is not None:
                    ids.append(found.group(1))
                constructs.count("attr-list", "mapped" if found else "dropped")
            part = ATTR_LIST.sub("", part)
        n = len(_EMOJI.findall(part))
        if n:
            constructs.count("icon", "dropped", n)
            part = _EMOJI.sub("", part)
        return part

    changed = outside_code_spans(line, change)
    return changed.rstrip() if changed != line else line


_BLOCK_START = re.compile(r"^[ \t]*(?:#{1,6}[ \t]|```|~~~|/{3,}|\||>|<)")
BLOCK_ID = re.compile(r"[ \t]\{ #([\w:.-]+) \}$")  # a paragraph's id in the stored form


def paragraph_ids(lines: list[tuple[str, list[str], bool]]) -> list[str]:
    """Each line with the ids its attribute lists and anchors stated given to their block:
    an anchor alone on its line names what follows (the heading, when it has no id of its
    own, else the next paragraph); an id on a paragraph's line, that paragraph or list
    item. The id is written ``{ #id }`` at the block's end (the site renderer reads it
    there, ``mkdocs.readable`` leaves it out). One id per element; others are dropped.
    Code lines (``code``) are passed through."""
    out: list[str] = []
    pending: list[str] = []  # ids of the block being read
    forward: list[str] = []  # ids of anchors alone on their line, for the next block
    for line, ids, code in lines:
        if code:
            _give(out, pending)
            forward = []  # an anchor before code: nothing there can carry an id
            out.append(line)
            continue
        if not line.strip():
            if ids:
                forward += ids
                continue
            _give(out, pending)
            out.append(line)
            continue
        heading = line.lstrip().startswith("#")
        if pending and _BLOCK_START.match(line):
            _give(out, pending)
        if forward and heading and not BLOCK_ID.search(line.rstrip()):
            line = f"{line.rstrip()} {{ #{forward[0]} }}"
        elif forward:
            pending += forward
        forward = []
        out.append(line)
        pending += ids
    _give(out, pending)
    return out


def _give(out: list[str], pending: list[str]) -> None:
    """The first pending id onto the last line of the block before (a paragraph's)."""
    if not pending:
        return
    for i in range(len(out) - 1, -1, -1):
        if out[i].strip():
            if not _BLOCK_START.match(out[i]) and not BLOCK_ID.search(out[i]):
                out[i] = f"{out[i].rstrip()} {{ #{pending[0]} }}"
            break
    pending.clear()


_HTML_ANCHOR = re.compile(r"""<a\s+(?:name|id)\s*=\s*["']([\w:.-]{1,200})["']\s*>\s*</a>""")


def html_anchors(line: str) -> str:
    """``<a name="x"></a>`` (or ``id``), an HTML anchor, as the ``[](){#x}`` anchor it is,
    so it goes where attr_list anchors go (the heading after it)."""
    if "<a" not in line:
        return line
    return outside_code_spans(line, lambda part: _HTML_ANCHOR.sub(r"[](){#\1}", part))


def anchors_of(line: str) -> list[str]:
    """The ids of ``[](){#id}`` anchors on a line (for autorefs to the page)."""
    line = html_anchors(line)
    return [m.group(1) for a in _ANCHOR.finditer(line) if (m := _ATTR_ID.search(a.group(1)))]


def heading_id(line: str) -> str | None:
    """The ``{ #id }`` a heading line states, if any."""
    if not line.lstrip().startswith("#"):
        return None
    brace = line.rstrip().rfind("{")
    tail = ATTR_LIST.fullmatch(line.rstrip(), brace) if brace >= 0 else None
    found = _ATTR_ID.search(tail.group(0)) if tail else None
    return found.group(1) if found else None


# -- fence attributes -------------------------------------------------------------------------

_FENCE_ATTR = re.compile(r"""([\w-]+)=(?:"([^"\n]*)"|'([^'\n]*)'|(\S+))""")
_BRACKET_TITLE = re.compile(r"\[([^\[\]\n]{1,200})\]")


def fence_info(info: str) -> tuple[str, dict[str, str], list[str]] | None:
    """(language, attributes, classes) of a fence's info string, or None when plain."""
    text = info.strip()
    if not text:
        return None
    braced = text.startswith("{") and text.endswith("}")
    inner = text[1:-1].strip() if braced else text
    language = ""
    classes: list[str] = []
    attributes: dict[str, str] = {}
    rest = inner
    if not braced:
        word, _, rest = inner.partition(" ")
        if word.startswith("["):  # VitePress' ``[.env]``: a title and no language
            word, rest = "", inner
        language = word
    for match in _FENCE_ATTR.finditer(rest):
        attributes[match.group(1)] = next(g for g in match.groups()[1:] if g is not None)
    bracket = _BRACKET_TITLE.search(rest)
    if bracket and not braced:  # VitePress' ``sh [setup.sh]``: the file name as the title
        attributes.setdefault("title", bracket.group(1).strip())
        rest = rest.replace(bracket.group(0), " ")
    bare: list[str] = []
    for token in _FENCE_ATTR.sub(" ", rest).split():
        if token.startswith("."):
            classes.append(token[1:])
        elif braced and not token.startswith("#"):
            bare.append(token)
    if braced:
        # ``{.py …}``: the first class is the language, as pymdownx.superfences reads it.
        language = classes.pop(0) if classes else (bare[0] if bare else "")
    return language, attributes, classes


def normalised_fence(indent: str, marker: str, info: str, constructs: Constructs) -> str | None:
    """The opening line in the project's one info form, or None when it is already plain
    (a bare language word, or nothing)."""
    parsed = fence_info(info)
    if parsed is None:
        return None
    language, attributes, classes = parsed
    if not attributes and not classes and info.strip() == language:
        return None
    constructs.count("fence-attributes", "mapped")
    out = language.lower() if re.fullmatch(r"[\w+#.-]{1,40}", language) else ""
    if not out and attributes.get("title"):
        out = "text"  # ``title="…"`` alone would read as the language where Markdown is shown
    hl = attributes.get("hl_lines")
    if hl and mkdocs.parse_ranges(hl):
        out += f' hl_lines="{" ".join(hl.split())}"'
    title = attributes.get("title")
    if title:
        out += f' title="{title.replace(chr(34), chr(39))}"'
    first = attributes.get("linenums")
    if first and first.isdigit() and int(first) > 1:
        out += f' linenums="{first}"'
    return f"{indent}{marker}{out.strip()}"


# -- HTML ------------------------------------------------------------------------------------


def html_to_markdown(lines: list[str], constructs: Constructs) -> list[str]:
    """HTML outside code as Markdown: wrappers dropped (their Markdown kept), inline tags
    as Markdown, tables as Markdown tables, scripts/styles/SVG gone. Tags the site's
    renderer allows (``kbd``, ``details``…) stay."""
    out: list[str] = []
    dropping = ""  # a tag whose content goes with it (script, svg…), while open
    unclosed = False  # that tag never closes: it drops up to a blank line, not the page
    i = 0
    fenced = list(mkdocs.fenced(lines))
    while i < len(fenced):
        line, code = fenced[i]
        if code and not dropping:
            out.append(line)
            i += 1
            continue
        if dropping:
            end = line.find(f"</{dropping}>")
            if end < 0 and unclosed and not line.strip():
                dropping = ""
                out.append(line)
                i += 1
                continue
            if end < 0:
                i += 1
                continue
            line = line[end + len(dropping) + 3 :]
            dropping = ""
        if "<" not in line and "&lt;" not in line:
            out.append(line)
            i += 1
            continue
        block = _html_block(fenced, i, line, constructs)
        if block is not None:
            lines_out, i = block
            out += lines_out
            continue
        converted, dropping = _inline_html(line, constructs)
        if dropping:
            closing = f"</{dropping}>"
            unclosed = not any(closing in later for later, _ in fenced[i + 1 :])
            if unclosed:
                constructs.count(f"html:unclosed-{dropping}", "dropped")
        if converted.strip() or not line.strip():
            out.append(converted)
        elif out and out[-1].strip():
            out.append("")  # a wrapper's line: keep blocks apart, as the tag did
        i += 1
    return out


def _html_block(
    fenced: list[tuple[str, bool]], i: int, line: str, constructs: Constructs
) -> tuple[list[str], int] | None:
    """A block element opening at line ``i`` (preformatted code, ``<details>``, a table) as
    Markdown, with the index of the line after it; None when none opens there."""
    code_block = _CODE_BLOCK_OPEN.match(line)
    if code_block:
        tag = code_block.group(1) or code_block.group(2)
        end = _closing_line(fenced, i, f"</{tag}>")
        constructs.count(f"html:{tag}", "mapped")
        return ["", *_preformatted(_joined(fenced, i, end)), ""], end + 1
    details = _DETAILS_OPEN.match(line)
    if details:
        last = _details_end(fenced, i)
        if last is not None:
            return _details(fenced, i, last, details, constructs), last + 1
    if re.match(r"^\s*<table\b", line):
        end = _closing_line(fenced, i, "</table>")
        constructs.count("html-table", "mapped")
        return ["", *_table(_joined(fenced, i, end)), ""], end + 1
    return None


def _closing_line(fenced: list[tuple[str, bool]], i: int, closing: str) -> int:
    """The line holding ``closing`` from line ``i`` on (at most 2,000 lines further)."""
    end = i
    while end < len(fenced) and closing not in fenced[end][0] and end - i < 2000:
        end += 1
    return end


def _joined(fenced: list[tuple[str, bool]], first: int, last: int) -> str:
    return "\n".join(x for x, _ in fenced[first : last + 1])


# ``<details>`` with its ``<summary>``: the project's own ``/// details | summary`` block,
# so its Markdown renders and answers read its title as a label, not tags.
_DETAILS_OPEN = re.compile(r"^\s*<details(\s[^<>]*)?>\s*(?:<summary>(.*?)</summary>)?\s*$")
_SUMMARY = re.compile(r"^\s*<summary>(.*?)</summary>\s*$")
_DETAILS_CLOSE = re.compile(r"^\s*</details>\s*$")


def _details_end(fenced: list[tuple[str, bool]], start: int) -> int | None:
    depth = 0
    for j in range(start, min(len(fenced), start + 5000)):
        line, code = fenced[j]
        if code:
            continue
        if _DETAILS_OPEN.match(line):
            depth += 1
        elif _DETAILS_CLOSE.match(line):
            depth -= 1
            if depth == 0:
                return j
    return None


def _details(
    fenced: list[tuple[str, bool]],
    start: int,
    end: int,
    opening: re.Match[str],
    constructs: Constructs,
) -> list[str]:
    body = [line for line, _ in fenced[start + 1 : end]]
    title = opening.group(2)
    summary = _SUMMARY.match(body[0]) if title is None and body else None
    if summary is not None:
        title, body = summary.group(1), body[1:]
    constructs.count("html:details", "mapped")
    inner = html_to_markdown(body, constructs)
    slashes = "/" * (3 + mkdocs.block_depth(inner))
    if title:
        title = " ".join(_inline_html(title, constructs)[0].split())
    head = f"{slashes} details" + (f" | {title}" if title else "")
    options = ["    open: true"] if opening.group(1) and "open" in opening.group(1) else []
    return ["", head, *options, "", *inner, "", slashes, ""]


# A block the page's HTML marks as code: Pygments' and Material's ``highlight`` wrapper,
# or ``<pre>``. Its text is code, so it becomes a fenced block (tags gone, text kept).
_CODE_BLOCK_OPEN = re.compile(r"""^\s*<(?:(pre)\b|(div)\b(?=[^>]*class=["'][^"']*\bhighlight\b))""")


def _preformatted(block: str) -> list[str]:
    text = unescape(re.sub(r"<[^<>\n]*>", "", block)).strip("\n")
    marker = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    return [marker + "text", *text.split("\n"), marker]


def _inline_html(line: str, constructs: Constructs) -> tuple[str, str]:
    """One line's tags as Markdown; the tag still open whose content is dropped, if any."""
    dropping = ""

    def change(part: str) -> str:
        nonlocal dropping
        out: list[str] = []
        last = 0
        for match in _TAG.finditer(part):
            if dropping:
                if match.group(1) and match.group(2) == dropping:
                    dropping = ""
                last = match.end()
                continue
            out.append(part[last : match.start()])
            last = match.end()
            out.append(_tag(match, constructs))
            name = match.group(2)
            if name in _DROPPED_WITH_CONTENT and not match.group(1) and not match.group(4):
                dropping = name
        if not dropping:
            out.append(part[last:])
        return "".join(out)

    changed = outside_code_spans(line, change) if "<" in line else line
    changed = _ANCHOR_TEXT.sub(_link, changed)
    if "&lt;" in changed:
        changed = outside_code_spans(changed, lambda part: _escaped_tags(part, constructs))
    return changed, dropping


# ``&lt;color&gt;`` written in prose: the author shows a tag or placeholder literally, so
# it is code (a reader sees ``<color>``, and nothing reads as a tag left unrendered).
_ESCAPED_TAG = re.compile(r"&lt;(/?[A-Za-z][\w.:-]{0,60}(?:\s[^&<>\n]{0,200})?/?)&gt;")


def _escaped_tags(part: str, constructs: Constructs) -> str:
    found = len(_ESCAPED_TAG.findall(part))
    if not found:
        return part
    constructs.count("escaped-tag", "mapped", found)
    return _ESCAPED_TAG.sub(lambda m: f"`<{unescape(m.group(1))}>`", part)


_ANCHOR_TEXT = re.compile(r"\x00a ([^\x00]*)\x00(.*?)\x00/a\x00")


def _link(match: re.Match[str]) -> str:
    href, text = unescape(match.group(1)), match.group(2).strip()
    if not href:
        return text
    return f"[{text or href}]({href})"


# The elements of HTML (and SVG's outer one): a lowercase "tag" that is none of them is a
# placeholder written in prose (``<color>``, ``<integer>``), shown as code, never dropped.
_ELEMENT_NAMES = """a abbr address area article aside audio b base bdi bdo blockquote body br button
    canvas caption center cite code col colgroup data datalist dd del details dfn dialog div
    dl dt em embed fieldset figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header
    hgroup hr html i iframe img input ins kbd label legend li link main map mark menu meta
    meter nav noscript object ol optgroup option output p param picture pre progress q rp
    rt ruby s samp script search section select slot small source span strike strong style
    sub summary sup svg table tbody td template textarea tfoot th thead time title tr track
    tt u ul var video wbr"""
HTML_ELEMENTS = frozenset(_ELEMENT_NAMES.split())


def _tag(match: re.Match[str], constructs: Constructs) -> str:
    closing, name, attrs, _ = match.groups()
    if name in ALLOWED_TAGS:
        return match.group(0)
    if name not in HTML_ELEMENTS:
        constructs.count("escaped-tag", "mapped")
        return f"`{match.group(0)}`"
    values = {
        m.group(1).lower(): next((g for g in m.groups()[1:] if g is not None), "")
        for m in _ATTRS.finditer(attrs)
    }
    if "markdown" in values and not closing:
        constructs.count("md-in-html", "mapped")
    elif name in _INLINE_MARKDOWN or name in ("img", "a"):
        constructs.count(f"html:{name}", "mapped")
    elif not closing:
        constructs.count(f"html:{name}", "dropped")
    if name in _INLINE_MARKDOWN:
        return _INLINE_MARKDOWN[name]
    if name == "img":
        src = values.get("src", "")
        return f"![{values.get('alt', '')}]({src})" if src else ""
    if name == "a":
        # Marked, then made a link once the line's tags are gone (its text may hold some).
        return "\x00/a\x00" if closing else f"\x00a {values.get('href', '')}\x00"
    if name == "hr":
        return "\n---\n"
    return ""


class _Cells(HTMLParser):
    """A table's rows of cells, each cell as Markdown (code and links kept)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.header = False
        self.href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
            self.header = self.header or (tag == "th" and len(self.rows) == 1)
        elif self.cell is not None and tag in _INLINE_MARKDOWN:
            self.cell.append(_INLINE_MARKDOWN[tag])
        elif self.cell is not None and tag == "a":
            self.href = dict(attrs).get("href") or None
            self.cell.append("[")
        elif self.cell is not None and tag == "br":
            self.cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            if not self.rows:
                self.rows.append([])
            self.rows[-1].append(" ".join("".join(self.cell).split()).replace("|", "\\|"))
            self.cell = None
        elif self.cell is not None and tag in _INLINE_MARKDOWN:
            self.cell.append(_INLINE_MARKDOWN[tag])
        elif self.cell is not None and tag == "a":
            self.cell.append(f"]({self.href})" if self.href else "]")

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def _table(block: str) -> list[str]:
    parser = _Cells()
    parser.feed(block)
    parser.close()
    rows = [row for row in parser.rows if row]
    if not rows:
        return []
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    head = rows[0] if parser.header else [""] * width
    body = rows[1:] if parser.header else rows
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * width]
    return lines + ["| " + " | ".join(row) + " |" for row in body]
