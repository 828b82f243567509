"""What source syntax a reader would see on a page: any dialect, any corpus.

The one definition the import's fidelity check (``shared.services.fidelity``) and the test
crawler of built sites share, so both agree on *what* raw syntax is while reading different
HTML (the importer renders each page's body, the crawler reads the published files).
``raw_syntax(html)`` parses with ``html.parser`` (not a regex over HTML: a tag split over
lines or an attribute holding ``>`` would fool one) and looks only at the text a reader
sees: outside ``<code>``/``<pre>`` (where source syntax is the point), outside
``<script>``/``<style>`` (not shown), with entities decoded, so ``&lt;Foo`` is ``<Foo``.
Each pattern names one family of source syntax that no rendered page should show; the
patterns are about the syntax of the dialects (MkDocs and its plugins, MDX, Jinja, Vue),
never about one corpus's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from shared.text.html_tags import HTML_ELEMENTS

# Where each family of source syntax shows as text. Line-start patterns (block fences)
# look at the start of a line of the text, as the source wrote them.
PATTERNS: dict[str, re.Pattern[str]] = {
    "directive": re.compile(r":::"),  # mkdocstrings, Docusaurus/Starlight admonitions
    "mdx-comment": re.compile(r"\{/\*"),
    "jinja": re.compile(r"\{\{|\}\}|\{%|%\}"),
    "brace-hash": re.compile(r"\{#"),  # Jinja comments, MDX heading ids
    "attr-list": re.compile(r"\{:?[ \t]*[#.][A-Za-z_][^{}\n]{0,200}\}"),
    "autoref": re.compile(r"\]\[|\]\]|\[\["),
    "html-comment": re.compile(r"<!--|-->"),
    # A tag shown as text: <Foo ...>, </div>, <Foo/>; not "a < b" nor "List<int>".
    "tag": re.compile(r"(?<![\w<])</?[A-Za-z][\w.:-]*(?:\s[^<>\n]*)?/?>"),
    "block-fence": re.compile(r"(?m)^[ \t]*(?:/{3,}|!!!|\?\?\?\+?|===!?)(?=[ \t]|$)"),
    "include": re.compile(r"\{\*|\*\}|-+8<-+|\{!"),
    "keys": re.compile(r"(?<![\w+])\+\+[A-Za-z0-9][\w+-]*\+\+"),  # pymdownx.keys
}
_HIDDEN = frozenset({"script", "style", "template", "textarea"})  # never shown
_CODE = frozenset({"code", "pre"})  # shown, but source syntax is their point
_BLOCKS = frozenset({"p", "li", "div", "td", "th", "br", "h1", "h2", "h3", "h4", "h5", "h6"})
SAMPLE_AROUND = 40  # characters of context each side of a finding


@dataclass(frozen=True, slots=True)
class Finding:
    """One piece of source syntax shown as text: its family and the text around it."""

    kind: str
    excerpt: str


class _Text(HTMLParser):
    """The page's visible text runs: ``prose`` outside code, ``code`` inside it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.code = 0
        self.prose: list[str] = []
        self.code_runs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag in _CODE:
            self.code += 1
            self.code_runs.append("\n")
        elif tag in _BLOCKS:
            self.prose.append("\n")  # a block starts a line: block fences are looked for there

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN and self.hidden:
            self.hidden -= 1
        elif tag in _CODE and self.code:
            self.code -= 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.prose.append("\n")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        (self.code_runs if self.code else self.prose).append(data)

    def handle_comment(self, data: str) -> None:
        return  # a real comment is not shown


@dataclass(frozen=True, slots=True)
class Visible:
    """A page's text as a reader sees it: the prose (each block on a line) and the code."""

    prose: str
    code: str


def visible(html: str) -> Visible:
    """The text a reader sees on ``html``, prose and code apart (see the module)."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return Visible("".join(parser.prose), "".join(parser.code_runs))


def visible_text(html: str) -> str:
    """The text a reader sees, outside code: runs joined, each block on a line of its own."""
    return visible(html).prose


# ``<color>``: an opening tag of a name alone (no attributes), in any alphabet.
_BARE = re.compile(r"<([^\W\d_][\w-]*)>")


def _placeholder(shown: str) -> bool:
    """``<color>``, ``<text-align>``: a bare lowercase name that is no HTML element, what
    docs write for a grammar's placeholder; its closing form (``</color>``) is no
    placeholder, so a component left unrendered still shows by its end tag."""
    bare = _BARE.fullmatch(shown)
    if bare is None:
        return False
    name = bare.group(1)
    return name == name.lower() and name not in HTML_ELEMENTS


def findings(text: str) -> list[Finding]:
    """Every piece of raw source syntax in a visible ``text``, in order of family."""
    found: list[Finding] = []
    for kind, pattern in PATTERNS.items():
        for match in pattern.finditer(text):
            if kind == "tag" and _placeholder(match.group(0)):
                continue
            start = max(0, match.start() - SAMPLE_AROUND)
            end = min(len(text), match.end() + SAMPLE_AROUND)
            found.append(Finding(kind, " ".join(text[start:end].split())))
    return found


def raw_syntax(html: str) -> list[Finding]:
    """Every piece of raw source syntax shown as text on the page, in order of family."""
    return findings(visible_text(html))
