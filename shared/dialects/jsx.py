"""MDX's syntax read into a tree: JSX elements, ``{…}`` expressions, ESM lines, ``:::`` directives.

``parse`` walks a body once and hands back nodes (text, code, expressions, elements with
their attributes and children) without evaluating anything; ``shared.dialects.mdx`` maps
the tree into the stored form. Fenced code and code spans are opaque: nothing inside them
is read as MDX. The parser never fails: what does not scan as a construct is text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shared.dialects.constructs import Constructs

# A JavaScript value inside braces is scanned, never run; past this many characters an
# unclosed brace is text (a page of ``{`` costs linear time, not a scan per brace).
MAX_EXPRESSION = 20_000
MAX_DEPTH = 40  # elements inside elements; deeper tags are text

_SPECIAL = re.compile(r"[`{<\n]")
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})[^\n]*")
_ESM = re.compile(r"(?:import|export)[\s{*]")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]")
_NAME = re.compile(r"[A-Za-z][\w.:-]*")
_ATTR_NAME = re.compile(r"[A-Za-z_:$][\w:.$-]*")
_SPACE = re.compile(r"\s*")
_HEADING_ID = re.compile(r"\{\s*(?:/\*\s*([^*\n]*?)\s*\*/|#([^}\s]+))\s*\}[ \t]*(?=\n|$)")
_DIRECTIVE_OPEN = re.compile(
    r"(?P<indent>[ \t]*)(?P<colons>:{3,})(?P<kind>[A-Za-z][\w-]*|(?=\[))"
    r"(?:\[(?P<label>[^\]\n]*)\])?(?:\{(?P<attrs>[^}\n]*)\})?[ \t]*(?P<rest>[^\n]*)"
)
_DIRECTIVE_CLOSE = re.compile(r"[ \t]*(:{3,})[ \t]*(?=\n|$)")
# HTML's elements without children, and those whose content is text for a program.
VOID_ELEMENTS = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
RAW_TEXT = frozenset({"script", "style"})
_ESM_CONTINUES = re.compile(r"[ \t}\])]|from\b|import\b|export\b|\.|,")


# -- the tree ------------------------------------------------------------------------------


@dataclass
class Text:
    text: str


@dataclass
class Code:
    """A fenced block (whole lines, fences included) or a code span, exactly as written."""

    text: str
    fenced: bool


@dataclass
class Expression:
    """``{…}``: ``source`` is what is between the braces, never evaluated."""

    source: str

    def literal(self) -> str | None:
        """The text of a string literal (``{'a'}``, ``{"a"}``, a template without ``${``)."""
        return literal(self.source)


@dataclass
class HeadingId:
    """``{/*id*/}`` or ``{#id}`` closing a heading line."""

    id: str


Attribute = str | Expression | bool


@dataclass
class Element:
    """A JSX element or a ``:::kind`` directive (``directive`` set), with its children.

    ``indent`` is the whitespace before the opening tag when the tag opens its line (a
    block, in MDX's terms), else None (inline, inside a paragraph).
    """

    name: str
    attributes: dict[str, Attribute]
    indent: str | None
    children: list[Node] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)
    directive: int = 0  # colons of a directive's fence; 0 for JSX

    def text(self, name: str) -> str | None:
        """An attribute's text: a string (or string literal in braces), else None."""
        value = self.attributes.get(name)
        if isinstance(value, str):
            return value
        if isinstance(value, Expression):
            return value.literal()
        return None


Node = Text | Code | Expression | HeadingId | Element


# -- literals ----------------------------------------------------------------------------


_STRING = re.compile(r"""\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`$]*)`)\s*""", re.S)


def literal(source: str) -> str | None:
    """The value of a JavaScript string literal, else None (nothing is evaluated)."""
    match = _STRING.fullmatch(source)
    if not match:
        return None
    quoted = match.group(1) if match.group(1) is not None else match.group(2)
    if quoted is not None:
        return re.sub(r"\\(.)", r"\1", quoted)
    return match.group(3)


# -- scanning ----------------------------------------------------------------------------


def balanced(text: str, start: int, window: int = MAX_EXPRESSION) -> int | None:
    """The index after the ``}`` closing the ``{`` at ``start`` (strings, template literals
    and comments skipped), or None within ``window`` characters."""
    stack = ["{"]  # "{": code; "`": inside a template literal
    i = start + 1
    end = min(len(text), start + window)
    while i < end:
        char = text[i]
        if stack[-1] == "`":
            if char == "\\":
                i += 2
                continue
            if char == "`":
                stack.pop()
            elif text.startswith("${", i):
                stack.append("{")
                i += 1
            i += 1
            continue
        if char in "\"'":
            close = _string_end(text, i, end)
            if close is None:
                return None
            i = close
            continue
        if text.startswith("/*", i):
            close = text.find("*/", i + 2, end)
            if close < 0:
                return None
            i = close + 2
            continue
        if char == "`":
            stack.append("`")
        elif char == "{":
            stack.append("{")
        elif char == "}":
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return None


def _string_end(text: str, start: int, end: int) -> int | None:
    quote = text[start]
    i = start + 1
    while i < end:
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return i + 1
        elif text[i] == "\n":
            return None
        else:
            i += 1
    return None


@dataclass
class _Open:
    name: str
    attributes: dict[str, Attribute]
    closing: bool  # self-closing ``<X />``
    end: int


def _closing_tag(text: str, i: int) -> tuple[str, int] | None:
    """A closing tag whose name starts at ``i`` (after ``</``) as (name, end), else None."""
    name = _NAME.match(text, i)
    name_end = name.end() if name else i
    space = _SPACE.match(text, name_end)
    assert space is not None
    if text.startswith(">", space.end()):
        return (name.group(0) if name else "", space.end() + 1)
    return None


def _attribute_value(text: str, at: int, limit: int, window: int) -> tuple[Attribute, int] | None:
    """The value after an attribute's ``=`` (from ``at``, spaces skipped): a quoted string
    ending before ``limit`` or a ``{…}`` expression, with where it ends; None otherwise."""
    value_at = _SPACE.match(text, at)
    assert value_at is not None
    i = value_at.end()
    if i < len(text) and text[i] in "\"'":
        close_quote = text.find(text[i], i + 1, limit)
        if close_quote < 0:
            return None
        return text[i + 1 : close_quote], close_quote + 1
    if text.startswith("{", i):
        close = balanced(text, i, window)
        if close is None:
            return None
        return Expression(text[i + 1 : close - 1]), close
    return None


def scan_tag(text: str, start: int, window: int = MAX_EXPRESSION) -> _Open | tuple[str, int] | None:
    """The tag at ``text[start] == '<'``: an opening or self-closing tag, a closing tag as
    (name, end), or None when it is not one (then ``<`` is text)."""
    i = start + 1
    if text.startswith("/", i):
        return _closing_tag(text, i + 1)
    if text.startswith(">", i):
        return _Open("", {}, False, i + 1)  # a fragment, <>…</>
    name = _NAME.match(text, i)
    if not name:
        return None
    i = name.end()
    if i < len(text) and not (text[i].isspace() or text[i] in "/>"):
        return None  # ``<https://…>``, ``<a@b>``: not a tag
    attributes: dict[str, Attribute] = {}
    while True:
        space = _SPACE.match(text, i)
        assert space is not None
        i = space.end()
        if text.startswith("/>", i):
            return _Open(name.group(0), attributes, True, i + 2)
        if text.startswith(">", i):
            return _Open(name.group(0), attributes, False, i + 1)
        if text.startswith("{", i):  # a spread, {...props}
            close = balanced(text, i, window)
            if close is None:
                return None
            i = close
            continue
        attr = _ATTR_NAME.match(text, i)
        if not attr:
            return None
        i = attr.end()
        space = _SPACE.match(text, i)
        assert space is not None
        if not text.startswith("=", space.end()):
            attributes[attr.group(0)] = True
            continue
        value = _attribute_value(text, space.end() + 1, start + window, window)
        if value is None:
            return None
        attributes[attr.group(0)], i = value


def _code_span_end(text: str, start: int, window: int) -> int | None:
    """The end of the code span opened by the backticks at ``start`` (within its paragraph
    and ``window`` characters)."""
    ticks = re.compile(r"`+").match(text, start)
    assert ticks is not None
    run = len(ticks.group(0))
    bound = min(len(text), start + window)
    paragraph_end = text.find("\n\n", start, bound)
    limit = bound if paragraph_end < 0 else paragraph_end
    closing = re.compile(r"(?<!`)" + "`" * run + r"(?!`)")
    match = closing.search(text, start + run, limit)
    return match.end() if match else None


def _fence_end(text: str, start: int, marker: str) -> int:
    """The end of the fenced block opening at ``start`` (the end of the text if unclosed)."""
    closing = re.compile(
        r"^[ \t]*" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*$", re.M
    )
    line_end = text.find("\n", start)
    if line_end < 0:
        return len(text)
    match = closing.search(text, line_end + 1)
    if not match:
        return len(text)
    return match.end() + (1 if text.startswith("\n", match.end()) else 0)


def _esm_end(text: str, start: int) -> int:
    """The end of the ``import``/``export`` statement block at ``start``: up to a blank
    line (MDX ends an ESM block there), past any blank line inside open brackets."""
    i = start
    depth = 0
    while i < len(text):
        line_end = text.find("\n", i)
        line = text[i:] if line_end < 0 else text[i:line_end]
        depth += sum(line.count(c) for c in "({[") - sum(line.count(c) for c in ")}]")
        i = len(text) if line_end < 0 else line_end + 1
        following = text[i : text.find("\n", i) if text.find("\n", i) >= 0 else len(text)]
        # MDX ends the block at a blank line; a line that cannot continue a statement
        # (prose, a heading, a tag) ends it too, so it never swallows the page's text.
        if depth <= 0 and (not following.strip() or not _ESM_CONTINUES.match(following)):
            break
    return i


# -- parsing ------------------------------------------------------------------------------


@dataclass
class _Parser:
    text: str
    mdx: bool  # the whole of MDX; else only directives, comments and heading ids
    constructs: Constructs
    directive_kinds: frozenset[str]
    vue: bool = False  # Vue in Markdown: braces are text, no ESM outside <script>
    root: Element = field(default_factory=lambda: Element("", {}, None))
    stack: list[Element] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # text not yet in a Text node
    # Characters that failed lookaheads (an unclosed brace, comment, tag or code span) may
    # still scan in all: past it those are text, so a hostile page costs linear time.
    budget: int = 0

    def __post_init__(self) -> None:
        self.stack = [self.root]
        self.budget = 8 * len(self.text) + 100_000

    def window(self) -> int:
        return max(0, min(MAX_EXPRESSION, self.budget))

    def failed(self, window: int) -> None:
        self.budget -= max(window, 1)

    @property
    def top(self) -> Element:
        return self.stack[-1]

    def add(self, node: Node) -> None:
        if isinstance(node, Text):
            self.pending.append(node.text)
            return
        self.flush()
        self.top.children.append(node)

    def flush(self) -> None:
        if not self.pending:
            return
        text = "".join(self.pending)
        self.pending.clear()
        children = self.top.children
        if children and isinstance(children[-1], Text):
            children[-1].text += text
        else:
            children.append(Text(text))

    def open(self, element: Element, closing: bool) -> None:
        self.flush()
        if element.indent is not None:
            # The block's own indentation is kept by the element, not by the text before it.
            children = self.top.children
            if element.indent and children and isinstance(children[-1], Text):
                before = children[-1].text
                if before[before.rfind("\n") + 1 :] == element.indent:
                    children[-1].text = before[: len(before) - len(element.indent)]
        element.parent = self.top
        self.top.children.append(element)
        if not closing and len(self.stack) < MAX_DEPTH:
            self.stack.append(element)

    def close(self, name: str, directive: int = 0) -> bool:
        """Close the innermost open element of that name (those opened inside it too)."""
        self.flush()
        for depth in range(len(self.stack) - 1, 0, -1):
            element = self.stack[depth]
            same = element.directive == directive if directive else element.name == name
            if same and (directive or not element.directive):
                del self.stack[depth:]
                return True
        return False

    def parse(self) -> Element:
        text = self.text
        i = 0
        line_start = 0
        while i < len(text):
            if i == line_start:
                consumed = self.line_start(i)
                if consumed is not None:
                    i = line_start = consumed
                    continue
            match = _SPECIAL.search(text, i)
            if not match:
                self.add(Text(text[i:]))
                break
            j = match.start()
            if j > i:
                self.add(Text(text[i:j]))
            char = text[j]
            if char == "\n":
                self.add(Text("\n"))
                i = line_start = j + 1
                continue
            i = self.special(j, line_start)
        self.flush()
        return self.root

    def line_start(self, i: int) -> int | None:
        """Constructs that only open a line: fences, ESM, directives. The index after the
        construct, or None."""
        text = self.text
        fence = _FENCE_OPEN.match(text, i)
        if fence:
            end = _fence_end(text, i, fence.group(1))
            self.add(Code(text[i:end], fenced=True))
            return end
        if self.mdx and not self.vue and len(self.stack) == 1 and _ESM.match(text, i):
            end = _esm_end(text, i)
            for statement in re.findall(r"^(import|export)\b", text[i:end], re.M):
                self.constructs.count(f"mdx-{statement}", "dropped")
            return end
        closing = _DIRECTIVE_CLOSE.match(text, i)
        if closing and any(e.directive for e in self.stack):
            colons = len(closing.group(1))
            innermost = next(e.directive for e in reversed(self.stack) if e.directive)
            if not self.close("", colons):
                self.close("", innermost)
            end = closing.end()
            return end + 1 if text.startswith("\n", end) else end
        opening = _DIRECTIVE_OPEN.match(text, i)
        if opening and (self.mdx or opening.group("kind").lower() in self.directive_kinds):
            # ``:::[Title]`` (no kind) is a note in MDX; Markdown only opens the known kinds.
            attrs: dict[str, Attribute] = {}
            for key, value in re.findall(r'([\w-]+)="([^"\n]*)"', opening.group("attrs") or ""):
                attrs[key] = value
            label = opening.group("label")
            if label is None and opening.group("rest").strip():
                label = opening.group("rest").strip()  # Docusaurus' ``:::note Title``
            if label is not None:
                attrs.setdefault("title", label)
            element = Element(
                opening.group("kind"),
                attrs,
                opening.group("indent"),
                directive=len(opening.group("colons")),
            )
            self.open(element, closing=False)
            end = opening.end()
            return end + 1 if text.startswith("\n", end) else end
        return None

    def special(self, j: int, line_start: int) -> int:
        """The construct opening at ``j`` (a backtick, brace or ``<``); the index after it."""
        text = self.text
        char = text[j]
        if char == "`":
            window = self.window()
            end = _code_span_end(text, j, window)
            if end is None:
                self.failed(window)
                ticks = re.match(r"`+", text[j:])
                assert ticks is not None
                self.add(Text(ticks.group(0)))
                return j + len(ticks.group(0))
            self.add(Code(text[j:end], fenced=False))
            return end
        if char == "{":
            return self.brace(j, line_start)
        return self.angle(j, line_start)

    def brace(self, j: int, line_start: int) -> int:
        text = self.text
        heading_id = _HEADING_ID.match(text, j)
        if heading_id and _HEADING.match(text, line_start):
            found = heading_id.group(1) if heading_id.group(1) is not None else heading_id.group(2)
            self.add(HeadingId(found))
            return heading_id.end()
        if text.startswith("{/*", j):
            window = self.window()
            close = text.find("*/}", j + 3, j + 3 + window)
            if close >= 0:
                self.constructs.count("mdx-comment", "dropped")
                return close + 3
            self.failed(window)
        if not self.mdx or self.vue:
            self.add(Text("{"))
            return j + 1
        window = self.window()
        end = balanced(text, j, window)
        if end is None:
            self.failed(window)
            self.add(Text("{"))
            return j + 1
        self.add(Expression(text[j + 1 : end - 1]))
        return end

    def angle(self, j: int, line_start: int) -> int:
        text = self.text
        if not self.mdx:
            self.add(Text("<"))
            return j + 1
        if text.startswith("<!--", j):
            window = self.window()
            close = text.find("-->", j + 4, j + 4 + window)
            if close >= 0:
                self.constructs.count("html-comment", "dropped")
                return close + 3
            self.failed(window)
        window = self.window()
        tag = scan_tag(text, j, window)
        if tag is None:
            self.failed(min(window, 200))  # most failed tags stop at once: ``a < b``
            self.add(Text("<"))
            return j + 1
        if isinstance(tag, tuple):
            name, end = tag
            if not self.close(name):
                self.constructs.count(f"mdx-component:{name or 'Fragment'}", "dropped")
            return end
        name = tag.name.lower()
        if name in RAW_TEXT and not tag.closing:
            return self.raw_text(name, tag.end)
        block = text[line_start:j].strip() == ""
        indent = text[line_start:j] if block else None
        # A void element (``<br>``, ``<img>``) has no children: what follows is not in it.
        closing = tag.closing or name in VOID_ELEMENTS
        self.open(Element(tag.name, tag.attributes, indent), closing)
        return tag.end

    def raw_text(self, name: str, start: int) -> int:
        """``<script>``/``<style>`` … up to their closing tag, dropped and counted; an
        unclosed one only up to its first blank line, so the text after it stays."""
        close = re.compile(rf"</{name}\s*>", re.I).search(self.text, start)
        self.constructs.count(f"{name}-block", "dropped")
        if close is None:
            blank = re.compile(r"\n[ \t]*\n").search(self.text, start)
            return blank.end() if blank else len(self.text)
        end = close.end()
        return end + 1 if self.text.startswith("\n", end) else end


def parse(
    text: str,
    constructs: Constructs,
    *,
    mdx: bool,
    directive_kinds: frozenset[str],
    vue: bool = False,
) -> Element:
    """``text`` as a tree under an unnamed root element.

    With ``mdx`` False (a Markdown file), only what plain Markdown never means otherwise is
    read: ``:::kind`` directives of ``directive_kinds``, ``{/* */}`` comments and heading ids.
    """
    return _Parser(text, mdx, constructs, directive_kinds, vue=vue).parse()
