"""Included files put in place: ``<!--@include: ./x.md-->``, ``<<< @/file``, MDX partials.

VitePress's ``<!--@include: path{3,5}-->`` (or ``#region``) puts a Markdown file's
lines in the page; ``<<< @/snippets/a.js#region{2} [title]`` shows a code file as a
fenced block (``@`` is the source root: the folder holding ``.vitepress``); an MDX
``import Part from './_part.mdx'`` shown as ``<Part />`` puts that partial's body in.
Files are read only inside the docs folder and the repository root (``--repo``), with
symbolic links resolved: a path that leaves them (``/etc/passwd``, ``../../``) is
refused, counted and named in a warning, never shown. Each file is bounded in size,
nesting three deep, and by the room the page has left.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path, PurePosixPath

from shared.importing.source import Source
from shared.importing.tree import Context

MAX_INCLUDED_BYTES = 256 * 1024
MAX_NESTING = 3
_INCLUDE = re.compile(
    r"^([ \t]*)<!--\s*@include:\s*([^\s{#]+?)(#[\w-]+)?(?:\{(\d*),?(\d*)\})?\s*-->[ \t]*$"
)
_SNIPPET = re.compile(
    r"^([ \t]*)<<<[ \t]+(\S+?)(#[\w-]+)?(?:\{([^}\n]*)\})?(?:[ \t]+\[([^\]\n]*)\])?[ \t]*$"
)
_IMPORT = re.compile(r"""^import\s+([A-Z]\w*)\s+from\s+['"]([^'"\n]+\.mdx?)['"];?\s*$""")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)
_LANGUAGES = {
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".ts": "ts",
    ".mts": "ts",
    ".tsx": "tsx",
    ".jsx": "jsx",
    ".vue": "vue",
    ".py": "python",
    ".json": "json",
    ".css": "css",
    ".html": "html",
    ".sh": "bash",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".toml": "toml",
    ".md": "md",
    ".ansi": "ansi",
    ".rs": "rust",
    ".go": "go",
    ".txt": "text",
}


def run(source: Source, context: Context) -> str:
    text = source.text
    if "@include" not in text and "<<<" not in text and "import " not in text:
        return text
    return _expanded(source, context, context.page_path(), 0)


def _expanded(source: Source, context: Context, page: PurePosixPath, depth: int) -> str:
    lines = source.lines
    code = source.code
    partials = _partials(lines, code, page, context) if context.mdx_file else {}
    out: list[str] = []
    for n, line in enumerate(lines):
        if n in code:
            out.append(line)
            continue
        include = _INCLUDE.match(line) if "@include" in line else None
        if include:
            out += _markdown_include(include, context, page, depth)
            continue
        snippet = _SNIPPET.match(line) if "<<<" in line else None
        if snippet:
            out += _code_snippet(snippet, context, page)
            continue
        partial = re.fullmatch(r"([ \t]*)<([A-Z]\w*)\s*/>[ \t]*", line) if partials else None
        if partial and partial.group(2) in partials:
            body = partials[partial.group(2)]
            if body is not None and depth < MAX_NESTING:
                context.constructs.count("mdx-partial", "mapped")
                out += [partial.group(1) + x if x else x for x in body.split("\n")]
                continue
        out.append(line)
    return "\n".join(out)


def _partials(
    lines: list[str], code: frozenset[int], page: PurePosixPath, context: Context
) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for n, line in enumerate(lines):
        match = _IMPORT.match(line) if n not in code and line.startswith("import") else None
        if match is None:
            continue
        path = _inside(match.group(2), page, context)
        text = _read(path, context) if path is not None else None
        if text is not None:
            text = _FRONT_MATTER.sub("", text, count=1)
            # The partial's own imports are its own; they are dropped with it.
            text = "\n".join(x for x in text.split("\n") if not _IMPORT.match(x))
        found[match.group(1)] = text
    return found


def _markdown_include(
    match: re.Match[str], context: Context, page: PurePosixPath, depth: int
) -> list[str]:
    indent, spec, region, first, last = match.groups()
    path = _inside(spec, page, context)
    text = _read(path, context) if path is not None else None
    if text is None or depth >= MAX_NESTING:
        return []
    context.constructs.count("include:markdown", "mapped")
    lines = text.split("\n")
    if region:
        lines = _region(lines, region[1:])
    if first or last:
        lines = lines[(int(first) - 1 if first else 0) : (int(last) if last else None)]
    inner = Source("\n".join(lines), context.dialect.indented_code)
    nested = _expanded(inner, context, _page_of(path, context) or page, depth + 1)
    return [indent + x if x else x for x in nested.split("\n")]


def _code_snippet(match: re.Match[str], context: Context, page: PurePosixPath) -> list[str]:
    indent, spec, region, braces, title = match.groups()
    path = _inside(spec, page, context)
    text = _read(path, context) if path is not None else None
    if text is None or path is None:
        return []
    context.constructs.count("include:code", "mapped")
    lines = text.rstrip("\n").split("\n")
    if region:
        lines = _region(lines, region[1:])
    lang = _LANGUAGES.get(path.suffix.lower(), path.suffix.lstrip(".").lower() or "text")
    highlight = ""
    for part in (braces or "").split():
        if re.fullmatch(r"[\d,\s-]+", part):
            highlight = part
        elif re.fullmatch(r"[\w+#.-]{1,40}", part):
            lang = part
    info = lang + (f" {{{highlight}}}" if highlight else "") + (f" [{title}]" if title else "")
    ticks = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    return [indent + x for x in [ticks + info, *lines, ticks]]


def _region(lines: list[str], name: str) -> list[str]:
    """The lines between ``#region name`` and ``#endregion`` (any comment syntax)."""
    start = re.compile(r"#region\s+" + re.escape(name) + r"\b")
    out: list[str] = []
    inside = False
    for line in lines:
        if not inside and start.search(line):
            inside = True
        elif inside and "#endregion" in line:
            break
        elif inside:
            out.append(line)
    return out


@cache
def _source_root(root: Path) -> Path | None:
    """The folder holding ``.vitepress`` at or above ``root`` (VitePress's ``@``)."""
    for folder in (root, *root.parents[:6]):
        if (folder / ".vitepress").is_dir():
            return folder
    return None


def _inside(spec: str, page: PurePosixPath, context: Context) -> Path | None:
    """The file ``spec`` names from ``page``, resolved, when it is inside the docs folder
    or the repository root; else None, counted and named in a warning."""
    tree = context.tree
    root = tree.root.resolve()
    allowed = [root, tree.project.resolve()]
    if spec.startswith("@/"):
        base = _source_root(root) or tree.project.resolve()
        allowed.append(base)
        candidate = base / spec[2:]
    elif spec.startswith("@site/"):
        candidate = tree.project.resolve() / spec[len("@site/") :]
    elif spec.startswith("/"):
        candidate = Path(spec)
    else:
        candidate = root / page.parent / spec
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError):
        resolved = None
    if resolved is None or not any(resolved.is_relative_to(a) for a in allowed):
        context.constructs.count("include:outside", "dropped")
        context.warn(f"include '{spec[:80]}' left out: outside the docs tree")
        return None
    if not resolved.is_file():
        context.constructs.count("include:missing", "dropped")
        context.warn(f"include '{spec[:80]}' left out: no such file")
        return None
    return resolved


def _read(path: Path | None, context: Context) -> str | None:
    if path is None:
        return None
    try:
        size = path.stat().st_size
        if size > MAX_INCLUDED_BYTES or size > context.room:
            context.warn(f"include '{path.name}' left out: too large")
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        context.constructs.count("include:unreadable", "dropped")
        return None
    context.room -= len(text.encode())
    return text


def _page_of(path: Path | None, context: Context) -> PurePosixPath | None:
    if path is None:
        return None
    try:
        return PurePosixPath(path.relative_to(context.tree.root.resolve()).as_posix())
    except ValueError:
        return None
