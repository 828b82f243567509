"""What an import learns from the docs tree that a page alone cannot tell (pure but for reads).

``shared.importing.prepare`` turns a file's body into the stored form by the tree's
dialect's named transforms; the helpers here are the MkDocs ones they call:
snippets, included files inline as fenced code (or, when absent, left as ``{* path *}``
and counted as code sources), API references, terminal-recording wrappers.
``read_nav`` reads ``mkdocs.yml``'s ``nav``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from posixpath import normpath
from typing import Any

from shared import mkdocs
from shared.dialects import markup, mkdocstrings
from shared.dialects.assets import Assets
from shared.dialects.constructs import Constructs
from shared.dialects.links import Resolver
from shared.dialects.mkdocs_config import Config
from shared.importing.dialects import DIALECTS, Detected, Dialect
from shared.text.code_paths import code_href

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
_TERMY_OPEN = re.compile(r'^\s*<div class="termy">\s*$')
_DIV_CLOSE = re.compile(r"^\s*</div>\s*$")
_ANY_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")


@dataclass(frozen=True, slots=True)
class Tree:
    """The folder being imported: its files' slugs, where included files and API sources
    are looked for, its MkDocs configuration and the API objects its pages document."""

    root: Path  # the docs folder (DIR)
    slugs: Mapping[str, str]  # path relative to root (posix) -> slug it is imported as
    repo: Path | None = None  # --repo (None: the folder above DIR, as before configs)
    config: Config = field(default_factory=Config)
    refs: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # autoref id -> place
    code_url: str | None = None  # BIBLIOTECA_CODE_URL, for API stand-ins
    library: mkdocstrings.Library | None = None  # the repository's Python, read by griffe
    dialect: Detected = field(default_factory=lambda: Detected(DIALECTS["markdown"], "default"))
    excluded: frozenset[str] = frozenset()  # files the config's exclude rules leave out
    partials: frozenset[str] = frozenset()  # files the dialect makes no page of (``_x.mdx``)
    files: tuple[str, ...] = ()  # every Markdown file's path relative to root (posix)
    asset_folders: tuple[Path, ...] = ()  # --assets: where site-absolute files are
    links: Resolver = field(init=False)
    assets: Assets = field(init=False)  # the files the pages link, taken as they are met
    # ``project`` with its links followed, once: every include is checked against it, and
    # resolving it again (a system call per folder of the path) was a tenth of an import.
    project_real: Path = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "links", Resolver(self.slugs, locale=self.root.name))
        object.__setattr__(self, "project_real", self.project.resolve())
        object.__setattr__(
            self, "assets", Assets(self.root, self.asset_folders, locale=self.root.name)
        )

    @property
    def project(self) -> Path:
        """The repository root that includes, snippets and API references resolve against."""
        return self.repo if self.repo is not None else self.root.parent


@dataclass
class Prepared:
    """A body in the stored form, the code paths it cites, and what the reader should know."""

    content: str
    code_refs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    constructs: Constructs = field(default_factory=Constructs)


@dataclass
class Context:
    """One file being imported: where it is, the tree around it, what it has met."""

    page: str  # the file's path relative to the docs folder (posix)
    tree: Tree
    prepared: Prepared  # code paths cited and warnings, filled as transforms run
    room: int  # bytes the body may still grow by (included files count)
    dialect: Dialect = field(default_factory=lambda: DIALECTS["markdown"])

    @property
    def constructs(self) -> Constructs:
        return self.prepared.constructs

    @property
    def mdx_file(self) -> bool:
        """Whether the file is read for components: an ``.mdx`` file, or a ``.md`` one in
        a dialect whose Markdown holds components."""
        return PurePosixPath(self.page).suffix.lower() == ".mdx" or self.dialect.components_in_md

    def page_path(self) -> PurePosixPath:
        return PurePosixPath(self.page)

    def warn(self, message: str) -> None:
        if message not in self.prepared.warnings:
            self.prepared.warnings.append(message)


# -- MkDocs' extensions and plugins ------------------------------------------------------------


MAX_API_BYTES_HELD_BACK = 16 * 1024  # room kept for includes when API references fill a page


def dialect_lines(
    lines: list[str], tree: Tree, counted: Constructs, budget: list[int]
) -> list[str]:
    """Fence attributes, custom fences, ``:::`` API references, macros and attribute lists
    in the stored form (``shared.dialects``); code is left as it is. API references take
    their bytes from ``budget`` (what the page may still grow by)."""
    out: list[str] = []
    ids: dict[int, list[str]] = {}  # line in ``out`` -> ids its attribute lists stated
    fenced = list(mkdocs.fenced(lines))
    i = 0
    while i < len(fenced):
        line, code = fenced[i]
        if code:
            # A code line here opens a block: ``_fence`` takes each block whole.
            opening = mkdocs.FENCE.match(line)
            if opening:
                i = _fence(fenced, i, opening, out, tree, counted)
                continue
            out.append(line)
            i += 1
            continue
        if line.lstrip().startswith(":::"):
            consumed = _api_reference(fenced, i, tree, counted, out, budget)
            if consumed:
                i += consumed
                continue
        stated: list[str] = []
        line = markup.html_anchors(markup.without_macros(line, counted))
        out.append(markup.attr_lists(line, counted, stated))
        if stated:
            ids[len(out) - 1] = stated
        i += 1
    if not ids:
        return out
    return markup.paragraph_ids(
        [(line, ids.get(n, []), code) for n, (line, code) in enumerate(mkdocs.fenced(out))]
    )


def _fence(
    fenced: list[tuple[str, bool]],
    start: int,
    opening: re.Match[str],
    out: list[str],
    tree: Tree,
    counted: Constructs,
) -> int:
    """A fenced block whose opening line is ``start``: its info in the one form; a custom
    fence showing a live app's screenshot (``{.textual path=…}``) as a visible note."""
    end = start + 1
    while end < len(fenced) and fenced[end][1]:
        closing = mkdocs.FENCE.match(fenced[end][0])
        end += 1
        if closing and not closing.group(3).strip():
            break
    indent, marker, info = opening.group(1), opening.group(2), opening.group(3)
    parsed = markup.fence_info(info)
    body = [line for line, _ in fenced[start + 1 : end - 1]]
    if parsed is not None and parsed[1].get("path") and not "".join(body).strip():
        # A fence that runs a program and shows its screen: what it shows cannot be made
        # here, so the reader is told which program it is.
        counted.count(f"fence:{parsed[0] or 'custom'}", "mapped")
        path = parsed[1]["path"]
        title = parsed[1].get("title")
        label = f" ({title})" if title else ""
        href = code_href(path, tree.code_url) if tree.code_url else None
        shown = f"[`{path}`]({href})" if href else f"`{path}`"
        out.extend([f"{indent}*Screenshot of {shown}{label}, not shown here.*", ""])
        return end
    normal = markup.normalised_fence(indent, marker, info, counted)
    out.append(normal if normal is not None else fenced[start][0])
    out.extend(line for line, _ in fenced[start + 1 : end])
    return end


def _api_reference(
    fenced: list[tuple[str, bool]],
    i: int,
    tree: Tree,
    counted: Constructs,
    out: list[str],
    budget: list[int],
) -> int:
    """A ``:::`` directive (and its options) as its API reference; lines consumed, or 0."""
    lines = [line for line, _ in fenced[i : i + 200]]
    found = next(mkdocstrings.directives(lines), None)
    if found is None or found.start != 0:
        return 0
    rendered = _rendered(found, tree)
    size = len(rendered.markdown.encode())
    if rendered.found and size > budget[0]:
        link = _code_link(found.identifier, tree)
        rendered = mkdocstrings.stand_in(found.identifier, link, "too large for one page")
        size = len(rendered.markdown.encode())
    budget[0] -= size
    counted.count("mkdocstrings", "rendered" if rendered.found else "mapped")
    text = mkdocs.canonical(rendered.markdown) if rendered.found else rendered.markdown
    out.extend(["", *text.split("\n"), ""])
    return found.end


def _rendered(directive: mkdocstrings.Directive, tree: Tree) -> mkdocstrings.Rendered:
    if tree.library is None:
        return mkdocstrings.stand_in(directive.identifier, None, "no repository source")
    return tree.library.rendered(directive, _code_link(directive.identifier, tree))


def _code_link(identifier: str, tree: Tree) -> str | None:
    """The code link of an object's module, with ``BIBLIOTECA_CODE_URL``, when set."""
    if not tree.code_url or tree.library is None:
        return None
    path = tree.library.source_path(identifier)
    return code_href(path, tree.code_url) if path else None


def documented_objects(tree: Tree, files: list[Path]) -> dict[str, tuple[str, str]]:
    """Where each id is documented: ``id -> (slug, anchor)`` for the API objects the pages'
    ``:::`` directives render (``anchor`` the dotted path), the headings' ``{ #id }`` and
    the ``[](){#id}`` anchors (the page itself). First page wins, as mkdocs-autorefs."""
    refs: dict[str, tuple[str, str]] = {}
    for path in files:
        name = path.relative_to(tree.root).as_posix()
        slug = tree.slugs.get(name)
        if slug is None:
            continue
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        if ":::" not in text and "{" not in text:
            continue
        lines = [line for line, code in mkdocs.fenced(text.split("\n")) if not code]
        for line in lines:
            anchor = markup.heading_id(line)
            if anchor:
                refs.setdefault(anchor, (slug, anchor))
            for anchor in markup.anchors_of(line):
                refs.setdefault(anchor, (slug, ""))
        if tree.library is None or ":::" not in text:
            continue
        for directive in mkdocstrings.directives(lines):
            rendered = tree.library.rendered(directive, None)
            for identifier, anchor in rendered.ids:
                refs.setdefault(identifier, (slug, anchor))
    return refs


def snippets(
    body: str, page: str, tree: Tree, counted: Constructs, context: Context, depth: int = 0
) -> str:
    """pymdownx.snippets' ``--8<-- "file"`` lines outside code, for files that are text:
    a Markdown, HTML or text file is put in (its own snippets too, three deep), an SVG
    file becomes an image of it. Code files stay includes (``shared.mkdocs``)."""
    if "8<" not in body:
        return body
    out: list[str] = []
    for line, code in mkdocs.fenced(body.split("\n")):
        match = _SNIPPET_LINE.match(line) if not code else None
        if match is None:
            out.append(line)
            continue
        indent, spec = match.group(1), match.group(2)
        if _escapes(spec, tree):
            # Never a file outside the project, whatever its kind: refused and said.
            counted.count("snippet:outside", "dropped")
            context.warn(f"snippet '{spec[:80]}' left out: outside the repository")
            continue
        suffix = PurePosixPath(spec).suffix.lower()
        if suffix not in _TEXT_SNIPPETS and suffix != ".svg":
            out.append(line)
            continue
        path = _find(mkdocs.Include(spec), tree)
        if path is None:
            counted.count("snippet", "dropped")
            continue
        counted.count("snippet", "mapped")
        if suffix == ".svg":
            out.append(indent + _image_of(path, page, tree))
            continue
        try:
            text = path.read_text(encoding="utf-8") if path.stat().st_size < 256 * 1024 else ""
        except (OSError, UnicodeDecodeError):
            text = ""
        if depth < 3:
            text = snippets(text, page, tree, counted, context, depth + 1)
        out.extend(indent + x if x else x for x in text.rstrip("\n").split("\n"))
    return "\n".join(out)


def _escapes(spec: str, tree: Tree) -> bool:
    """Whether a snippet's path leaves the project folder (absolute, or ``../`` past it),
    symbolic links resolved."""
    project = tree.project.resolve()
    try:
        resolved = (project / spec).resolve()
    except (OSError, RuntimeError):
        return True
    if resolved.is_relative_to(project) or resolved.is_relative_to(tree.root.resolve()):
        return False
    ref = mkdocs.Include(spec).ref()  # MkDocs' base: a leading ../ from the docs folder
    return not ref or spec.startswith("/") or not (project / ref).resolve().is_relative_to(project)


_SNIPPET_LINE = re.compile(r'^([ \t]*)-{1,}8<-{1,}[ \t]+"([^"\n]+)"[ \t]*$')
_TEXT_SNIPPETS = (".md", ".markdown", ".html", ".txt")


def _image_of(path: Path, page: str, tree: Tree) -> str:
    """An image of ``path`` as the page links it (relative, when it is in the docs tree)."""
    try:
        inside = path.resolve().relative_to(tree.root.resolve()).as_posix()
    except ValueError:
        return ""
    folder = PurePosixPath(page).parent
    ups = len(folder.parts)
    return f"![{path.stem.split('.')[0]}]({'../' * ups}{inside})"


# -- terminal recordings ------------------------------------------------------------------


def without_termy(lines: list[str]) -> Iterator[str]:
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


def included(include: mkdocs.Include, line: str, tree: Tree, room: int) -> str | None:
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
    project = tree.project_real
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


# -- the nav ------------------------------------------------------------------------------


def read_nav(tree: Tree) -> tuple[dict[str, Any] | None, list[str]]:
    """The ``nav`` of the tree's MkDocs configuration (``mkdocs_config``: found in DIR or
    above, ``INHERIT`` merged, a nav file followed), as the site build keeps it.

    ``{"items": [...]}`` in the nav's order, each item a page ``{"slug", "title"?}`` (by
    the slug its file was imported as; ``title`` when the nav names it), a section
    ``{"title", "items"}`` or an outside link ``{"title", "url"}``. None when there is no
    configuration or it has no ``nav``; warnings name entries that are no imported file.
    """
    warnings = list(tree.config.warnings)
    nav = tree.config.data.get("nav")
    if not isinstance(nav, list):
        return None, warnings
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
                warnings.append(f"{tree.config.name} nav: '{value}' is not an imported file")
                continue
            out.append({"slug": slug, **({"title": title} if title else {})})
    return out
