"""What kind of page a page is — guide, reference, tutorial, changelog or landing — from
what the page itself shows: where its file sits in the tree, its type, and its body.

One rule for the whole codebase: the import infers a docs page's default type from it,
and answers use it to decide which page should lead for which kind of question. Pure.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import get_args

from shared.records import Kind

KINDS: tuple[str, ...] = get_args(Kind)

# Folder or file names (folded, without extension) that say what a tree keeps there, in
# English and Spanish, as generators' own trees name them.
_REFERENCE_PARTS = frozenset(
    {
        "api",
        "apis",
        "reference",
        "references",
        "ref",
        "api-reference",
        "referencia",
        "referencias",
        "cli",
        "configuration-reference",
        "widgets",
        "components-reference",
    }
)
_TUTORIAL_PARTS = frozenset(
    {
        "tutorial",
        "tutorials",
        "learn",
        "getting-started",
        "get-started",
        "quickstart",
        "quick-start",
        "tutoriales",
        "aprende",
        "aprender",
        "primeros-pasos",
        "empezar",
        "comenzar",
        "inicio-rapido",
    }
)
_CHANGELOG_PARTS = frozenset(
    {
        "blog",
        "blogs",
        "changelog",
        "changelogs",
        "changes",
        "releases",
        "release-notes",
        "news",
        "noticias",
        "novedades",
        "historial-de-cambios",
        "whats-new",
        "upgrade-guide",
        "migration",
        "migrations",
        "migracion",
    }
)
_LANDING_NAMES = frozenset({"index", "readme", "_index", "home", "inicio"})
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}[-_]")  # a blog post's file name: 2024-05-01-x.md
_API_DIRECTIVE = re.compile(r"^:::[ \t]+[A-Za-z_][\w.]*[ \t]*$", re.M)  # mkdocstrings
_SIGNATURE_HEADING = re.compile(r"^#{2,6}[ \t]+`?[\w.]+\(.*\)`?", re.M)
_LINK = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)|\[\[[^\]\n]*\]\]")
_WORD = re.compile(r"\w+")


def page_kind(path: str, *, page_type: str | None = None, body: str = "") -> Kind:
    """The kind of the page whose file is ``path`` (relative to its tree, or a slug).

    The body decides first where it is unambiguous (API directives or signature headings
    make a reference; a page that is mostly links at the top of its tree is a landing),
    then the folders (``blog/`` holds changelog posts, ``api/`` reference pages,
    ``tutorial/`` tutorials), then the wiki type (``reference``); the rest are guides.
    """
    parts = [_folded(p) for p in PurePosixPath(path.replace("—", "/")).parts if p]
    stem = _folded(PurePosixPath(parts[-1]).stem) if parts else ""
    folders = parts[:-1]
    if _API_DIRECTIVE.search(body) or len(_SIGNATURE_HEADING.findall(body)) >= 3:
        return "reference"
    if stem in _LANDING_NAMES and len(folders) <= 1 and _mostly_links(body):
        return "landing"
    if not folders and stem in _LANDING_NAMES:
        return "landing"
    for part in reversed(folders):
        if part in _CHANGELOG_PARTS:
            return "changelog"
        if part in _REFERENCE_PARTS:
            return "reference"
        if part in _TUTORIAL_PARTS:
            return "tutorial"
    if stem in _CHANGELOG_PARTS or _DATED.match(stem):
        return "changelog"
    if page_type == "reference":
        return "reference"
    return "guide"


def _folded(part: str) -> str:
    return part.strip().lower().replace("_", "-").replace(" ", "-")


def _mostly_links(body: str) -> bool:
    """A body whose words are mostly link texts: a table of contents, not prose."""
    words = len(_WORD.findall(body))
    if words == 0:
        return True
    linked = sum(len(_WORD.findall(m.group(0))) for m in _LINK.finditer(body))
    return linked / words >= 0.4
