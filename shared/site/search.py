"""The search box's full-text index: word shards by prefix, and one passage file per page.

The site is static and offline, so the index is files the browser loads on demand, and
a first search must not download the wiki (10,000 pages are tens of megabytes of text).

**Passages.** A page's body is cut at its h2/h3 headings into passages (anchor, heading,
plain text); the text before the first heading is the passage of the page's top. Each
page folder gets ``search.js`` (``BibliotecaSearch.page(slug, [title, [anchor, heading,
text]...])``), which the box loads only for the results it shows, to cut the snippet
around the words found and to open the page at that heading. It is written and kept
with the page's HTML (a page folder is one unit, see ``shared.publish.local``).

**Words.** Every word of the title, the headings and the text, folded by the one fold
(``shared.text.fold``: lower case, no accents, ``ß`` as ``ss``) and without Spanish and English
function words, is stemmed with the snowball stemmer of the page's language
(``parámetros`` and ``parametro`` are one term). A passage's words are kept per page in
the manifest as counted forms (``PageTerms``), so an incremental build rebuilds the
shards without reading the unchanged pages.

**Shards.** The box has no stemmer: a shard maps each *form* the wiki contains to its
stem, so the typed word is looked up as written, and a prefix (the word being typed)
expands to every form it starts. The form's first three letters name its shard,
``search/<abc>.js`` (two-letter words: two); the shard holds those forms, and for each of
their stems the postings ``[page, in title, passage, weight, passage, weight, ...]``
(weight: occurrences in the passage's text, capped at 99, plus 100 when the passage's
heading has the word), pages numbered within the shard (``d``, their slugs). A shard
over ``MAX_SHARD_BYTES`` is split by one more letter, down to whole forms; ``split``
lists the split prefixes so the box knows how far to read a word. A stem in so many
pages that its shard is still too big keeps its strongest postings (title, then
heading, then most occurrences): a more specific word finds the rest.

Ranking (``static/site.js``): title > heading > text, every query word required (the
pages with most of them when none has all), the passage with most of the words wins
the snippet and the link's anchor. Shards are scripts (``BibliotecaSearch.shard``), not
JSON, so the search works from ``file://`` as the rest of the site does.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

from shared.site import lang
from shared.site.entries import Entry
from shared.text.fold import fold
from shared.text.stemmers import stemmer

FOLDER = "search"
KEY_CHARS = 3
MAX_SHARD_BYTES = 100_000  # the most one word of a search downloads (before gzip)
MAX_PASSAGES = 60  # per page, as the table of contents: later headings join the last
MAX_PASSAGE_CHARS = 4_000  # text of a passage shown for snippets (all of it is indexed)
MAX_PAGE_CHARS = 32_000  # text of a page's passage file (about; see page_script)
MIN_PASSAGE_CHARS = 400
MAX_HEADING_CHARS = 120
MAX_WEIGHT = 99  # occurrences counted per passage
HEADING_WEIGHT = 100  # added to a posting's weight when the heading has the word
_WORD = re.compile(r"[a-z0-9]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
MAX_KEY = 40
_KEY = re.compile(rf"[a-z0-9]{{1,{MAX_KEY}}}")
STOPWORDS = lang.STOPWORDS
_STEMMERS = {"es": "spanish", "en": "english"}

# h2/h3 with the renderer's ids (shared.site.markdown gives every heading one).
_HEADING = re.compile(r'<h([23]) id="([^"<>]+)">(.*?)</h\1>', re.S)
_BLOCK = re.compile(
    r"</?(?:p|div|li|ul|ol|pre|h[1-6]|tr|td|th|table|blockquote|details|summary|br|dd|dt)\b[^>]*>",
    re.I,
)
_TAG = re.compile(r"<[^>]*>")

Passage = tuple[str, str, str]  # (anchor, heading, plain text); the top's anchor is ""
# Per passage: (anchor, heading, "form form:3 ..."): its text's folded words, counted.
PageTerms = tuple[tuple[str, str, str], ...]
Posting = list[int]


@lru_cache(maxsize=65536)
def words(text: str) -> tuple[str, ...]:
    """Folded words of at least two characters, function words left out."""
    return tuple(w for w in _WORD.findall(_folded(text)) if len(w) > 1 and w not in STOPWORDS)


def _folded(text: str) -> str:
    """``fold(text)``, folding only its runs of non-ASCII letters (ASCII only lowers).

    The same string: the fold decomposes letter by letter and drops the accents, and an
    ASCII character never joins the accents around it; but a wiki's accented runs
    (``ó``, ``ñ``, ``ción``'s ``ó``) are few and repeat, so each is folded once, not every
    character of every passage in Python.
    """
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    return _NON_ASCII.sub(lambda run: _fold_run(run.group()), lowered)


@lru_cache(maxsize=8192)
def _fold_run(run: str) -> str:
    return fold(run)


@lru_cache(maxsize=262144)
def stem(form: str, language: str) -> str:
    """The stem of a folded word in a page's language (Spanish unless English); digits
    and codes stay whole."""
    if form.isdigit():
        return form
    return str(stemmer(_STEMMERS.get(language, "spanish")).stemWord(form)) or form


# -- a page's passages and terms --------------------------------------------------------


def plain(fragment: str) -> str:
    """Text of an HTML fragment: blocks become spaces, inline tags vanish, entities decode."""
    text = _TAG.sub("", _BLOCK.sub(" ", fragment))
    return " ".join(html.unescape(text).split())


def passages(body_html: str) -> tuple[Passage, ...]:
    """The body cut at its h2/h3 headings (see the module docstring), whole text; past
    ``MAX_PASSAGES`` the last passage runs to the end of the body."""
    # (anchor, heading, where the heading starts, where its passage starts)
    marks = [("", "", 0, 0)]
    for match in _HEADING.finditer(body_html):
        heading = plain(match.group(3))[:MAX_HEADING_CHARS]
        marks.append((html.unescape(match.group(2)), heading, match.start(), match.end()))
        if len(marks) > MAX_PASSAGES:
            break
    ends = [start for _, _, start, _ in marks[1:]] + [len(body_html)]
    out = [
        (anchor, heading, plain(body_html[begin:end]))
        for (anchor, heading, _, begin), end in zip(marks, ends, strict=True)
    ]
    if len(out) > 1 and not out[0][2]:
        out.pop(0)  # nothing before the first heading
    if len(out) > MAX_PASSAGES:
        anchor, heading, _ = out[MAX_PASSAGES - 1]
        begin = marks[len(marks) - len(out) + MAX_PASSAGES - 1][3]
        out[MAX_PASSAGES - 1 :] = [(anchor, heading, plain(body_html[begin:]))]
    return tuple(out)


def page_terms(found: Sequence[Passage]) -> PageTerms:
    """What the manifest keeps of a page's passages for the shards: counted forms."""
    out = []
    for anchor, heading, text in found:
        counts = Counter(words(text))
        forms = " ".join(f"{w}:{n}" if n > 1 else w for w, n in sorted(counts.items()))
        out.append((anchor, heading, forms))
    return tuple(out)


def page_script(slug: str, title: str, found: Sequence[Passage]) -> str:
    """``<slug>/search.js``: the page's passages for snippets, text clipped."""
    # Each passage keeps its start; a long page shares MAX_PAGE_CHARS among them, every
    # passage keeping at least MIN_PASSAGE_CHARS (its heading's snippet).
    sizes = [min(len(text), MAX_PASSAGE_CHARS) for _, _, text in found]
    total = sum(sizes)
    if total > MAX_PAGE_CHARS:
        sizes = [min(n, max(MIN_PASSAGE_CHARS, n * MAX_PAGE_CHARS // total)) for n in sizes]
    rows = [
        [anchor, heading, text[:n]] for (anchor, heading, text), n in zip(found, sizes, strict=True)
    ]
    return (
        "window.BibliotecaSearch&&BibliotecaSearch.page("
        + _safe_json(slug)
        + ","
        + _safe_json([title, *rows])
        + ");\n"
    )


def _safe_json(data: object) -> str:
    """JSON that stays inert even inlined into HTML (``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# -- the shards -------------------------------------------------------------------------


def input_key(entries: Iterable[Entry], terms: Mapping[str, PageTerms]) -> str:
    """Hash of everything the shards are built from: same key, same shards."""
    digest = hashlib.sha256(f"{KEY_CHARS}:{MAX_SHARD_BYTES}:{MAX_PASSAGES}".encode())
    for entry in sorted(entries, key=lambda e: e.slug):
        digest.update(f"\0{entry.slug}\0{entry.title}\0{entry.lang}".encode())
        for anchor, heading, forms in terms.get(entry.slug, ()):
            digest.update(f"\1{anchor}\1{heading}\1{forms}".encode())
    return digest.hexdigest()[:20]


def shard_path(key: str) -> str:
    """``search/<key>.js``; keys are ASCII letters and digits (safe as a file name)."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"invalid shard key {key!r}")
    return f"{FOLDER}/{key}.js"


def shard_key(form: str) -> str:
    return form[:KEY_CHARS]


@dataclass
class Shard:
    """``f``: form -> its stems (space-separated); ``d``: the pages' slugs; ``t``: stem ->
    postings (``[page number in d, in title, passage, weight, ...]``)."""

    forms: dict[str, str] = field(default_factory=dict)
    pages: list[str] = field(default_factory=list)
    postings: dict[str, list[Posting]] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"f": self.forms, "d": self.pages, "t": self.postings}


@dataclass
class Index:
    """The shards (key -> shard) and the prefixes that were split into longer keys."""

    shards: dict[str, Shard] = field(default_factory=dict)
    split: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)  # stems that lost postings


# A page's postings of one stem: (slug, in title (1/0), [passage, weight, passage, weight...]),
# passages in order, weights final; the shard only numbers the page.
_Row = tuple[str, int, list[int]]


@dataclass
class _Collected:
    """Every form's stems (in the order first met), and per stem its rows in slug order
    and their size in a shard (``_posting_bytes``), summed as they are made."""

    forms: dict[str, set[str]] = field(default_factory=dict)
    rows: dict[str, list[_Row]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    # stem -> its rows' indices strongest first, and their bytes summed in that order
    ranked: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)


class _Stems:
    """Stems of one language's forms and of the manifest's counted items (``form:3``):
    each form is stemmed and noted in ``forms`` once, however many pages write it."""

    def __init__(self, language: str, forms: dict[str, set[str]]) -> None:
        self.language = language
        self.forms = forms
        self.roots: dict[str, str] = {}
        self.items: dict[str, tuple[str, int]] = {}

    def root(self, form: str) -> str:
        found = self.roots.get(form)
        if found is None:
            found = self.roots[form] = stem(form, self.language)
            self.forms.setdefault(form, set()).add(found)
        return found

    def item(self, item: str) -> tuple[str, int]:
        found = self.items.get(item)
        if found is None:
            form, _, count = item.partition(":")
            # Capped here already: a stem's weight is the sum of its forms', capped.
            times = min(int(count), MAX_WEIGHT) if count.isdigit() else 1
            found = self.items[item] = (self.root(form), times)
        return found


def _collect(entries: Iterable[Entry], terms: Mapping[str, PageTerms]) -> _Collected:
    out = _Collected()
    by_language: dict[str, _Stems] = {}
    for entry in sorted(entries, key=lambda e: e.slug):
        stems = by_language.get(entry.lang)
        if stems is None:
            stems = by_language[entry.lang] = _Stems(entry.lang, out.forms)
        items = stems.items
        titled = {stems.root(form) for form in words(entry.title)}
        headed: dict[str, set[int]] = {}  # stem -> passages whose heading has it
        # stem -> [passage, occurrences (capped), ...]: passages come in order, so a
        # stem's passage is new or its last one
        counts: dict[str, list[int]] = {}
        for n, (_, heading, counted) in enumerate(terms.get(entry.slug, ())):
            for form in words(heading):
                headed.setdefault(stems.root(form), set()).add(n)
            for item in counted.split():
                root, count = items.get(item) or stems.item(item)
                pairs = counts.get(root)
                if pairs is None:
                    counts[root] = [n, count]
                elif pairs[-2] == n:
                    pairs[-1] = min(pairs[-1] + count, MAX_WEIGHT)
                else:
                    pairs += (n, count)
        _page_rows(entry.slug, titled, headed, counts, out)
    return out


def _page_rows(
    slug: str,
    titled: set[str],
    headed: Mapping[str, set[int]],
    counts: dict[str, list[int]],
    out: _Collected,
) -> None:
    """One page's row for each of its stems, appended to the stem's rows."""
    base = len(slug.encode()) + 10
    rows, sizes = out.rows, out.sizes
    for root in (titled | headed.keys()) - counts.keys():
        counts[root] = []
    for root, pairs in counts.items():
        if root in headed:
            pairs = _headed(pairs, headed[root])
        row = (slug, 1 if root in titled else 0, pairs)
        size = base + 7 * (len(pairs) >> 1)
        known = rows.get(root)
        if known is None:
            rows[root] = [row]
            sizes[root] = size
        else:
            known.append(row)
            sizes[root] += size


def _headed(pairs: list[int], heads: Iterable[int]) -> list[int]:
    """A row's pairs with ``HEADING_WEIGHT`` added in the passages whose heading has the
    word (a heading's passage may have no occurrence of it in its text)."""
    where = dict(zip(pairs[::2], pairs[1::2], strict=True))
    for n in heads:
        where[n] = where.get(n, 0) + HEADING_WEIGHT
    out: list[int] = []
    for n in sorted(where):
        out += (n, where[n])
    return out


def _strength(row: _Row) -> tuple[int, int, int]:
    """Which postings of a too common stem are kept: title, heading, occurrences."""
    pairs = row[2]
    if len(pairs) == 2:  # most rows: one passage
        return (row[1], pairs[1] // HEADING_WEIGHT, pairs[1] % HEADING_WEIGHT)
    weights = pairs[1::2]
    best = max(weights, default=0)
    return (row[1], best // HEADING_WEIGHT, sum(w % HEADING_WEIGHT for w in weights))


def _posting_bytes(row: _Row) -> int:
    return len(row[0].encode()) + 10 + 7 * (len(row[2]) // 2)


def build(entries: Iterable[Entry], terms: Mapping[str, PageTerms]) -> Index:
    """The search index of the site (see the module docstring); stable bytes between
    builds (forms, stems and pages in order)."""
    collected = _collect(entries, terms)
    index = Index()
    by_key: dict[str, list[str]] = {}
    for form in collected.forms:
        by_key.setdefault(shard_key(form), []).append(form)
    for key, members in by_key.items():
        _place(key, members, collected, index)
    return index


def _place(key: str, members: list[str], collected: _Collected, index: Index) -> None:
    # Keys stop at MAX_KEY letters (a file name's length): past it, one shard for all.
    forms, sizes = collected.forms, collected.sizes
    longer = [f for f in members if len(f) > len(key)] if len(key) < MAX_KEY else []
    stems = {root for f in members for root in forms[f]}
    size = sum(sizes[root] + 12 for root in stems) + sum(len(f) * 2 + 6 for f in members)
    if not longer or size <= MAX_SHARD_BYTES:
        index.shards[key] = _shard(members, collected, index)
        return
    index.split.append(key)
    if key in forms:  # the form equal to the prefix
        index.shards[key] = _shard([key], collected, index)
    by_key: dict[str, list[str]] = {}
    for form in longer:
        by_key.setdefault(form[: len(key) + 1], []).append(form)
    for sub, sub_members in by_key.items():
        _place(sub, sub_members, collected, index)


def _fitted(root: str, collected: _Collected, share: int) -> list[_Row]:
    """The stem's strongest rows within ``share`` bytes, in slug order."""
    rows = collected.rows[root]
    ranked = collected.ranked.get(root)
    if ranked is None:  # a stem of several shards is ranked once
        strengths = [_strength(row) for row in rows]
        # Stable: rows of equal strength stay in slug order.
        order = sorted(range(len(rows)), key=strengths.__getitem__, reverse=True)
        ranked = collected.ranked[root] = (
            order,
            list(accumulate(_posting_bytes(rows[i]) for i in order)),
        )
    order, used = ranked
    return [rows[i] for i in sorted(order[: bisect_right(used, share)])]


def _shard(members: Iterable[str], collected: _Collected, index: Index) -> Shard:
    forms, sizes = collected.forms, collected.sizes
    members = sorted(members)
    stems = sorted({root for f in members for root in forms[f]})
    budget = MAX_SHARD_BYTES - sum(len(f) * 2 + 6 for f in members)
    kept: dict[str, list[_Row]] = {}
    total = sum(sizes[root] for root in stems)
    for root in stems:
        rows = collected.rows[root]  # in slug order (pages are collected so)
        if total > budget:
            # Too big even as whole forms: each stem keeps its strongest postings, in
            # proportion to its share of the shard.
            fitted = _fitted(root, collected, budget * sizes[root] // total)
            if len(fitted) < len(rows):
                index.truncated.append(root)
            rows = fitted
        kept[root] = rows
    pages = sorted({row[0] for rows in kept.values() for row in rows})
    number = {slug: n for n, slug in enumerate(pages)}
    shard = Shard(pages=pages)
    shard.forms = {f: " ".join(sorted(forms[f])) for f in members}
    for root, rows in kept.items():
        shard.postings[root] = [[number[slug], titled, *pairs] for slug, titled, pairs in rows]
    return shard


def shard_script(key: str, shard: Shard) -> str:
    """``search/<key>.js``: the shard as an inert script."""
    return (
        "window.BibliotecaSearch&&BibliotecaSearch.shard("
        + _safe_json(key)
        + ","
        + _safe_json(shard.to_json())
        + ");\n"
    )
