"""MDX (Docusaurus, Starlight, react.dev) into the stored form, from one table of mappings.

``to_stored`` reads a body with ``shared.dialects.jsx`` and writes every construct as what
the stored form already has: admonitions, details and tabs as ``///`` blocks, code
containers as fenced blocks whose info is ``lang hl_lines="…" title="…"`` (the form
includes are written in), links, images and text. ``COMPONENTS`` says what each known
component becomes; any other component keeps its children and loses its tags. Nothing
is evaluated: a ``{…}`` that is a string literal keeps its text, anything else is
dropped. Each construct is counted in ``Constructs`` with its outcome.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal

from shared import mkdocs
from shared.dialects import jsx
from shared.dialects.constructs import Constructs, Outcome
from shared.text import plaintext
from shared.text.html_tags import ALLOWED_TAGS, VOID_TAGS

Into = Literal[
    "admonition",  # a /// kind | title block (kind from ``kind``, or the ``type`` attribute)
    "details",  # a collapsible /// details block
    "tab",  # one /// tab of a set; the first of its parent starts a new set
    "children",  # the children, as a block or inline (the tags go)
    "filetree",  # a nested list drawn as a tree in a ``text`` fence
    "code",  # a code container: its fences, file names as titles, hidden files left out
    "code-attribute",  # ``<Code code="…" lang title>``: a fence from its attributes
    "code-span",  # ``<code>``: its text as a code span
    "fence",  # the children's text as one fenced block (``language``/``lang`` or ``kind``)
    "link",  # a link from ``href`` and ``title`` (or the children)
    "card",  # the ``title`` in bold, then the children
    "image",  # ``![alt](src)``
    "text",  # text from attributes (``template``)
    "html",  # an inline HTML tag the site renders (``shared.site.md_html``): kept
]


@dataclass(frozen=True, slots=True)
class Mapping:
    """What one component becomes."""

    into: Into
    kind: str = "note"  # admonition kind (``type="…"`` on the element wins)
    template: str = ""  # ``text``: attribute names in braces; ``image``: its ``src``


# One row per component as the generators spell it; lower-case names are HTML elements.
COMPONENTS: dict[str, Mapping] = {
    # admonition-like (react.dev, Starlight, Docusaurus, Mintlify, Nextra)
    "Note": Mapping("admonition", "note"),
    "Info": Mapping("admonition", "info"),
    "Tip": Mapping("admonition", "tip"),
    "Check": Mapping("admonition", "success"),
    "Warning": Mapping("admonition", "warning"),
    "Caution": Mapping("admonition", "caution"),
    "Danger": Mapping("admonition", "danger"),
    "Important": Mapping("admonition", "important"),
    "Pitfall": Mapping("admonition", "warning"),
    "Callout": Mapping("admonition", "note"),
    "Aside": Mapping("admonition", "note"),
    "Admonition": Mapping("admonition", "note"),
    "DeepDive": Mapping("details", "note"),
    "Details": Mapping("details", "note"),
    "details": Mapping("details", "note"),  # its <summary> is the title
    "summary": Mapping("children"),
    "Accordion": Mapping("details", "note"),
    # tabs
    "Tabs": Mapping("children"),
    "TabItem": Mapping("tab"),
    "Tab": Mapping("tab"),
    # structure
    "Steps": Mapping("children"),
    "Step": Mapping("card"),
    "FileTree": Mapping("filetree"),
    # code containers
    "Sandpack": Mapping("code"),
    "CodeGroup": Mapping("code"),
    "CodeTabs": Mapping("code"),
    "Code": Mapping("code-attribute"),
    "CodeBlock": Mapping("fence", "text"),  # Docusaurus' <CodeBlock language title>
    "TerminalBlock": Mapping("fence", "bash"),  # react.dev
    "ConsoleBlock": Mapping("fence", "text"),
    "code": Mapping("code-span"),
    # links and cards
    "ReadMore": Mapping("children"),
    "CardGrid": Mapping("children"),
    "Cards": Mapping("children"),
    "Card": Mapping("card"),
    "LinkCard": Mapping("link"),
    "LinkButton": Mapping("link"),
    "a": Mapping("link"),
    # inline
    "Since": Mapping("text", template="v{v} {pkg}"),
    "Badge": Mapping("text", template="{text}"),
    "Kbd": Mapping("children"),
    "kbd": Mapping("children"),
    "Image": Mapping("image"),
    "Picture": Mapping("image"),
    "Illustration": Mapping("image"),  # react.dev: ``src`` and ``alt``, a caption inside
    "IllustrationBlock": Mapping("children"),
    "DiagramGroup": Mapping("children"),
    "img": Mapping("image"),
    **{tag: Mapping("html") for tag in ALLOWED_TAGS - {"kbd", "details", "summary"}},
}

# ``:::kind`` directives: Docusaurus' and Starlight's kinds, as the stored admonition kinds.
DIRECTIVES: dict[str, str] = {
    "note": "note",
    "tip": "tip",
    "info": "info",
    "caution": "caution",
    "warning": "warning",
    "danger": "danger",
    "important": "important",
    "success": "success",
}

_HEADING_ID = re.compile(mkdocs.ID_CHARS)  # the ids ``{#id}`` the renderer reads
_INFO_TOKEN = re.compile(r"""(\w+)=("[^"]*"|'[^']*'|\{[^}]*\}|\S+)|\{[^}]*\}|\S+""")
_LIST_ITEM = re.compile(r"^([ \t]*)[-*+][ \t]+(.*)$")
_HIDDEN = "hidden"  # a container's file the reader never sees (react.dev's Sandpack)
_BLOCK_CLOSE = re.compile(r"^[ \t]*(/{3,})[ \t]*$")


_ESM_LINE = re.compile(
    r"""(?:import\s[^\n]*\bfrom\s*["']|import\s*["']|export\s+(?:const|let|default|function)\b)"""
)


def is_mdx(name: str, body: str) -> bool:
    """Whether a file is MDX: an ``.mdx`` file, or Markdown with an ESM line outside code
    (``import X from '…'``, ``export const …``: the first thing an MDX page with components
    does). A JavaScript example in a fence, or ``export PATH=…`` in prose, is no such line."""
    if PurePosixPath(name).suffix.lower() == ".mdx":
        return True
    if "import" not in body and "export" not in body:
        return False
    return any(not code and _ESM_LINE.match(line) for line, code in mkdocs.fenced(body.split("\n")))


def to_stored(
    body: str,
    constructs: Constructs,
    *,
    mdx: bool,
    vue: bool = False,
    components: dict[str, Mapping] | None = None,
) -> str:
    """``body`` in the stored form (see the module docstring).

    A Markdown file (``mdx`` False) is only read for ``:::`` directives of the known
    kinds, ``{/* */}`` comments and heading ids: ``{`` and ``<`` are its own text. A Vue
    one (``vue``: VitePress) is read for components, but braces are its text and it has
    no ``import`` lines outside ``<script>``. ``components``: the dialect's own rows,
    over ``COMPONENTS``.
    """
    if mdx is False and ":::" not in body and "{/*" not in body and "{#" not in body:
        return body
    met = Constructs()
    tree = jsx.parse(body, met, mdx=mdx, directive_kinds=frozenset(DIRECTIVES), vue=vue)
    table = {**COMPONENTS, **components} if components else COMPONENTS
    out = "\n".join(_tidy(_Writer(met, mdx, table).children(tree).split("\n"))).rstrip("\n")
    if not met:
        return body  # nothing of MDX in it: the file's text exactly (a re-import is unchanged)
    constructs.merge(met)
    return out + "\n" if body.endswith("\n") else out


def _tidy(lines: list[str]) -> Iterator[str]:
    """At most one blank line in a row outside code, none at the start; trailing spaces of
    lines left empty go."""
    blank = True
    for line, code in mkdocs.fenced(lines):
        if not code and not line.strip():
            if not blank:
                yield ""
            blank = True
            continue
        blank = False
        yield line


@dataclass
class _Writer:
    constructs: Constructs
    mdx: bool
    components: dict[str, Mapping] = field(default_factory=lambda: COMPONENTS)
    container: bool = False  # inside a code container: fences name files, hidden ones go

    def count(self, kind: str, outcome: Outcome) -> None:
        self.constructs.count(kind, outcome)

    def children(self, element: jsx.Element) -> str:
        return "".join(self.node(child) for child in element.children)

    def node(self, node: jsx.Node) -> str:
        if isinstance(node, jsx.Text):
            return node.text
        if isinstance(node, jsx.Code):
            return self.fence(node.text) if node.fenced and self.mdx else node.text
        if isinstance(node, jsx.Expression):
            text = node.literal()
            self.count("mdx-expression", "dropped" if text is None else "mapped")
            return text or ""
        if isinstance(node, jsx.HeadingId):
            if _HEADING_ID.fullmatch(node.id):
                self.count("heading-id", "mapped")
                return f" {{#{node.id}}}"
            self.count("heading-id", "dropped")
            return ""
        if node.directive:
            return self.directive(node)
        return self.element(node)

    # -- directives and components --------------------------------------------------------

    def directive(self, element: jsx.Element) -> str:
        name = element.name.lower() or "note"  # ``:::[Title]``
        kind = DIRECTIVES.get(name, "note")
        self.count(f"directive:{name}", "mapped")
        title = (element.text("title") or "").strip()
        if name not in DIRECTIVES and not title:
            title = element.name  # an unknown kind names itself rather than vanish
        return self.admonition(element, kind, title, details=False)

    def element(self, element: jsx.Element) -> str:
        name = element.name or "Fragment"
        mapping = self.components.get(element.name)
        kind = f"mdx-component:{name}"
        if mapping is None:
            # Any other component keeps its children and loses its tags.
            self.count(kind, "dropped")
            if element.text("title") and element.children:
                return self.card(element)  # its title is text a reader should keep
            return self.unwrapped(element)
        self.count(kind, "rendered" if mapping.into == "html" else "mapped")
        into = mapping.into
        if into in ("admonition", "details"):
            flavour = (element.text("type") or mapping.kind).strip().lower()
            if not re.fullmatch(r"[a-z][\w-]{0,30}", flavour):
                flavour = mapping.kind
            title = (element.text("title") or "").strip()
            if element.indent is None:
                return self.children(element)
            return self.admonition(element, flavour, title, details=into == "details")
        if into == "tab":
            return self.tab(element)
        if into == "children":
            return self.unwrapped(element)
        if into == "filetree":
            return self.file_tree(element)
        if into == "code":
            return self.code_container(element)
        if into == "code-attribute":
            return self.code_attribute(element)
        if into == "code-span":
            return _code_span(plaintext.inline(self.children(element)))
        if into == "fence":
            return self.children_fence(element, mapping.kind)
        if into == "link":
            return self.link(element)
        if into == "card":
            return self.card(element)
        if into == "image":
            return self.image(element, mapping.template)
        if into == "text":
            values: defaultdict[str, str] = defaultdict(str)
            for key in element.attributes:
                values[key] = element.text(key) or ""
            shown = " ".join(mapping.template.format_map(values).split())
            # ``<Badge type="tip">v2</Badge>``: the text is the children when not an attribute.
            return shown or " ".join(self.children(element).split())
        return self.html(element)

    def unwrapped(self, element: jsx.Element) -> str:
        inner = self.children(element)
        if element.indent is None:
            return inner
        return _block(element.indent, [], _dedented(inner), [])

    def admonition(self, element: jsx.Element, kind: str, title: str, *, details: bool) -> str:
        summary = next(
            (c for c in element.children if isinstance(c, jsx.Element) and c.name == "summary"),
            None,
        )
        if summary is not None:
            # An HTML <details>' summary is the block's title, not its first paragraph.
            element.children.remove(summary)
            title = title or plaintext.inline(self.children(summary))
        body = _dedented(self.children(element))
        if not title and body:
            heading = mkdocs.atx_heading(body[0].strip())
            if heading and heading[1]:
                title = heading[1]  # react.dev titles a pitfall with its first heading
                body = _dedented("\n".join(body[1:]))
        slashes = "/" * (3 + _depth(body))
        if details:
            head = [f"{slashes} details" + (f" | {title}" if title else ""), f"    type: {kind}"]
        else:
            head = [f"{slashes} {kind}" + (f" | {title}" if title else "")]
        return _block(element.indent or "", head, body, [slashes])

    def tab(self, element: jsx.Element) -> str:
        label = element.text("label") or element.text("title") or element.text("value") or ""
        body = _dedented(self.children(element))
        if element.indent is None:
            return "\n".join(body)
        slashes = "/" * (3 + _depth(body))
        head = [f"{slashes} tab | {label.strip() or '…'}"]
        if _first_tab(element):
            head.append("    new: true")
        return _block(element.indent, head, body, [slashes])

    def file_tree(self, element: jsx.Element) -> str:
        inner = self.children(element)
        entries = [
            (len(m.group(1).expandtabs(4)), _plain_name(m.group(2)))
            for m in map(_LIST_ITEM.match, inner.split("\n"))
            if m
        ]
        if not entries:
            return self.unwrapped(element)
        drawn = _draw_tree(entries)
        fence = ["```text", *drawn, "```"]
        return _block(element.indent or "", [], fence, [])

    def code_container(self, element: jsx.Element) -> str:
        outer, self.container = self.container, True
        try:
            return self.unwrapped(element)
        finally:
            self.container = outer

    def code_attribute(self, element: jsx.Element) -> str:
        code = element.text("code")
        if code is None:
            # The code is a variable (an imported file): nothing to show without running it.
            self.constructs.count("mdx-expression", "dropped")
            return ""
        info = _info(element.text("lang") or "", (), element.text("title"))
        marker = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", code)), default=0))
        lines = [marker + info, *code.strip("\n").split("\n"), marker]
        return _block(element.indent or "", [], lines, [])

    def children_fence(self, element: jsx.Element, language: str) -> str:
        """The children as code: a string literal's text, else the text as written (the
        children of a code component are code, so nothing in them is mapped)."""
        parts = []
        for child in element.children:
            if isinstance(child, jsx.Expression):
                parts.append(child.literal() or "")
            elif isinstance(child, jsx.Text | jsx.Code):
                parts.append(child.text)
        code = "\n".join(_dedented("".join(parts)))
        lang = element.text("language") or element.text("lang") or language
        info = _info(lang, (), element.text("title"))
        marker = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", code)), default=0))
        return _block(element.indent or "", [], [marker + info, *code.split("\n"), marker], [])

    def link(self, element: jsx.Element) -> str:
        href = element.text("href")
        text = (element.text("title") or "").strip() or " ".join(self.children(element).split())
        description = (element.text("description") or "").strip()
        if not href:
            return text
        out = f"[{text or href}]({href})" + (f": {description}" if description else "")
        return _block(element.indent, [], [out], []) if element.indent is not None else out

    def card(self, element: jsx.Element) -> str:
        title = (element.text("title") or "").strip()
        body = _dedented(self.children(element))
        head = [f"**{title}**", ""] if title else []
        if element.indent is None:
            return " ".join([*head[:1], *body])
        return _block(element.indent, head, body, [])

    def image(self, element: jsx.Element, template: str = "") -> str:
        """``![alt](src)`` (``src`` from the attribute, else the dialect's template of
        the attributes), then the children: a diagram's caption stays."""
        src = element.text("src")
        if not src and template:
            values: defaultdict[str, str] = defaultdict(str)
            for key in element.attributes:
                values[key] = element.text(key) or ""
            src = template.format_map(values) if all(values[k] for k in _fields(template)) else ""
        caption = self.unwrapped(element) if element.children else ""
        if not src:
            self.constructs.count("mdx-expression", "dropped")  # an imported image
            return caption
        alt = (element.text("alt") or "").replace("]", ")").replace("[", "(")
        shown = f"![{alt}]({src})"
        if element.indent is not None:
            return _block(element.indent, [shown], _dedented(caption), [])
        return shown + (" " + " ".join(caption.split()) if caption.strip() else "")

    def html(self, element: jsx.Element) -> str:
        name = element.name
        title = element.text("title")
        attrs = (f' title="{title}"' if title else "") + (
            " open" if name == "details" and "open" in element.attributes else ""
        )
        if name in VOID_TAGS:
            return f"<{name}>"
        return f"<{name}{attrs}>{self.children(element)}</{name}>"

    # -- fences ---------------------------------------------------------------------------

    def fence(self, text: str) -> str:
        """A fence with its info in the project's form; a hidden file of a container goes."""
        first, newline, rest = text.partition("\n")
        opening = mkdocs.FENCE.match(first)
        if not opening or not opening.group(3).strip():
            return text
        indent, marker, info = opening.group(1), opening.group(2), opening.group(3).strip()
        tokens = [m.group(0) for m in _INFO_TOKEN.finditer(info)]
        lang = tokens[0] if tokens and "=" not in tokens[0] and "{" not in tokens[0] else ""
        title: str | None = None
        highlight: list[str] = []
        for token in tokens[1 if lang else 0 :]:
            key, _, value = token.partition("=")
            value = value.strip("\"'")
            if token.startswith("{"):
                highlight.append(token.strip("{}"))
            elif value and key == "title":
                title = value
            elif value and key in ("mark", "hl_lines"):
                highlight.append(value.strip("{}"))
            elif self.container and token == _HIDDEN:
                self.constructs.count("code-file:hidden", "dropped")
                return ""
            elif self.container and not value and title is None and re.search(r"[./]", token):
                title = token  # react.dev's ```js src/App.js
        if title is None and not highlight and lang == info:
            return text
        ranges = mkdocs.parse_ranges(" ".join(highlight).replace(",", " "))
        line = f"{indent}{marker}{_info(lang, ranges, title)}"
        return line + newline + rest


def _info(lang: str, highlight: tuple[tuple[int, int], ...], title: str | None) -> str:
    """A fence's info as the project writes it for includes: ``lang hl_lines="…" title="…"``."""
    info = lang.lower() if re.fullmatch(r"[\w+#.-]{1,40}", lang) else ""
    numbers = [str(n) for a, b in highlight for n in range(a, min(b, a + 500) + 1)]
    if numbers:
        info += f' hl_lines="{" ".join(numbers)}"'
    if title:
        info += f' title="{title.replace(chr(34), chr(39))}"'
    return info


def _fields(template: str) -> list[str]:
    """The attribute names a template reads: ``{name}`` -> ``name``."""
    return re.findall(r"\{(\w+)\}", template)


def _code_span(text: str) -> str:
    """``text`` as one code span, with enough backticks around it."""
    text = " ".join(text.split())
    if not text:
        return ""
    ticks = "`" * (1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _first_tab(element: jsx.Element) -> bool:
    """Whether no tab comes before ``element`` among its parent's children."""
    if element.parent is None:
        return True
    for sibling in element.parent.children:
        if sibling is element:
            return True
        mapping = COMPONENTS.get(sibling.name) if isinstance(sibling, jsx.Element) else None
        if mapping is not None and mapping.into == "tab":
            return False
    return True


def _dedented(text: str) -> list[str]:
    """The lines of a block's children: the opening line's tail, then the rest without
    their common indentation (fenced code keeps its own), blank lines at the ends gone."""
    lines = text.split("\n")
    first = [lines[0].strip()] if lines[0].strip() else []
    rest = lines[1:]
    widths = [
        len(line) - len(line.lstrip(" \t"))
        for line, code in mkdocs.fenced(rest)
        if line.strip() and not (code and not mkdocs.FENCE.match(line))
    ]
    cut = min(widths, default=0)
    body = first + [line[min(cut, len(line) - len(line.lstrip(" \t"))) :] for line in rest]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return [line.rstrip() if not line.strip() else line for line in body]


def _block(indent: str, head: list[str], body: list[str], tail: list[str]) -> str:
    """Lines as a block of their own at ``indent``: a blank line before and after."""
    lines = head + ([""] if head and body else []) + body + ([""] if tail and body else []) + tail
    return "\n" + "\n".join(indent + line if line.strip() else "" for line in lines) + "\n"


def _depth(lines: list[str]) -> int:
    """How many slashes beyond three the ``///`` blocks in ``lines`` already use."""
    deepest = 0
    for line in lines:
        match = _BLOCK_CLOSE.match(line)
        if match:
            deepest = max(deepest, len(match.group(1)) - 2)
    return deepest


def _plain_name(text: str) -> str:
    """A file tree entry without its Markdown emphasis (Starlight bolds the highlighted)."""
    return re.sub(r"\*\*|__|`", "", text).strip()


def _draw_tree(entries: list[tuple[int, str]]) -> list[str]:
    """Entries (indentation, name) drawn with box characters, depth from the indentation."""
    levels: list[int] = []
    depths: list[int] = []
    for width, _ in entries:
        while levels and levels[-1] > width:
            levels.pop()
        if not levels or levels[-1] < width:
            levels.append(width)
        depths.append(len(levels) - 1)
    lines: list[str] = []
    for i, ((_, name), depth) in enumerate(zip(entries, depths, strict=True)):
        prefix = ""
        for level in range(depth):
            prefix += "│   " if _continues(depths, i, level) else "    "
        last = not _continues(depths, i, depth)
        lines.append(prefix + ("└── " if last else "├── ") + name)
    return lines


def _continues(depths: list[int], i: int, level: int) -> bool:
    """Whether a later entry sits at ``level`` before the tree climbs above it."""
    for later in depths[i + 1 :]:
        if later < level:
            return False
        if later == level:
            return True
    return False
