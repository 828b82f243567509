"""Which generator wrote a docs tree, and what reading its files takes: one table.

A ``Dialect`` is data: the named transforms that turn a file's body into the stored
form, in order (``shared.importing.transforms.REGISTRY`` names them), and how its
Markdown is read (components in ``.md`` files, ``{…}`` as expressions, ``::: pkg.Obj``
as an API reference). ``detect`` decides from the tree's own configuration
(``mkdocs.yml``, ``zensical.toml``, ``docusaurus.config.*``, ``astro.config.*`` with
Starlight, ``.vitepress/config.*``), found in DIR or above it, else from its content;
the ``why`` it returns is the file or the content that decided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from shared.dialects.mdx import Mapping

# Every dialect reads every family (containers, components, fence metadata, includes,
# alerts): a construct documented by one generator is met in the others' trees too.
# What differs is how a file's Markdown is read, below.
TRANSFORMS: tuple[str, ...] = (
    "live-fences",  # ```mdx-code-block: MDX in a fence, rendered, not shown
    "includes",  # <!--@include: -->, <<< @/file, imported MDX partials: text first
    "snippets",  # pymdownx.snippets' --8<-- "file"
    "comments",  # <!-- … --> (an unclosed one keeps the rest)
    "block-count",  # MkDocs' block spellings, counted before they are rewritten
    "containers",  # ::: kind Title / :::kind[Title]{attrs} / :::: nested / MyST
    "alerts",  # > [!NOTE]
    "math",  # $$ … $$ and $…$, shown as their TeX in code
    "components",  # JSX/Vue components, <script>/<style>, import/export, {expressions}
    "termy",  # terminal-recording wrappers around console fences
    "mkdocs-blocks",  # !!! / ??? / === as /// blocks
    "fence-meta",  # [title], {1,3}, Shiki notation, twoslash
    "dialect-lines",  # fence attributes, custom fences, mkdocstrings, macros, attr lists
    "html",  # the HTML the stored form has no use for, as Markdown
    "inline",  # autorefs, {* includes *}, ++keys++, links to imported files and assets
)


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one generator's files are read into the stored form."""

    name: str
    transforms: tuple[str, ...] = TRANSFORMS
    components_in_md: bool = False  # ``.md`` files hold components too (MDX or Vue)
    expressions: bool = True  # ``{…}`` in a component file is JavaScript (MDX), not text
    api_directives: bool = False  # ``::: pkg.mod.Obj`` is an API reference (mkdocstrings)
    indented_code: bool = True  # four spaces of indentation make code (not MDX, MkDocs)
    # The generator's own components, over the shared table (``shared.dialects.mdx``).
    components: dict[str, Mapping] = field(default_factory=dict)
    # Files the generator never makes pages of, only text a page imports: "name", a file
    # whose name begins with ``_`` (Starlight's docs loader); "path", also any file under
    # a folder whose name does (Docusaurus' default ``exclude``); "" none.
    partials: Literal["", "name", "path"] = ""

    def is_partial(self, relative: str) -> bool:
        """Whether the file at ``relative`` (posix, below the docs folder) is a partial."""
        parts = PurePosixPath(relative).parts
        chosen = parts if self.partials == "path" else parts[-1:] if self.partials else ()
        return any(part.startswith("_") for part in chosen)


DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in (
        Dialect("mkdocs", api_directives=True, indented_code=False),
        # Docusaurus 3 reads ``.md`` as MDX unless told otherwise.
        Dialect("docusaurus", components_in_md=True, indented_code=False, partials="path"),
        # Astro reads ``.md`` as plain Markdown; only ``.mdx`` holds components.
        Dialect("starlight", indented_code=False, partials="name"),
        # Vue in Markdown: components and ``<script setup>``, ``{{ }}`` interpolation,
        # single braces are text.
        Dialect(
            "vitepress",
            components_in_md=True,
            expressions=False,
            components={
                "ClientOnly": Mapping("children"),
                "VPBadge": Mapping("text", template="{text}"),
            },
        ),
        # react.dev: MDX components inside ``.md`` files.
        Dialect(
            "react",
            components_in_md=True,
            indented_code=False,
            # react.dev's <Diagram name="x"> shows /images/docs/diagrams/x.png.
            components={"Diagram": Mapping("image", template="/images/docs/diagrams/{name}.png")},
        ),
        # MDX files with no generator's configuration beside them.
        Dialect("mdx", indented_code=False),
        # GitHub-flavoured Markdown (alerts) and MyST directives, with no generator.
        Dialect("markdown"),
    )
}


@dataclass(frozen=True, slots=True)
class Detected:
    """The dialect a tree is read in, and what decided it (a file, content, or --dialect)."""

    dialect: Dialect
    why: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.dialect.name, "why": self.why}


_CONFIGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mkdocs", ("mkdocs.yml", "mkdocs.yaml", "zensical.toml")),
    ("docusaurus", tuple(f"docusaurus.config.{e}" for e in ("ts", "js", "mjs", "cjs", "mts"))),
    ("vitepress", tuple(f".vitepress/config.{e}" for e in ("ts", "js", "mjs", "mts", "cjs"))),
    ("starlight", tuple(f"astro.config.{e}" for e in ("mjs", "ts", "js", "mts", "cjs"))),
)
MAX_LEVELS = 6  # folders above DIR looked at for a configuration
_COMPONENT_LINE = re.compile(r"(?m)^[ \t]*<[A-Z][A-Za-z0-9]*[\s/>]")
# ``!!! note``, ``??? tip``, ``=== "Tab"``, ``::: pkg.mod.Obj``: MkDocs' own spellings.
_MKDOCS_LINE = re.compile(
    r'(?m)^(?:[ \t]*(?:!!!|\?\?\?\+?)[ \t]+\w|===[ \t]+"|:::[ \t]+\w+\.[\w.]+[ \t]*$)'
)
SAMPLED_FILES = 200  # files read to decide from content
MAX_CONFIG_BYTES = 512 * 1024


def unknown(name: str) -> str | None:
    """None when ``name`` names a dialect, else the message that says which do."""
    if name in DIALECTS:
        return None
    return f"unknown dialect '{name}': one of {', '.join(sorted(DIALECTS))}"


def detect(
    root: Path, files: list[Path], override: str | None = None, mkdocs: Path | None = None
) -> Detected:
    """The dialect of the tree at ``root`` (``files``: its Markdown files).

    ``override`` (``--dialect``) wins. A generator's configuration in DIR or in a folder
    above it decides (the nearest wins; an ``astro.config.*`` only when it names
    Starlight); without one, ``.md`` files full of PascalCase components are a
    react.dev-style tree, ``.mdx`` files an MDX tree (``mdx``), MkDocs' own block
    spellings a MkDocs tree, anything else plain Markdown. ``mkdocs``: the MkDocs
    configuration ``shared.dialects.mkdocs_config`` found (any name of an ``INHERIT``
    chain).
    """
    if override is not None:
        return Detected(DIALECTS[override], "--dialect")
    if mkdocs is not None:
        return Detected(DIALECTS["mkdocs"], _shown(mkdocs, root))
    folder = root.resolve()
    for _ in range(MAX_LEVELS):
        for name, candidates in _CONFIGS:
            for candidate in candidates:
                path = folder / candidate
                if path.is_file() and _confirms(name, path):
                    return Detected(DIALECTS[name], _shown(path, root))
        if (folder / ".git").exists() or folder.parent == folder:
            break
        folder = folder.parent
    return _by_content(root, files)


def _confirms(name: str, path: Path) -> bool:
    """Whether a configuration file says what its name says: Astro without Starlight is
    not a docs generator this reads."""
    if name != "starlight":
        return True
    try:
        with path.open("rb") as handle:
            text = handle.read(MAX_CONFIG_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return "starlight" in text


def _shown(path: Path, root: Path) -> str:
    """The configuration's path as a reader finds it: relative to DIR where it can be."""
    resolved = root.resolve()
    for up, folder in enumerate((resolved, *resolved.parents)):
        if path.is_relative_to(folder):
            below = path.relative_to(folder).as_posix()
            return "../" * up + below
    return path.as_posix()


def _by_content(root: Path, files: list[Path]) -> Detected:
    mdx = sum(1 for p in files if p.suffix.lower() == ".mdx")
    if mdx:
        return Detected(DIALECTS["mdx"], f"content: {mdx} .mdx files, no configuration")
    with_components = 0
    with_mkdocs = 0
    sampled = [p for p in files if p.suffix.lower() == ".md"][:SAMPLED_FILES]
    for path in sampled:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if len(_COMPONENT_LINE.findall(text)) >= 2:
            with_components += 1
        if _MKDOCS_LINE.search(text):
            with_mkdocs += 1
    if sampled and with_components * 4 >= len(sampled):
        return Detected(
            DIALECTS["react"],
            f"content: {with_components} of {len(sampled)} .md files hold components",
        )
    if with_mkdocs:
        return Detected(
            DIALECTS["mkdocs"], f"content: {with_mkdocs} .md files use MkDocs' block syntax"
        )
    return Detected(DIALECTS["markdown"], "content: no generator configuration found")
