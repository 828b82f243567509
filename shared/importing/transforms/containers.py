"""Directive containers in every spelling, as the stored ``///`` blocks.

``:::note[Title]{attrs}`` (remark-directive: Docusaurus, Starlight), ``::: tip Title``
and ``:::warning Title`` (VitePress, Docusaurus), ``:::: details`` around a nested
``:::``, ``::: details``, ``::: code-group`` (each fence a tab, labelled by its
``[title]``), ``::: v-pre`` / ``::: raw`` (their text kept as it is), MyST's
``:::{note}`` and ```` ```{note} ```` fences. A closing line of colons closes the
innermost container it can (as many colons or more); an unclosed one ends with the
file. In a dialect with API references (mkdocstrings), ``::: pkg.mod.Obj`` is left for
them: only a known kind is a container there. Lines inside code are never read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shared.dialects.mdx import DIRECTIVES
from shared.importing.source import Source
from shared.importing.tree import Context

_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<colons>:{3,})[ \t]*"
    r"(?P<name>\{[A-Za-z][\w-]*\}|[A-Za-z][\w.-]*)?"
    r"(?:\[(?P<label>[^\]\n]*)\])?[ \t]*(?:\{(?P<attrs>[^}\n]*)\})?[ \t]*(?P<rest>.*?)[ \t]*$"
)
_CLOSE = re.compile(r"^[ \t]*(:{3,})[ \t]*$")
_MYST_FENCE = re.compile(r"^\{([A-Za-z][\w-]*)\}[ \t]*(.*)$")
_MYST_OPTION = re.compile(r"^[ \t]*:[\w-]+:.*$")
_FENCE_LABEL = re.compile(r"\[([^\]\n]+)\]")
_FENCE_LINE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")

# The admonition kinds of the generators, as the stored form's kinds: the MDX
# directives' own, and the other spellings (reST's, VitePress's) folded into them.
KINDS: dict[str, str] = {
    **DIRECTIVES,
    "attention": "warning",
    "error": "danger",
    "hint": "tip",
    "seealso": "note",
    "admonition": "note",
}
DETAILS = frozenset({"details", "dropdown"})
TABS = frozenset({"code-group", "tabs"})
UNWRAPPED = frozenset({"v-pre", "raw", "div", "container"})
MAX_DEPTH = 20


@dataclass
class _Node:
    start: int  # the opening line
    colons: int
    name: str
    title: str
    attrs: str
    indent: str
    end: int = -1  # the closing line (-1: none, closed by the end of the file)
    children: list[_Node] = field(default_factory=list)

    def height(self) -> int:
        own = 1 if self.name in TABS else 0  # a code group's tabs are blocks of their own
        return max((c.height() + 1 for c in self.children), default=own)


def _is_container(name: str, context: Context) -> bool:
    if not context.dialect.api_directives:
        return True
    return name.strip("{}").lower() in KINDS or name in DETAILS | TABS | UNWRAPPED


def run(source: Source, context: Context) -> str:
    """The body with every container as a ``///`` block (see the module docstring)."""
    text = source.text
    if ":::" not in text and "```{" not in text and "~~~{" not in text:
        return text
    lines = source.lines
    code = source.code
    roots: list[_Node] = []
    stack: list[_Node] = []
    stray: list[int] = []
    for n, line in enumerate(lines):
        if n in code or ":::" not in line:
            continue
        closing = _CLOSE.match(line)
        if closing:
            colons = len(closing.group(1))
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].colons <= colons), -1)
            if at < 0:
                stray.append(n)
                continue
            for node in stack[at:]:
                node.end = n
            del stack[at:]
            continue
        opening = _OPEN.match(line)
        if not opening or len(stack) >= MAX_DEPTH:
            continue
        name = opening.group("name") or ""
        if name and not _is_container(name, context):
            continue
        label = opening.group("label")
        node = _Node(
            n,
            len(opening.group("colons")),
            name.strip("{}").lower(),
            (label if label is not None else opening.group("rest") or "").strip(),
            opening.group("attrs") or "",
            opening.group("indent"),
        )
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    myst = _myst_fences(source, context)
    if not roots and not stray and not myst:
        return text
    # Each line of the source becomes the lines that stand for it (none: removed).
    out = [[line] for line in lines]
    for node in roots:
        _write(node, out, lines, code, context)
    for n in stray:
        context.constructs.count("directive:stray-close", "dropped")
        out[n] = []
    for first, last, kind, title in myst:
        _write_myst(out, lines, first, last, kind, title, context)
    return "\n".join(line for replaced in out for line in replaced)


def _write(
    node: _Node, out: list[list[str]], lines: list[str], code: frozenset[int], context: Context
) -> None:
    for child in node.children:
        _write(child, out, lines, code, context)
    slashes = "/" * (3 + node.height())
    indent = node.indent
    name = node.name
    if name in UNWRAPPED:
        context.constructs.count(f"directive:{name}", "mapped")
        out[node.start] = []
        if node.end >= 0:
            out[node.end] = []
        return
    if name in TABS:
        context.constructs.count(f"directive:{name}", "mapped")
        _tabs(node, out, lines, code, context)
        return
    head: list[str]
    if name in DETAILS:
        context.constructs.count(f"directive:{name}", "mapped")
        head = [f"{indent}{slashes} details" + (f" | {node.title}" if node.title else "")]
        if re.search(r"(?:^|\s)open(?:\s|$|=)", node.attrs):
            head.append(f"{indent}    open: true")
        head.append("")
    else:
        kind = KINDS.get(name or "note")
        context.constructs.count(f"directive:{name or 'note'}", "mapped")
        title = node.title
        if kind is None:
            # A kind of the site's own (``:::my-custom``): a note that names itself.
            kind, title = "note", title or name
        head = [f"{indent}{slashes} {kind}" + (f" | {title}" if title else ""), ""]
    out[node.start] = head
    tail = ["", f"{indent}{slashes}"]
    if node.end >= 0:
        out[node.end] = tail
    else:
        out[-1] = [*out[-1], *tail]


def _tabs(
    node: _Node, out: list[list[str]], lines: list[str], code: frozenset[int], context: Context
) -> None:
    """A code group: each fence inside a tab of one new set, labelled by its ``[title]``."""
    end = node.end if node.end >= 0 else len(out)
    out[node.start] = []
    if node.end >= 0:
        out[node.end] = []
    first = True
    n = node.start + 1
    while n < end:
        opening = _FENCE_LINE.match(lines[n]) if n in code else None
        if opening is None:
            n += 1
            continue
        close = n + 1
        while close < end and close in code and not _closes(lines[close], opening.group(2)):
            close += 1
        indent, marker, info = opening.groups()
        label_match = _FENCE_LABEL.search(info)
        label = label_match.group(1).strip() if label_match else (info.split() or ["…"])[0]
        if label_match:
            info = (info[: label_match.start()] + info[label_match.end() :]).rstrip()
        head = [f"{indent}/// tab | {label}"]
        if first:
            head.append(f"{indent}    new: true")
        out[n] = [*head, "", f"{indent}{marker}{info}"]
        if close < end:
            out[close] = [*out[close], "", f"{indent}///", ""]
        first = False
        context.constructs.count("code-group:tab", "mapped")
        n = close + 1


def _closes(line: str, marker: str) -> bool:
    match = _FENCE_LINE.match(line)
    return bool(match and match.group(2).startswith(marker) and not match.group(3).strip())


def _myst_fences(source: Source, context: Context) -> list[tuple[int, int, str, str]]:
    """MyST's ```` ```{note} ```` fences of admonition kinds: (first, last line, kind, title)."""
    found = []
    for first, last, info in source.fences:
        match = _MYST_FENCE.match(info.strip())
        if not match:
            continue
        name = match.group(1).lower()
        if name in KINDS or name in DETAILS:
            found.append((first, last - 1, name, match.group(2).strip()))
    return found


def _write_myst(
    out: list[list[str]],
    lines: list[str],
    first: int,
    last: int,
    name: str,
    title: str,
    context: Context,
) -> None:
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    context.constructs.count(f"myst:{name}", "mapped")
    if name in DETAILS:
        out[first] = [f"{indent}/// details" + (f" | {title}" if title else ""), ""]
    else:
        kind = KINDS[name]
        shown = title if title or name != "admonition" else ""
        out[first] = [f"{indent}/// {kind}" + (f" | {shown}" if shown else ""), ""]
    n = first + 1
    while n < last and _MYST_OPTION.match(lines[n]):
        out[n] = []  # ``:class: x`` options of the directive
        n += 1
    if last > first and _FENCE_LINE.match(lines[last]):
        out[last] = ["", f"{indent}///"]
    else:
        out[last] = [*out[last], "", f"{indent}///"]
