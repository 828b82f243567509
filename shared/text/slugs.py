"""Slug rules of the contract: validation, derivation from a title or a file path."""

from __future__ import annotations

import re

from shared.text.fold import fold

SLUG_RE = re.compile(r"^[a-z0-9]+([a-z0-9_—-]*[a-z0-9])?$")
MAX_SLUG = 200
SEPARATOR = "—"  # em dash: joins a type and a title, or the folders of an imported path
FUNCTION_NAMES = frozenset(
    {
        "wiki_create",
        "wiki_update",
        "wiki_history",
        "wiki_duplicates",
        "ask",
        "archive",
        "index_code",
        "rebuild",
        "enrich",
        "mcp",
        "feedback",
    }
)
_NON_WORD = re.compile(r"[^a-z0-9]+")


def slug_problem(slug: str) -> str | None:
    """Why ``slug`` is not a valid slug, or None when it is."""
    if len(slug) > MAX_SLUG:
        return f"a slug has at most {MAX_SLUG} characters"
    if not SLUG_RE.fullmatch(slug):  # not match(): '$' also matches before a final newline
        return (
            "a slug uses lowercase ASCII letters, digits, '-', '_' and '—', "
            "and starts and ends with a letter or digit"
        )
    if slug in FUNCTION_NAMES:
        return f"'{slug}' is reserved: it is the name of a function"
    return None


def is_valid_slug(slug: str) -> bool:
    return slug_problem(slug) is None


def slugify(text: str, *, keep_underscore: bool = False) -> str:
    """Fold ``text`` and turn every run of other characters into a single '-'."""
    folded = fold(text)
    if keep_underscore:
        return "_".join(_NON_WORD.sub("-", part).strip("-") for part in folded.split("_")).strip(
            "_-"
        )
    return _NON_WORD.sub("-", folded).strip("-")


def cut(slug: str, limit: int = MAX_SLUG) -> str:
    """Cut ``slug`` to ``limit`` characters on a word boundary ('-')."""
    if len(slug) <= limit:
        return slug
    head = slug[:limit]
    boundary = head.rfind("-")
    if boundary > 0:
        head = head[:boundary]
    return head.rstrip("-_—")


def derive_slug(page_type: str, title: str) -> str:
    """``type—title`` as the contract derives it when a create has no slug."""
    words = slugify(title)
    return cut(f"{page_type}{SEPARATOR}{words}" if words else page_type)


def with_suffix(slug: str, n: int) -> str:
    """The n-th alternative of a taken slug: ``slug-2``, ``slug-3``…, still within the limit."""
    suffix = f"-{n}"
    return cut(slug, MAX_SLUG - len(suffix)) + suffix


def slug_from_path(relative_path: str) -> str:
    """Slug of an imported file: lower-cased, folders joined with '—', extension dropped."""
    parts = relative_path.replace("\\", "/").split("/")
    stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1] else parts[-1]
    segments = [slugify(p, keep_underscore=True) for p in [*parts[:-1], stem]]
    return cut(SEPARATOR.join(s for s in segments if s))
