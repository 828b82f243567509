"""What an import learns from the docs tree that a page alone cannot tell (pure but for reads).

``prepare`` turns a file's body into the stored form: MDX constructs mapped first
(``shared.dialects.mdx``), MkDocs spellings as ``///`` blocks
(``shared.mkdocs``), included files inline as fenced code (or, when absent, left as
``{* path *}`` and counted as code sources), relative links to imported files as wiki
links, terminal-recording wrappers removed. ``read_nav`` reads ``mkdocs.yml``'s ``nav``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from posixpath import normpath
from typing import Any

import yaml

from shared import mkdocs, wikilinks
from shared.dialects import mdx
from shared.dialects.constructs import Constructs

MAX_INCLUDED_BYTES = 256 * 1024  # one included file; larger ones stay a link to the code
_LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".jsx": "jsx",
    ".html": "html",
    ".css": "css",
    ".json": "json",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".toml": "toml",
    ".sh": "bash",
    ".md": "markdown",
    ".sql": "sql",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".ini": "ini",
    ".txt": "text",
}
# [text](target "title"): the text may hold one level of brackets; images are skipped.
_LINK = re.compile(
    r"(?<!!)\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\((?P<url><[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\)"
)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_TERMY_OPEN = re.compile(r'^\s*<div class="termy">\s*$')
_DIV_CLOSE = re.compile(r"^\s*</div>\s*$")
_ANY_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")


@dataclass(frozen=True, slots=True)
class Tree:
    """The folder being imported: its files' slugs and where included files are looked for."""

    root: Path  # the docs folder (DIR)
    slugs: Mapping[str, str]  # path relative to root (posix) -> slug it is imported as

    @property
    def project(self) -> Path:
        """The MkDocs project folder (where ``mkdocs.yml`` sits beside ``docs/``)."""
        return self.root.parent


@dataclass
class Prepared:
    """A body in the stored form, the code paths it cites, and what the reader should know."""

    content: str
    code_refs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    constructs: Constructs = field(default_factory=Constructs)


def prepare(body: str, page: str, tree: Tree, room: int) -> Prepared:
    """``body`` of the file at ``page`` (relative to the root) in the stored form.

    ``room`` is how many bytes the body may still grow by (included files count).
    """
    out = Prepared(content="")
    body = mdx.to_stored(body, out.constructs, mdx=mdx.is_mdx(page, body))
    lines = _without_termy(mkdocs.canonical(body).split("\n"))
    result: list[str] = []
    for line, code in mkdocs.fenced(lines):
        if code:
            result.append(line)
            continue
        include = mkdocs.parse_include(line)
        if include is not None:
            block = _included(include, line, tree, room)
            if block is None:
                ref = include.ref()
                if ref and ref not in out.code_refs:
                    out.code_refs.append(ref)
                result.append(line)
            else:
                room -= len(block.encode()) - len(line.encode())
                result.append(block)
            continue
        result.append(_links(line, page, tree))
    out.content = "\n".join(result)
    return out


# -- terminal recordings ------------------------------------------------------------------


def _without_termy(lines: list[str]) -> Iterator[str]:
    """FastAPI's ``<div class="termy">`` wraps a console fence whose text is coloured with
    HTML for a JavaScript player: the wrapper goes and the fence keeps the plain text."""
    inside = False
    for line, code in mkdocs.fenced(lines):
        if code:
            yield _plain_console(line) if inside else line
        elif not inside and _TERMY_OPEN.match(line):
            inside = True
        elif inside and _DIV_CLOSE.match(line):
            inside = False
        else:
            yield line


def _plain_console(line: str) -> str:
    text = _ANY_TAG.sub("", line)
    for entity, char in (("&apos;", "'"), ("&quot;", '"'), ("&lt;", "<"), ("&gt;", ">")):
        text = text.replace(entity, char)
    return text.replace("&amp;", "&")


# -- included files -----------------------------------------------------------------------


def _included(include: mkdocs.Include, line: str, tree: Tree, room: int) -> str | None:
    """The file as a fenced block (its language, shown lines, highlights), or None."""
    path = _find(include, tree)
    if path is None:
        return None
    try:
        if path.stat().st_size > MAX_INCLUDED_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    numbered = list(enumerate(text.splitlines(), start=1))
    if include.lines:
        numbered = [(n, t) for n, t in numbered if mkdocs.in_ranges(n, include.lines)]
    shown: list[str] = []
    highlight: list[int] = []
    previous = 0
    for number, text_line in numbered:
        if previous and number != previous + 1:
            shown.append("…")  # lines left out between two shown ranges
        shown.append(text_line)
        if mkdocs.in_ranges(number, include.highlight):
            highlight.append(len(shown))
        previous = number
    marker = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    info = _LANGUAGES.get(path.suffix.lower(), path.suffix.lstrip(".").lower() or "text")
    if highlight:
        info += f' hl_lines="{" ".join(str(n) for n in highlight)}"'
    if include.title:
        info += f' title="{include.title}"'
    indent = line[: len(line) - len(line.lstrip())]
    block = "\n".join(indent + part for part in [marker + info, *shown, marker])
    return block if len(block.encode()) - len(line.encode()) <= room else None


def _find(include: mkdocs.Include, tree: Tree) -> Path | None:
    """The included file inside the project folder: the path as written from there (MkDocs'
    base), else without its leading ``../`` under the project or the docs folder."""
    project = tree.project.resolve()
    candidates = [tree.project / include.path]
    ref = include.ref()
    if ref:
        candidates += [tree.project / ref, tree.root / ref]
    for candidate in candidates:
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            continue
        if resolved.is_relative_to(project) and resolved.is_file():
            return resolved
    return None


# -- links --------------------------------------------------------------------------------


def _links(line: str, page: str, tree: Tree) -> str:
    """Relative links to imported Markdown files (or their folders) as wiki links; a link
    that starts inside a code span is code, and is left alone."""
    if "](" not in line:
        return line
    spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)]

    def replace(match: re.Match[str]) -> str:
        if any(start <= match.start() < end for start, end in spans):
            return match.group(0)
        target = link_target(match.group("url").strip("<>"), page, tree)
        label = match.group("text").strip()
        if target is None or not wikilinks.is_link(f"{target}|{label}"):
            return match.group(0)
        pipe = "\\|" if "|" in line.replace(match.group(0), "") else "|"
        return f"[[{target}{pipe + label if label else ''}]]"

    return _LINK.sub(replace, line)


def link_target(url: str, page: str, tree: Tree) -> str | None:
    """``slug#anchor`` of a relative link to an imported file (or folder with an index)."""
    folder = str(PurePosixPath(page).parent)
    found = mkdocs.relative_path("" if folder == "." else folder, url)
    if found is None:
        return None
    joined, anchor = found
    candidates = [joined]
    if not PurePosixPath(joined).suffix:
        candidates = [f"{joined}/index.md", f"{joined}/README.md", f"{joined}.md"]
    for candidate in candidates:
        slug = tree.slugs.get(candidate.removeprefix("./"))
        if slug is not None:
            return f"{slug}#{anchor}" if anchor else slug
    return None


# -- the nav ------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """Safe YAML that reads MkDocs' ``!!python/name:`` and ``!ENV`` tags as nothing."""


def _ignore(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> None:
    return None


_Loader.add_multi_constructor("!", _ignore)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _ignore)


def read_nav(tree: Tree) -> tuple[dict[str, Any] | None, list[str]]:
    """The ``nav`` of ``mkdocs.yml`` beside the docs folder, as the site build keeps it.

    ``{"items": [...]}`` in the nav's order, each item a page ``{"slug", "title"?}`` (by
    the slug its file was imported as; ``title`` when the nav names it), a section
    ``{"title", "items"}`` or an outside link ``{"title", "url"}``. None when there is no
    ``mkdocs.yml`` or it has no ``nav``; warnings name entries that are no imported file.
    """
    config = tree.project / "mkdocs.yml"
    if not config.is_file():
        return None, []
    try:
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return None, [f"mkdocs.yml could not be read: {str(exc).splitlines()[0]}"]
    nav = data.get("nav") if isinstance(data, dict) else None
    if not isinstance(nav, list):
        return None, []
    warnings: list[str] = []
    return {"items": _nav_items(nav, tree, warnings, depth=0)}, warnings


def _nav_items(items: list[Any], tree: Tree, warnings: list[str], depth: int) -> list[Any]:
    out: list[dict[str, Any]] = []
    for item in items:
        label, value = (None, item)
        if isinstance(item, dict) and len(item) == 1:
            label, value = next(iter(item.items()))
        title = str(label).strip() if label is not None else None
        if isinstance(value, list) and depth < 10:
            out.append(
                {"title": title or "", "items": _nav_items(value, tree, warnings, depth + 1)}
            )
        elif isinstance(value, str) and "://" in value:
            out.append({"title": title or value, "url": value})
        elif isinstance(value, str):
            slug = tree.slugs.get(normpath(value).removeprefix("./"))
            if slug is None:
                warnings.append(f"mkdocs.yml nav: '{value}' is not an imported file")
                continue
            out.append({"slug": slug, **({"title": title} if title else {})})
    return out
