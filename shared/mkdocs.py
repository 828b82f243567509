"""MkDocs-flavoured Markdown in one place: the stored ``///`` blocks and ``{* path *}`` includes.

``canonical`` rewrites what MkDocs sites also write (indented ``!!!``/``???`` admonitions,
``===`` tabs, ``--8<--`` snippets, ``{!path!}`` inside fences) into that one form.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from posixpath import normpath

# ``/// kind | title`` opens a block and a line of as many slashes closes it (pymdownx
# Blocks); option lines (``    type: tip``) follow the opening line, indented.
BLOCK_OPEN = re.compile(r"^(/{3,})[ \t]*([A-Za-z][\w-]*)[ \t]*(?:\|[ \t]*(.*?))?[ \t]*$")
BLOCK_CLOSE = re.compile(r"^(/{3,})[ \t]*$")
BLOCK_OPTION = re.compile(r"^[ ]{4,}([a-z][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
# FastAPI's include: ``{* path ln[1:5] hl[3, 4:5] title["app/main.py"] *}`` on its own line.
INCLUDE = re.compile(r"^[ \t]*\{\*[ \t]*(\S+)((?:[ \t]+\w+\[[^\]\n]*\])*)[ \t]*\*\}[ \t]*$")
_ARG = re.compile(r"(\w+)\[([^\]\n]*)\]")
# The stored form's explicit id closing a heading or paragraph, ``{ #id }``: any characters
# but spaces, braces, quotes and angle brackets (``{#2-install}``, ``{#custom-id}``), as
# the generators allow; the site renders it as the element's id (escaped).
ID_CHARS = r"[^\s{}\"'<>]{1,200}"
EXPLICIT_ID = re.compile(r"\{\s*#(" + ID_CHARS + r")(?:\s[^}]*)?\}\s*$")
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_INDENTED_OPEN = re.compile(r"^([ \t]*)(!!!|\?\?\?\+?|===!?)[ \t]+(.*?)[ \t]*$")
_ADMONITION_HEAD = re.compile(r'^([A-Za-z][\w-]*)?(?:[ \t]+[\w -]*?)?[ \t]*(?:"(.*)")?$')
_TAB_HEAD = re.compile(r'^"(.*)"$')
_SNIPPET = re.compile(r'^([ \t]*)-{1,}8<-{1,}[ \t]+"([^"\n]+)"[ \t]*$')
_SNIPPET_LINES = re.compile(r"^(.*?):(\d+)(?::(\d+))?$")
_FENCED_INCLUDE = re.compile(r"^[ \t]*\{!>?[ \t]*(\S+?)[ \t]*!\}[ \t]*$")
_HL_LINES = re.compile(r"""hl_lines=["']([\d\s-]+)["']""")


@dataclass(frozen=True, slots=True)
class Include:
    """One ``{* path … *}``: the path as written and the lines it shows and highlights."""

    path: str
    lines: tuple[tuple[int, int], ...] = ()  # ln[…]: shown line ranges, 1-based, inclusive
    highlight: tuple[tuple[int, int], ...] = ()  # hl[…]: line numbers of the file
    title: str | None = None

    def ref(self) -> str:
        """The path as a code reference: ``../../docs_src/a.py`` -> ``docs_src/a.py``."""
        path = normpath(self.path.replace("\\", "/")).lstrip("/")
        while path.startswith("../"):
            path = path[3:]
        return "" if path in ("..", ".") else path

    def directive(self) -> str:
        args = ""
        if self.lines:
            args += f" ln[{_ranges_text(self.lines)}]"
        if self.highlight:
            args += f" hl[{_ranges_text(self.highlight)}]"
        if self.title:
            args += f' title["{self.title}"]'
        return f"{{* {self.path}{args} *}}"


def parse_include(line: str) -> Include | None:
    """The include a line holds, or None."""
    if "{*" not in line:
        return None  # most lines: asked of every line of a page, in chunking too
    match = INCLUDE.match(line)
    if not match:
        return None
    args = dict(_ARG.findall(match.group(2)))
    title = args.get("title", "").strip().strip("\"'") or None
    return Include(
        path=match.group(1),
        lines=parse_ranges(args.get("ln", "")),
        highlight=parse_ranges(args.get("hl", "")),
        title=title,
    )


def parse_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """``"1, 3:5"`` (or ``"1 3-5"``) -> ((1, 1), (3, 5)); anything else is skipped."""
    out = []
    for part in re.split(r"[,\s]+", text.strip()):
        bounds = re.fullmatch(r"(\d{1,6})(?:[:-](\d{1,6}))?", part)
        if bounds:
            first = int(bounds.group(1))
            last = int(bounds.group(2) or first)
            if 0 < first <= last:
                out.append((first, last))
    return tuple(out[:200])  # a bound on what one directive can ask for


def _ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    return ",".join(str(a) if a == b else f"{a}:{b}" for a, b in ranges)


def in_ranges(number: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(first <= number <= last for first, last in ranges)


_ATX = re.compile(r"^(#{1,6})[ \t]+")
_ANCHOR_TAIL = re.compile(r"\{[ \t]*#[^}]*\}")


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) of a ``#`` heading line, without its closing hashes and MkDocs'
    trailing ``{ #anchor }``. Cut from the end, not by one backtracking pattern: a long
    line of ``{ #`` cost quadratic time."""
    opening = _ATX.match(line)
    if opening is None:
        return None
    text = line[opening.end() :].rstrip().rstrip("#").rstrip()
    brace = text.rfind("{")
    if brace >= 0 and _ANCHOR_TAIL.fullmatch(text, brace):
        text = text[:brace].rstrip()
    return len(opening.group(1)), text


def fenced(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Each line, and whether it belongs to a fenced code block (its fences included)."""
    fence = ""
    for line in lines:
        opening = FENCE.match(line)
        if fence:
            if opening and opening.group(2).startswith(fence) and not opening.group(3).strip():
                fence = ""
            yield line, True
        elif opening:
            fence = opening.group(2)
            yield line, True
        else:
            yield line, False


def relative_path(folder: str, href: str) -> tuple[str, str] | None:
    """(path, anchor) that a relative link points at from ``folder`` ('' at the top).

    None for URLs, absolute paths, queries and same-page anchors; the path may climb
    out of the tree (``../x.md``).
    """
    path, _, anchor = href.partition("#")
    if not path or "://" in path or path.startswith(("/", "mailto:")) or "?" in path:
        return None
    return normpath(f"{folder}/{path}" if folder else path), anchor


# -- canonical form ----------------------------------------------------------------------


def canonical(markdown: str) -> str:
    """``markdown`` with MkDocs' other block spellings rewritten as ``///`` blocks and includes.

    Linear in the text: each line is looked at once per level of indented block it sits in.
    """
    if not any(s in markdown for s in ("!!!", "???", "===", "8<", "{!")):
        return markdown  # nothing to rewrite: most pages
    return "\n".join(_canonical_lines(markdown.split("\n")))


MAX_DEPTH = 20  # indented blocks inside blocks; deeper ones stay as written


def _canonical_lines(lines: list[str], depth: int = 0) -> list[str]:
    out: list[str] = []
    i = 0
    fence: tuple[str, str] | None = None  # (indent, marker) of the open code fence
    fence_start = 0
    while i < len(lines):
        line = lines[i]
        opening = FENCE.match(line)
        if fence is not None:
            if (
                opening
                and opening.group(2)[0] == fence[1][0]
                and len(opening.group(2)) >= len(fence[1])
                and not opening.group(3).strip()
            ):
                fence = None
                # A fence that only includes files becomes those includes.
                replaced = _fence_includes([*out[fence_start:], line])
                if replaced is not None:
                    del out[fence_start:]
                    out.extend(replaced)
                else:
                    out.append(line)
            else:
                out.append(line)
            i += 1
            continue
        if opening:
            fence = (opening.group(1), opening.group(2))
            fence_start = len(out)
            out.append(line)
            i += 1
            continue
        snippet = _SNIPPET.match(line)
        if snippet:
            out.append(snippet.group(1) + _snippet_include(snippet.group(2)).directive())
            i += 1
            continue
        head = _INDENTED_OPEN.match(line) if depth < MAX_DEPTH else None
        if head:
            block = _indented_block(lines, i, head, depth)
            if block is not None:
                rewritten, i = block
                out.extend(rewritten)
                continue
        out.append(line)
        i += 1
    return out


def _snippet_include(spec: str) -> Include:
    """``--8<-- "path:10:20"`` as an include of those lines."""
    lines = _SNIPPET_LINES.match(spec)
    if lines:
        first = int(lines.group(2))
        last = int(lines.group(3) or first)
        return Include(lines.group(1), lines=((first, last),) if 0 < first <= last else ())
    return Include(spec)


def _fence_includes(fence: list[str]) -> list[str] | None:
    """A fence that only includes files (``{!> path!}``, ``--8<--``) as ``{* path *}`` lines."""
    opening = FENCE.match(fence[0])
    assert opening is not None
    indent = opening.group(1)
    hl = _HL_LINES.search(opening.group(3))
    highlight = parse_ranges(hl.group(1)) if hl else ()
    found: list[str] = []
    for line in fence[1:-1]:
        if not line.strip():
            continue
        include = _FENCED_INCLUDE.match(line)
        snippet = _SNIPPET.match(line)
        if include:
            found.append(f"{indent}{Include(include.group(1), highlight=highlight).directive()}")
        elif snippet:
            spec = _snippet_include(snippet.group(2))
            found.append(f"{indent}{Include(spec.path, spec.lines, highlight).directive()}")
        else:
            return None
    return found or None


def _indent_width(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))


def _indented_block(
    lines: list[str], start: int, head: re.Match[str], depth: int
) -> tuple[list[str], int] | None:
    """``!!! kind "title"`` / ``??? kind`` / ``=== "title"`` and its indented body, as a block."""
    indent = head.group(1)
    width = _indent_width(indent + "x")
    marker, rest = head.group(2), head.group(3)
    if marker.startswith("==="):
        tab = _TAB_HEAD.match(rest)
        if not tab:
            return None
        kind, title, options = "tab", tab.group(1), ["new: true"] if marker == "===!" else []
    else:
        admonition = _ADMONITION_HEAD.match(rest)
        if not admonition or (not admonition.group(1) and admonition.group(2) is None):
            return None
        kind = (admonition.group(1) or "note").lower()
        title = admonition.group(2) if admonition.group(2) is not None else kind.capitalize()
        options = []
        if marker.startswith("???"):
            options = [f"type: {kind}"] + (["open: true"] if marker.endswith("+") else [])
            kind = "details"
    body: list[str] = []
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if line.strip() and _indent_width(line) < width + 4:
            break
        body.append(line)
        end += 1
    while body and not body[-1].strip():
        body.pop()
        end -= 1
    inner = _canonical_lines([_dedent(line, width + 4, indent) for line in body], depth + 1)
    slashes = "/" * (3 + block_depth(inner))
    head_line = f"{indent}{slashes} {kind}" + (f" | {title}" if title else "")
    block = [head_line] + [f"{indent}    {o}" for o in options] + [""] + inner + [""]
    return [*block, f"{indent}{slashes}"], end


def _dedent(line: str, width: int, indent: str) -> str:
    expanded = line.expandtabs(4)
    return indent + expanded[width:] if expanded[:width].strip() == "" else expanded.lstrip()


def block_depth(lines: list[str]) -> int:
    """How many slashes beyond three the blocks in ``lines`` already use."""
    deepest = 0
    for line in lines:
        match = BLOCK_CLOSE.match(line.strip())
        if match:
            deepest = max(deepest, len(match.group(1)) - 2)
    return deepest


# -- plain text ---------------------------------------------------------------------------


def readable(markdown: str, *, titles: bool = True, paths: bool = True) -> str:
    """Block fences and options removed, includes as ``{* path *}`` (or left out, without
    ``paths``), a block's title kept as a bold label ``**Consejo:**`` opening its first
    paragraph (or left out, without ``titles``).

    For the views that want words, not markup: chunks (whose answers quote a block's
    first sentence with its label, and show an include as an example), search excerpts.
    """
    text = canonical(markdown)
    if "{ #" in text:
        text = _without_block_ids(text)
    if "///" not in text and "{*" not in text:
        return text
    return "\n".join(_readable_lines(text.split("\n"), titles, paths))


_BLOCK_ID = re.compile(r"[ \t]\{ #[\w:.-]+ \}$")


def _without_block_ids(text: str) -> str:
    """Paragraphs' and list items' ``{ #id }`` (attr_list ids, as the import writes them)
    left out: an id is for links, not words. Headings keep theirs (``atx_heading`` reads
    past it) and code is code."""
    return "\n".join(
        line if code or _ATX.match(line) else _BLOCK_ID.sub("", line)
        for line, code in fenced(text.split("\n"))
    )


_NOT_PROSE = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#{1,6}|\||>|\{\*|```|~~~)(?:\s|$)")


def _readable_lines(lines: list[str], titles: bool, paths: bool) -> Iterator[str]:
    options = False
    label = ""  # a block's title, waiting for the paragraph it opens
    for line, code in fenced(lines):
        stripped = line.strip()
        if label and not code and not stripped:
            continue  # the blank line between a block's head and its first paragraph
        if label and (
            code
            or BLOCK_OPEN.match(stripped)
            or BLOCK_CLOSE.match(stripped)
            or _NOT_PROSE.match(line)
            or parse_include(line) is not None
        ):
            yield label  # the block opens with a list, code or another block: alone
            yield ""
            label = ""
        if code:
            yield line
            continue
        if options and BLOCK_OPTION.match(line):
            continue
        options = False
        block = BLOCK_OPEN.match(stripped)
        if block:
            options = True
            if block.group(3) and titles:
                label = f"**{block.group(3).strip().rstrip(':')}:**"
            continue
        if BLOCK_CLOSE.match(stripped):
            continue
        include = parse_include(line)
        if include is not None:
            if paths:
                yield f"{{* {include.ref() or include.path} *}}"
            continue
        if label:
            yield f"{label} {stripped}"
            label = ""
            continue
        yield line
    if label:
        yield label
