"""Freshness, the pure part: which code paths a page cites, and what the index says of them.

A page is ``stale`` only when a path it cites no longer resolves in the code index (never
because a file changed), ``unknown`` when it cites none, the index is empty, or every path
it cites is outside the indexed code, else ``fresh``. A cited path that is not found is
judged missing only when the index once held it: the index remembers every path it has
seen (``KeyLookup.seen``), so ``src/App.js`` in a tutorial, another project's file or the
reader's own ``app/main.py`` is never a file the index lost (precision first). An index
that does not remember (``seen`` None) falls back to its roots: a path is judged when its
top-level folder is an indexed repository's. Paths inside fenced code blocks (file trees,
an example's files, a code block's title) are examples, not citations: they are not read.
A missing path may come with a suggestion: the indexed path with its file name that
shares the longest '/'-suffix with it (``src/old/pkg/a.py`` -> ``src/new/pkg/a.py``),
given only when exactly one is best.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypedDict, TypeVar

from shared.mkdocs import fenced
from shared.records import Freshness, FreshnessState
from shared.text.code_paths import cited_paths, path_key

MAX_CHECKED = 500  # cited paths checked per page: keeps the one read bounded
# A page whose every judged path is gone ranks as if its score were this much lower: mild,
# so it still answers when nothing else does (its score as reported does not change).
ALL_GONE_FACTOR = 0.85

T = TypeVar("T")


def page_cited(front_matter: Mapping[str, Any], content: str) -> tuple[str, ...]:
    """The distinct code paths a page cites: its ``code`` sources' refs and its text,
    by the archive gate's rules (a folder or a bare name is not a checkable path)."""
    seen: dict[str, str] = {}
    refs = [
        str(s.get("ref", ""))
        for s in front_matter.get("sources") or []
        if isinstance(s, Mapping) and s.get("type") == "code"
    ]
    for text in [*refs, prose(content)]:
        for path in cited_paths(text):
            seen.setdefault(path_key(path), path)
    return tuple(seen.values())[:MAX_CHECKED]


def prose(markdown: str) -> str:
    """``markdown`` without its fenced code blocks (their info string and title included).

    What sits in a fence is an example: the reader's project in a tutorial, a file tree,
    an MDX code container's files (the import turns those into fences with a ``title``).
    A fence left open runs to the end, as CommonMark reads it.
    """
    if "```" not in markdown and "~~~" not in markdown:
        return markdown
    kept: list[str] = []
    for line, code in fenced(markdown.split("\n")):
        kept.append("" if code else line)
    return "\n".join(kept)


def file_name(path: str) -> str:
    return path_key(path).rsplit("/", 1)[-1]


def judged(path: str, roots: frozenset[str] | None, seen: frozenset[str] | None = None) -> bool:
    """Whether a cited path that is not found counts as missing: the index once held it
    (its key is among ``seen``); for an index that does not remember, its top-level folder
    is an indexed repository's (``roots`` None too: every path is judged)."""
    if seen is not None:
        return path_key(path) in seen
    return roots is None or path_key(path).split("/", 1)[0] in roots


def assess(
    cited: Sequence[str],
    found: frozenset[str] | None,
    at: datetime,
    candidates: Mapping[str, Sequence[str]] | None = None,
    roots: frozenset[str] | None = None,
    seen: frozenset[str] | None = None,
) -> Freshness:
    """``found``: the keys the index holds among ``cited``'s (None: the index is empty or
    unreadable); ``candidates``: indexed paths by file name, for suggestions; ``roots``:
    the indexed top-level folders (``KeyLookup.roots``); ``seen``: the keys among
    ``cited``'s it holds or once held (``KeyLookup.seen``)."""
    if not cited or found is None:
        return Freshness(state="unknown", checked_at=at, cited=tuple(cited))
    absent = [p for p in cited if path_key(p) not in found]
    missing = tuple(p for p in absent if judged(p, roots, seen))
    outside = tuple(p for p in absent if not judged(p, roots, seen))
    if len(outside) == len(cited):  # nothing cited is the indexed code: nothing to judge
        return Freshness(state="unknown", checked_at=at, cited=tuple(cited), outside=outside)
    suggestions = {
        path: hint
        for path in missing
        if (hint := suggest(path, (candidates or {}).get(file_name(path), ()))) is not None
    }
    state: FreshnessState = "stale" if missing else "fresh"
    return Freshness(
        state=state,
        checked_at=at,
        cited=tuple(cited),
        missing=missing,
        suggestions=suggestions,
        outside=outside,
    )


def suggest(missing: str, candidates: Iterable[str]) -> str | None:
    """The one indexed path sharing the longest suffix with ``missing`` (at least its
    file name), or None when there is none or a tie."""
    want = path_key(missing).split("/")
    scored: dict[int, list[str]] = {}
    for candidate in candidates:
        have = path_key(candidate).split("/")
        shared = 0
        while shared < min(len(want), len(have)) and want[-1 - shared] == have[-1 - shared]:
            shared += 1
        if shared:
            scored.setdefault(shared, []).append(candidate)
    if not scored:
        return None
    best = scored[max(scored)]
    return best[0] if len(set(best)) == 1 else None


def all_gone(freshness: Freshness | None) -> bool:
    """Every judged path is missing (none of the indexed code it cites is found; paths
    outside it do not count): the only case ``ask`` ranks a page lower."""
    return (
        freshness is not None
        and freshness.state == "stale"
        and len(freshness.missing) + len(freshness.outside) == len(freshness.cited)
    )


def demote_gone(
    ranked: Sequence[T], gone: set[str], slug: Callable[[T], str], score: Callable[[T], float]
) -> list[T]:
    """``ranked`` with the items of ``gone`` pages moved down to where their score times
    ``ALL_GONE_FACTOR`` would place them; every other item keeps its order."""
    if not gone or not any(slug(r) in gone for r in ranked):
        return list(ranked)
    out: list[T] = []
    waiting: list[T] = []  # demoted items, in their order, not yet placed
    for item in ranked:
        if slug(item) in gone:
            waiting.append(item)
            continue
        while waiting and score(waiting[0]) * ALL_GONE_FACTOR >= score(item):
            out.append(waiting.pop(0))
        out.append(item)
    return out + waiting


# -- stored and public forms ----------------------------------------------------------


class MovedPath(TypedDict):
    missing: str
    moved_to: str


class StoredFreshness(TypedDict):
    """A page's freshness as the stores keep it (``from_stored`` reads it back)."""

    state: FreshnessState
    checked_at: str
    cited: list[str]
    missing: list[str]
    suggestions: list[MovedPath]  # pairs, not a map: a path is no field name for Firestore
    outside: list[str]


class PublicFreshness(TypedDict):
    """The contract's ``freshness`` object, with the suggestions for missing paths."""

    state: FreshnessState
    missing: list[str]
    checked_at: str | None
    suggestions: dict[str, str]


def to_stored(freshness: Freshness) -> StoredFreshness:
    return {
        "state": freshness.state,
        "checked_at": freshness.checked_at.isoformat(),
        "cited": list(freshness.cited),
        "missing": list(freshness.missing),
        "suggestions": [{"missing": k, "moved_to": v} for k, v in freshness.suggestions.items()],
        "outside": list(freshness.outside),
    }


def from_stored(data: Mapping[str, Any] | None) -> Freshness | None:
    if not data or data.get("state") not in ("fresh", "stale", "unknown"):
        return None
    return Freshness(
        state=data["state"],
        checked_at=datetime.fromisoformat(str(data["checked_at"])),
        cited=tuple(str(p) for p in data.get("cited") or ()),
        missing=tuple(str(p) for p in data.get("missing") or ()),
        suggestions={
            str(s["missing"]): str(s["moved_to"])
            for s in data.get("suggestions") or ()
            if isinstance(s, Mapping)
        },
        outside=tuple(str(p) for p in data.get("outside") or ()),
    )


def public(freshness: Freshness | None) -> PublicFreshness:
    """The contract's ``freshness`` object (plus the suggestions for missing paths)."""
    if freshness is None:
        return {"state": "unknown", "missing": [], "checked_at": None, "suggestions": {}}
    return {
        "state": freshness.state,
        "missing": list(freshness.missing),
        "checked_at": freshness.checked_at.isoformat(),
        "suggestions": dict(freshness.suggestions),
    }


def state_of(freshness: Freshness | None) -> FreshnessState:
    return "unknown" if freshness is None else freshness.state


def cited_keys(freshness: Freshness | None) -> list[str]:
    """The path index's keys for a page: one per checked path."""
    return sorted({path_key(p) for p in freshness.cited}) if freshness is not None else []
