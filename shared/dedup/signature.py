"""A page's duplicate-finding signature: MinHash of its word shingles, per page and per
section, LSH band keys to find candidates, and its meaning's vector (pure).

Words are folded (case and accents) so a copy that fixed an accent is still a copy.
Shingle and MinHash hashes are stable across processes (``zlib.crc32`` of each word,
combined arithmetically), because signatures are stored and compared with the next run's.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from shared.dedup.claims import claims_of
from shared.retrieval.chunking import split_markdown
from shared.text import wikilinks
from shared.text.fold import fold
from shared.text.language import language
from shared.text.plaintext import PATH_SEPARATOR, inline

SHINGLE = 4  # words a shingle holds: small edits break few of them, phrases still tell
PERMUTATIONS = 64  # MinHash values a signature holds: similarity within ~0.06 (1/sqrt(64)/2)
BANDS = 16  # LSH bands of PERMUTATIONS/BANDS rows: a pair at similarity 0.5 meets in 64%
ROWS = PERMUTATIONS // BANDS
MIN_SECTION_WORDS = 30  # a shorter section (a one-line "Install") says too little to match
_PRIME = np.uint64((1 << 31) - 1)
_WORD = re.compile(r"[a-z0-9]+")
_MIX = (np.uint64(0x9E3779B1), np.uint64(0x85EBCA77), np.uint64(0xC2B2AE3D))


@lru_cache(maxsize=1)
def _permutations() -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    rng = np.random.default_rng(20261207)  # fixed: stored signatures must stay comparable
    a = rng.integers(1, int(_PRIME), size=PERMUTATIONS, dtype=np.uint64)
    b = rng.integers(0, int(_PRIME), size=PERMUTATIONS, dtype=np.uint64)
    return a, b


@lru_cache(maxsize=200_000)
def _word_hash(word: str) -> int:
    return zlib.crc32(word.encode())


def words(text: str) -> list[str]:
    """The folded words of ``text`` (Markdown marks gone, code spans' words kept)."""
    return _plain_words(_markless(text))


# What of Markdown is no word a reader sees: scripts and styles whole, images, a link's
# destination (its text stays), reference definitions, HTML tags.
_NOT_WORDS = re.compile(
    r"<(style|script)\b[^>]*>[\s\S]*?</\1\s*>"
    r"|!\[[^\]\n]*\]\([^)\n]*\)"
    r"|\]\([^)\n]*\)"
    r"|^ {0,3}\[[^\]\n]+\]:[^\n]*"
    r"|</?[A-Za-z][^>]{0,200}>",
    re.I | re.M,
)
# A fenced code block, to its closing fence or the end of the text (CommonMark's rule).
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M)


def _markless(markdown: str) -> str:
    """``markdown``'s words without a parse: outside fenced code (whose every word a
    reader sees), what is no word (``_NOT_WORDS``) removed and wiki links read as their
    text; the marks left (``*``, ``#``, backticks) are no word to ``_WORD``. Nearly
    ``inline``'s words at a sixth of its cost: Markdown parsing was half of a first
    run's time, and shingles need the words, not the structure."""
    out: list[str] = []
    at = 0
    for fence in _FENCED.finditer(markdown):
        out.append(_NOT_WORDS.sub(" ", wikilinks.as_text(markdown[at : fence.start()])))
        out.append(fence.group(0).partition("\n")[2])  # its info string is no text
        at = fence.end()
    out.append(_NOT_WORDS.sub(" ", wikilinks.as_text(markdown[at:])))
    return " ".join(out)


def _plain_words(plain: str) -> list[str]:
    return _WORD.findall(fold(plain))


def shingles(tokens: Sequence[str]) -> npt.NDArray[np.uint64]:
    """The distinct hashes (< 2^31 - 1) of every run of ``SHINGLE`` words; a text shorter
    than that is one shingle of all its words."""
    if not tokens:
        return np.zeros(0, dtype=np.uint64)
    hashed = np.fromiter(map(_word_hash, tokens), dtype=np.uint64, count=len(tokens))
    if len(hashed) < SHINGLE:
        hashed = np.concatenate([hashed, np.zeros(SHINGLE - len(hashed), dtype=np.uint64)])
    n = len(hashed) - SHINGLE + 1
    mixed = hashed[:n].copy()
    for k in range(1, SHINGLE):
        mixed = mixed * _MIX[(k - 1) % len(_MIX)] + hashed[k : k + n]  # wraps mod 2^64
    return np.unique(mixed % _PRIME)


def minhash(hashes: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint32]:
    """``PERMUTATIONS`` minimums of ``(a·x + b) mod p`` over the shingle hashes; an empty
    set gives the maximum everywhere (similar to nothing)."""
    if not len(hashes):
        return np.full(PERMUTATIONS, np.iinfo(np.uint32).max, dtype=np.uint32)
    a, b = _permutations()
    values = (a[:, None] * hashes[None, :] + b[:, None]) % _PRIME
    out: npt.NDArray[np.uint32] = values.min(axis=1).astype(np.uint32)
    return out


def similarity(x: npt.NDArray[np.uint32], y: npt.NDArray[np.uint32]) -> float:
    """The MinHash estimate of the Jaccard similarity of two shingle sets."""
    return float(np.mean(x == y))


def band_keys(prefix: str, values: npt.NDArray[np.uint32]) -> list[str]:
    """One key per band: two signatures sharing a key are compared (LSH)."""
    return [
        f"{prefix}{i}:{zlib.crc32(values[i * ROWS : (i + 1) * ROWS].tobytes()):08x}"
        for i in range(BANDS)
    ]


@dataclass(frozen=True, slots=True)
class Section:
    """A section long enough to match on its own: heading path, opening text, MinHash."""

    heading: str
    text: str  # its opening words, shown as the passage that overlaps
    minhash: npt.NDArray[np.uint32]
    words: int = 0  # how long it is: a shared passage is weighed by its words


@dataclass(frozen=True, slots=True)
class Signature:
    """What a run keeps of a page between runs (the store holds it, see the module)."""

    slug: str
    version: int
    title: str
    lang: str
    status: str
    minhash: npt.NDArray[np.uint32]
    sections: tuple[Section, ...] = ()
    vector: npt.NDArray[np.float32] | None = None  # unit mean of the page's chunk vectors
    claims: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    opening: str = ""  # the page's first words, the passage shown for a whole-page match
    words: int = 0  # the page's length in words: a copy is about as long as its original
    # The sections' MinHash values as one (sections × PERMUTATIONS) array, built once so
    # a pair's every section pair is one array comparison, not a loop (see compare).
    section_matrix: npt.NDArray[np.uint32] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        matrix = (
            np.stack([s.minhash for s in self.sections])
            if self.sections
            else np.zeros((0, PERMUTATIONS), dtype=np.uint32)
        )
        object.__setattr__(self, "section_matrix", matrix)

    def bands(self) -> list[str]:
        """Every key this page is found under: its page and section bands, and each code
        reference it states a value for (pages stating one are compared)."""
        keys = band_keys("p", self.minhash)
        for section in self.sections:
            keys.extend(band_keys("s", section.minhash))
        keys.extend(f"c:{ref}" for ref in self.claims)
        return sorted(set(keys))


PASSAGE_CHARS = 280
OPENING_SOURCE_CHARS = 600  # of a section's Markdown, parsed for its opening words


def _opening(plain: str) -> str:
    """The first ``PASSAGE_CHARS`` of a text already read as plain (``inline``)."""
    return plain if len(plain) <= PASSAGE_CHARS else plain[: PASSAGE_CHARS - 1] + "…"


def page_vector(vectors: Sequence[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32] | None:
    """The unit mean of a page's chunk vectors (None without any)."""
    if not vectors:
        return None
    mean = np.mean(np.stack([np.asarray(v, dtype=np.float32) for v in vectors]), axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm).astype(np.float32) if norm > 0 else None


def signature_of(
    slug: str,
    *,
    version: int,
    title: str,
    status: str,
    content: str,
    vector: npt.NDArray[np.float32] | None,
) -> Signature:
    """The signature of one page version (its chunk vectors already averaged)."""
    sections = []
    openings: list[str] = []
    page_words: list[str] = []
    for piece in split_markdown(title, content, max_chars=1_000_000, overlap=0):
        tokens = words(piece.text)
        # A heading is words of the page (a reworded copy keeps its headings): the last
        # of the piece's path, read without a parse (marks are not words anyway).
        page_words.extend(_plain_words(piece.heading.split(PATH_SEPARATOR)[-1]))
        page_words.extend(tokens)
        shown = len(tokens) >= MIN_SECTION_WORDS
        if shown or sum(map(len, openings)) < PASSAGE_CHARS:
            # Only what a curator is shown is parsed (``inline``), and only its start.
            opening = _opening(inline(piece.text[:OPENING_SOURCE_CHARS]))
            openings.append(opening)
        if shown:
            sections.append(Section(piece.heading, opening, minhash(shingles(tokens)), len(tokens)))
    return Signature(
        slug=slug,
        version=version,
        title=title,
        lang=language(f"{title}\n{content}"),
        status=status,
        minhash=minhash(shingles(page_words)),
        sections=tuple(sections),
        vector=vector,
        claims=claims_of(content),
        opening=_opening(" ".join(o for o in openings if o)),
        words=len(page_words),
    )
