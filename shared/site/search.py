"""The search box's index: small shards by the first letters of each word.

A reader's first search must not download the whole wiki (10,000 pages of titles and
headings are megabytes). Each word of a page's title and headings (folded: lower case,
no accents; Spanish and English function words left out) puts the page in the shard of
the word's first three letters, ``search/<abc>.js`` (two-letter words: two). A shard
over ``MAX_SHARD_BYTES`` is split by one more letter, again and again, down to whole
words (the words equal to a split prefix stay in its shard); ``split`` lists the split
prefixes so the box knows how far to read its query. A shard holds per page its slug,
title and only the headings that have a word of that shard. A whole word in so many
pages that its shard is still too big keeps the pages that have it in the title first,
up to the limit (a more specific word finds the others).

The box loads the one shard of the query's longest word and filters it in the browser.
Shards are scripts (``BibliotecaSearch.shard(key, rows)``), not JSON, so the search
works from ``file://`` as the rest of the site does (``fetch`` does not).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from shared.site import lang
from shared.site.entries import Entry
from shared.slugs import fold

FOLDER = "search"
KEY_CHARS = 3
MAX_SHARD_BYTES = 100_000  # the most one search downloads (before gzip)
MAX_HEADINGS = 30  # per page, kept in the manifest: enough to find a section of a long page
MAX_HEADING_CHARS = 90
_WORD = re.compile(r"[a-z0-9]+")
MAX_KEY = 40
_KEY = re.compile(rf"[a-z0-9]{{1,{MAX_KEY}}}")
STOPWORDS = lang.STOPWORDS

Heading = tuple[str, str]  # (anchor, text)
Row = list[object]  # [slug, title, [anchor, text]...]


@lru_cache(maxsize=65536)
def words(text: str) -> tuple[str, ...]:
    """Folded words of at least two characters, function words left out."""
    return tuple(w for w in _WORD.findall(fold(text)) if len(w) > 1 and w not in STOPWORDS)


def input_key(entries: Iterable[Entry], headings: Mapping[str, Sequence[Heading]]) -> str:
    """Hash of everything the shards are built from: same key, same shards."""
    digest = hashlib.sha256(f"{KEY_CHARS}:{MAX_SHARD_BYTES}".encode())
    for entry in sorted(entries, key=lambda e: e.slug):
        digest.update(f"\0{entry.slug}\0{entry.title}".encode())
        for anchor, text in headings.get(entry.slug, ()):
            digest.update(f"\1{anchor}\1{text}".encode())
    return digest.hexdigest()[:20]


def shard_path(key: str) -> str:
    """``search/<key>.js``; keys are ASCII letters and digits (safe as a file name)."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"invalid shard key {key!r}")
    return f"{FOLDER}/{key}.js"


@dataclass
class Index:
    """The shards (key -> rows) and the prefixes that were split into longer keys."""

    shards: dict[str, list[Row]] = field(default_factory=dict)
    split: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)  # whole words over the limit


def _size(rows: Sequence[Row]) -> int:
    """About the bytes of ``rows`` as JSON (strings as UTF-8 plus punctuation)."""
    total = 0
    for row in rows:
        total += sum(len(str(part).encode()) + 8 for part in row)
    return total


def build(entries: Iterable[Entry], headings: Mapping[str, Sequence[Heading]]) -> Index:
    """The search index of the site (see the module docstring); stable bytes between
    builds (pages in slug order)."""
    # word -> rows of the pages that have it: [slug, title, headings with the word]
    postings: dict[str, list[tuple[str, str, bool, tuple[Heading, ...]]]] = {}
    for entry in sorted(entries, key=lambda e: e.slug):
        in_title = set(words(entry.title))
        found: dict[str, list[Heading]] = {w: [] for w in in_title}
        for anchor, text in headings.get(entry.slug, ()):
            for word in set(words(text)):
                found.setdefault(word, []).append((anchor, text))
        for word, where in found.items():
            postings.setdefault(word, []).append(
                (entry.slug, entry.title, word in in_title, tuple(where))
            )
    # An upper bound of each word's bytes in a shard (pages shared by words counted
    # twice), summed instead of serializing rows at every level of the split.
    sizes = {
        word: sum(
            len(slug.encode())
            + len(title.encode())
            + 8
            + sum(len(a) + len(t) + 8 for a, t in where)
            for slug, title, _, where in rows
        )
        for word, rows in postings.items()
    }
    index = Index()
    by_key: dict[str, list[str]] = {}
    for word in postings:
        by_key.setdefault(word[:KEY_CHARS], []).append(word)
    for key, members in by_key.items():
        _place(key, members, postings, sizes, index)
    return index


def _rows(
    members: Iterable[str], postings: Mapping[str, list[tuple[str, str, bool, tuple[Heading, ...]]]]
) -> list[Row]:
    """One row per page of any of ``members``; the headings of all of them, once each."""
    pages: dict[str, tuple[str, bool, dict[Heading, None]]] = {}
    for word in members:
        for slug, title, titled, where in postings[word]:
            _, was_titled, seen = pages.get(slug, (title, False, {}))
            seen.update(dict.fromkeys(where))
            pages[slug] = (title, was_titled or titled, seen)
    return [
        [slug, title, *([a, t] for a, t in where)]
        for slug, (title, _, where) in sorted(pages.items())
    ]


def _fit(
    key: str,
    rows: list[Row],
    postings: Mapping[str, list[tuple[str, str, bool, tuple[Heading, ...]]]],
    index: Index,
) -> list[Row]:
    """``rows`` within the limit: a whole word in too many pages keeps the pages that have
    it in the title first."""
    if _size(rows) <= MAX_SHARD_BYTES:
        return rows
    titled = {slug for slug, _, is_title, _ in postings.get(key, ()) if is_title}
    rows = sorted(rows, key=lambda r: r[0] not in titled)
    kept: list[Row] = []
    total = 0
    for row in rows:
        total += _size([row])
        if total > MAX_SHARD_BYTES:
            break
        kept.append(row)
    index.truncated.append(key)
    return sorted(kept, key=lambda r: str(r[0]))


def _place(
    key: str,
    members: list[str],
    postings: Mapping[str, list[tuple[str, str, bool, tuple[Heading, ...]]]],
    sizes: Mapping[str, int],
    index: Index,
) -> None:
    # Keys stop at MAX_KEY letters (a file name's length): past it, one shard for all.
    longer = [w for w in members if len(w) > len(key)] if len(key) < MAX_KEY else []
    if not longer or sum(sizes[w] for w in members) <= MAX_SHARD_BYTES:
        index.shards[key] = _fit(key, _rows(members, postings), postings, index)
        return
    index.split.append(key)
    if key in postings:  # the word equal to the prefix
        index.shards[key] = _fit(key, _rows([key], postings), postings, index)
    by_key: dict[str, list[str]] = {}
    for word in longer:
        by_key.setdefault(word[: len(key) + 1], []).append(word)
    for sub, sub_members in by_key.items():
        _place(sub, sub_members, postings, sizes, index)


def clip(headings: Iterable[Heading]) -> tuple[Heading, ...]:
    """The headings a page keeps for search (count and length bounded)."""
    out = []
    for anchor, text in headings:
        out.append((anchor, text[:MAX_HEADING_CHARS]))
        if len(out) >= MAX_HEADINGS:
            break
    return tuple(out)
