"""mkdocs-autorefs' cross-references ``[text][package.mod.Obj]``, ``[package.mod.Obj][]``
(and their backticked forms) resolved at import.

The import knows, before it prepares any body, where each id is documented (``Tree.refs``:
the API objects the pages' ``:::`` directives render, the headings' ``{ #id }`` and the
``[](){#id}`` anchors): a reference to a known id becomes a wiki link to that page and
anchor; an unknown id that reads as a dotted name becomes inline code (as mkdocs-autorefs
leaves an unresolved one: the name, not brackets). A reference whose label the page itself
defines (``[label]: url``) is ordinary Markdown and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from shared.dialects.constructs import Constructs
from shared.text import wikilinks

REFERENCE = re.compile(
    r"(?<![\]!\\])\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]*\]){0,300})\]\[(?P<id>[^\[\]\n]{0,300})\]"
)
_DEFINITION = re.compile(r"^[ ]{0,3}\[([^\]\n]{1,300})\]:[ \t]*\S", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_][\w-]*(?:[.:][A-Za-z_][\w-]*)*(?:\(\))?")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


def defined_labels(text: str) -> set[str]:
    """The reference labels a page defines, case-folded as Markdown compares them."""
    return {" ".join(label.split()).casefold() for label in _DEFINITION.findall(text)}


def resolve(
    line: str,
    refs: Mapping[str, tuple[str, str]],
    labels: set[str],
    constructs: Constructs,
    canonical: Callable[[str], str | None] | None = None,
) -> str:
    """``line`` with its cross-references as wiki links or inline code. ``canonical``
    names the object an id reaches through re-exports (``pkg.Thing`` ->
    ``pkg._impl.Thing``), for an id no page documents under that name."""
    if "][" not in line:
        return line
    spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)] if "`" in line else []

    def replace(match: re.Match[str]) -> str:
        if any(a < match.start() < b for a, b in spans):
            return match.group(0)
        text = match.group("text").strip()
        identifier = match.group("id").strip() or text
        bare = identifier.strip("`").strip()
        if " ".join(identifier.split()).casefold() in labels:
            return match.group(0)  # an ordinary reference link
        place = refs.get(bare) or refs.get(bare.removesuffix("()"))
        if place is None and canonical is not None and _IDENTIFIER.fullmatch(bare):
            real = canonical(bare.removesuffix("()"))
            place = refs.get(real) if real else None
        if place is not None:
            slug, anchor = place
            target = f"{slug}#{anchor}" if anchor else slug
            label = text or f"`{bare}`"
            if wikilinks.is_link(f"{target}|{label}"):
                constructs.count("autoref", "mapped")
                rest = line[: match.start()] + line[match.end() :]
                pipe = "\\|" if "|" in rest else "|"
                return f"[[{target}{pipe}{label}]]"
        if not _IDENTIFIER.fullmatch(bare):
            return match.group(0)  # neither a known id nor a name: Markdown decides
        constructs.count("autoref", "dropped")
        if not text:
            return f"`{bare}`"
        return text if "`" in text else f"`{text}`"

    return REFERENCE.sub(replace, line)
