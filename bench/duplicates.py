"""Duplicates found on the five real corpora: precision and recall per kind and per
signal, and the time of a first and of an incremental run at 1,000 and 10,000 pages.

**Labelled set.** In each corpus of ``../shared/corpus`` (up to ``--pool`` pages of at
least 150 words), ``--sample`` pages are each given three copies and one host:

- ``edit``: ~4% of the words dropped or changed, one sentence removed (kind ``copy``);
- ``reorder``: the ``##`` sections in another order (``copy``);
- ``paraphrase``: the sentences of each paragraph in reverse order and one word in five
  swapped with its neighbour (``copy``: a rewording no shingle survives intact);
- ``overlap``: a page of the pool (then left out of it) with the sample's longest
  section pasted at its end (``overlap`` with the sample and its copies).

Pairs of pages sharing a passage of at least ``VERBATIM`` words word for word are
labelled ``overlap`` too (``repeated``: the corpora's own repetition, which a reviewer
would call an overlap; the rule reads the text, not the detector's signatures). Every
other pair in the pool is a negative: pages of one corpus, neighbouring topics of one
section among them. A pair found that the set does not label counts against precision,
however it was found (``--show-fp`` prints them). ``translation`` is not measured: no
corpus tree holds one page in both languages. ``conflict`` is not labelled here
(``tests/unit/test_dedup.py`` covers it) and left out of the figures. Vectors are the
shipped offline embedder's, per chunk of the real chunker, averaged per page as the
store does.

**Tune and holdout.** Each page falls in ``tune`` or ``holdout`` by the sha256 of its
slug (a variant and an overlap host by their sampled page's); each half is scored as a
wiki of its own, and ``all`` is the whole set. Rules are chosen looking at ``tune``.

**Scale.** ``--scale`` pages (default 1,000 and 10,000) synthesised from the pool: page
*i* is pool page *i mod n* with 30% of its words replaced by words of the corpus (so two
siblings share few shingles) and its chunk vectors moved by noise (siblings' cosine about
0.7), written to a fresh SQLite store; then ``refresh`` (the first run, all pages), one
page rewritten, and ``refresh`` again (the incremental run). The run prints both times,
their ratio, and how many stored signatures the incremental run read (its candidates).

    .venv/bin/python bench/duplicates.py [--sample 12] [--pool 120] [--scale 1000 10000]
        [--corpus NAME ...] [--show-fp] [--json] [--vector-cache FILE]
        [--store memory|sqlite|firestore]

**Stores.** ``--store sqlite`` or ``firestore`` scores the combined signals (what ships)
on each half written to a fresh store of that kind: a first run's findings as
``duplicates.listing`` gives them, signatures encoded and read back (vectors as float16).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpora import CORPUS_ROOT  # noqa: E402

from shared.dedup.compare import BOTH, Finding, Signal  # noqa: E402
from shared.dedup.signature import Signature, page_vector, signature_of, words  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.records import Chunk, PageRecord  # noqa: E402
from shared.retrieval.chunking import split_markdown  # noqa: E402
from shared.services import duplicates  # noqa: E402
from shared.services.importer import split_front_matter  # noqa: E402
from shared.store.sqlite import SqliteStore  # noqa: E402

# The docs folder of each corpus (its README says which part is the docs tree).
TREES = {
    "fastapi-es": "docs",
    "textual-en": "repo/docs",
    "astro-es": "repo/src/content/docs/es",
    "vitepress-en": "repo/docs/en",
    "docusaurus-en": "repo/website/docs",
}
MIN_WORDS = 150
LABELLED_KINDS = ("copy", "overlap")
SIGNALS: dict[str, frozenset[Signal]] = {
    "text": frozenset({"text"}),
    "meaning": frozenset({"meaning"}),
    "both": BOTH,
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_IMPORT = re.compile(r"^(import|export) .*$", re.M)


@dataclass
class Doc:
    """One page of the labelled pool: its slug, title, body and chunk vectors."""

    slug: str
    folder: str
    title: str
    body: str
    vectors: list[npt.NDArray[np.float32]] = field(default_factory=list)
    family: str = ""  # the sampled page a variant was made from (its split follows it)

    @property
    def split(self) -> str:
        return split_of(self.family or self.slug)


def split_of(slug: str) -> str:
    """``tune`` or ``holdout``, stable across runs and machines: the first byte of the
    sha256 of the page's slug (a variant and an overlap host follow their sampled page,
    so a labelled pair never straddles the two)."""
    return "tune" if hashlib.sha256(slug.encode()).digest()[0] % 2 == 0 else "holdout"


def load(corpus: str, pool: int, rng: random.Random) -> list[Doc]:
    """Up to ``pool`` pages of ``corpus`` with at least ``MIN_WORDS`` words (a fixed sample)."""
    root = CORPUS_ROOT / corpus / TREES[corpus]
    docs = []
    for path in sorted([*root.rglob("*.md"), *root.rglob("*.mdx")]):
        try:
            front, body = split_front_matter(path.read_text("utf-8"))
        except Exception:  # a page whose front matter does not parse is not a bench page
            continue
        body = _IMPORT.sub("", body)
        if len(words(body)) < MIN_WORDS:
            continue
        rel = path.relative_to(root)
        slug = f"{corpus}/{rel.with_suffix('')}".replace("/", "-").lower()
        title = str(front.get("title") or rel.stem)
        docs.append(Doc(slug, str(rel.parent), title, body))
    rng.shuffle(docs)
    return docs[:pool]


def sections(body: str) -> list[str]:
    parts = re.split(r"(?m)^(?=## )", body)
    return [p for p in parts if p.strip()]


def edited(body: str, rng: random.Random) -> str:
    """~4% of the words dropped or doubled, one sentence removed."""
    sentences = _SENTENCE.split(body)
    if len(sentences) > 3:
        del sentences[rng.randrange(1, len(sentences))]
    out = []
    for word in " ".join(sentences).split(" "):
        roll = rng.random()
        if roll < 0.02:
            continue
        out.append(word)
        if roll > 0.98:
            out.append(word)
    return " ".join(out)


def reordered(body: str, rng: random.Random) -> str | None:
    parts = sections(body)
    if len(parts) < 3:
        return None
    head, rest = parts[0], parts[1:]
    shuffled = rest[:]
    while shuffled == rest:
        rng.shuffle(shuffled)
    return "".join([head, *[p if p.endswith("\n") else p + "\n" for p in shuffled]])


def paraphrased(body: str) -> str:
    """Each paragraph's sentences reversed; one word in five swapped with the next."""
    paragraphs = []
    for paragraph in body.split("\n\n"):
        if paragraph.lstrip().startswith(("```", "#", "|", "-", "*", "<")):
            paragraphs.append(paragraph)
            continue
        tokens = " ".join(reversed(_SENTENCE.split(paragraph))).split(" ")
        for i in range(0, len(tokens) - 1, 5):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        paragraphs.append(" ".join(tokens))
    return "\n\n".join(paragraphs)


@dataclass
class Labelled:
    docs: list[Doc]
    labels: dict[tuple[str, str], str]  # ordered pair -> kind
    recall_sets: dict[str, list[tuple[str, str]]]  # variant -> the (base, variant) pairs
    negatives_same_folder: int


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def labelled_set(corpus: str, pool: int, sample: int, seed: int) -> Labelled:
    rng = random.Random(f"{seed}:{corpus}")
    originals = load(corpus, pool, rng)
    bases = originals[:sample]
    hosts = originals[sample : 2 * sample]
    kept = [d for d in originals if d not in hosts]  # a host's original would be a copy
    docs = list(kept)
    labels: dict[tuple[str, str], str] = {}
    recall: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for base, host in zip(bases, hosts, strict=False):
        family = [base]
        variants = {
            "edit": edited(base.body, rng),
            "reorder": reordered(base.body, rng),
            "paraphrase": paraphrased(base.body),
        }
        for name, body in variants.items():
            if body is None or body == base.body:
                continue
            doc = Doc(f"{base.slug}--{name}", base.folder, base.title, body, family=base.slug)
            docs.append(doc)
            family.append(doc)
            recall[name].append(_pair(base.slug, doc.slug))
        for i, a in enumerate(family):
            for b in family[i + 1 :]:
                labels[_pair(a.slug, b.slug)] = "copy"
        pasted = max(sections(base.body)[1:] or sections(base.body), key=len)
        hosted = f"{host.body}\n\n{pasted}"
        over = Doc(f"{host.slug}--overlap", host.folder, host.title, hosted, family=base.slug)
        if len(words(pasted)) >= 30:
            docs.append(over)
            recall["overlap"].append(_pair(base.slug, over.slug))
            for member in family:
                labels[_pair(member.slug, over.slug)] = "overlap"
    for pair in repeated(docs):  # the corpus's own repetition, variants' included
        labels.setdefault(pair, "overlap")
    folders: dict[str, int] = defaultdict(int)
    for d in kept:
        folders[d.folder] += 1
    same_folder = sum(n * (n - 1) // 2 for n in folders.values())
    return Labelled(docs, labels, dict(recall), same_folder)


VERBATIM = 40  # words one passage must share verbatim with another page to overlap it
_GRAM = 8


def repeated(docs: Sequence[Doc]) -> set[tuple[str, str]]:
    """Pairs of the corpus's own pages that a reviewer would call an overlap: a passage of
    at least ``VERBATIM`` words (folded) appears in both, word for word. The rule
    reads the text, not the detector's signatures: the longest run of consecutive
    ``_GRAM``-word grams of one page that the other also holds."""
    grams: dict[int, list[int]] = defaultdict(list)
    texts = [words(d.body) for d in docs]
    sets = []
    for i, tokens in enumerate(texts):
        own = {hash(tuple(tokens[j : j + _GRAM])) for j in range(len(tokens) - _GRAM + 1)}
        sets.append(own)
        for g in own:
            grams[g].append(i)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for holders in grams.values():
        if len(holders) <= 10:  # a gram on many pages is boilerplate, not a passage
            for x, i in enumerate(holders):
                for j in holders[x + 1 :]:
                    shared[(i, j)] += 1
    need = VERBATIM - _GRAM + 1
    out = set()
    for (i, j), count in shared.items():
        if count >= need and _longest_run(texts[j], sets[i]) >= need:
            out.add(_pair(docs[i].slug, docs[j].slug))
    return out


def _longest_run(tokens: Sequence[str], grams: set[int]) -> int:
    best = run = 0
    for j in range(len(tokens) - _GRAM + 1):
        run = run + 1 if hash(tuple(tokens[j : j + _GRAM])) in grams else 0
        best = max(best, run)
    return best


_cache: dict[str, npt.NDArray[np.float32]] = {}


def embed(docs: Sequence[Doc]) -> None:
    """Each doc's chunk vectors (the real chunker, the shipped embedder; equal chunks once)."""
    embedder = shared_local_embedder()
    per_doc: list[list[str]] = []
    for doc in docs:
        per_doc.append([f"{p.heading}\n{p.text}" for p in split_markdown(doc.title, doc.body)][:40])
    todo = sorted({t for texts in per_doc for t in texts if _key(t) not in _cache})
    for start in range(0, len(todo), 256):
        batch = todo[start : start + 256]
        for text, vector in zip(batch, embedder.embed_documents(batch), strict=True):
            _cache[_key(text)] = vector
    for doc, texts in zip(docs, per_doc, strict=True):
        doc.vectors = [_cache[_key(t)] for t in texts]


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def signed(docs: Iterable[Doc]) -> dict[str, Signature]:
    return {
        d.slug: signature_of(
            d.slug,
            version=1,
            title=d.title,
            status="active",
            content=d.body,
            vector=page_vector(d.vectors),
        )
        for d in docs
    }


@dataclass
class Score:
    found: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    right: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    recalled: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    expected: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    false: list[tuple[str, str, str, float]] = field(default_factory=list)
    conflicts: int = 0


def score(labelled: Labelled, found_all: Iterable[Finding], into: Score) -> None:
    found: dict[tuple[str, str], Finding] = {}
    for finding in found_all:
        if finding.kind == "conflict":
            into.conflicts += 1
        elif finding.kind in LABELLED_KINDS:
            found[finding.pair] = finding
        else:  # a translation: no pair in these sets is one
            into.found[finding.kind] += 1
            into.false.append((finding.kind, *finding.pair, finding.score))
    for pair, finding in found.items():
        into.found[finding.kind] += 1
        if labelled.labels.get(pair) == finding.kind:
            into.right[finding.kind] += 1
        else:
            into.false.append((finding.kind, *pair, finding.score))
    for variant, expected in labelled.recall_sets.items():
        kind = "overlap" if variant == "overlap" else "copy"
        into.expected[variant] += len(expected)
        into.recalled[variant] += sum(1 for p in expected if p in found and found[p].kind == kind)


def in_memory(signatures: dict[str, Signature], signals: frozenset[Signal]) -> list[Finding]:
    """What the detector finds among ``signatures``, compared in memory (pure)."""
    pairs = duplicates.candidate_pairs(signatures.values())
    return duplicates._compared(pairs, signatures, None, signals)


def in_store(docs: Sequence[Doc], backend: str) -> list[Finding]:
    """What a first run finds once ``docs`` are written to a fresh store of ``backend``
    (``sqlite``, or ``firestore`` on the emulator at FIRESTORE_EMULATOR_HOST): the
    shipped path, signatures stored and read back, findings listed."""
    if backend == "firestore":
        from shared.store.firestore import FirestoreStore

        store: Any = FirestoreStore(f"bench-dups-{uuid.uuid4().hex[:12]}")
    else:
        store = SqliteStore(Path(tempfile.mkdtemp(prefix="dups-bench-")))
    now = datetime.now(UTC)
    for doc in docs:
        _write(store, doc, 1, now)
    duplicates.refresh(store)
    return [
        Finding(g.kind, g.score, g.pages[0].slug, g.pages[1].slug, ())
        for g in duplicates.listing(store).groups
    ]


def quality(args: argparse.Namespace) -> dict[str, object]:
    sets = {}
    signatures: dict[str, dict[str, Signature]] = {}
    for corpus in args.corpus or list(TREES):
        started = time.perf_counter()
        labelled = labelled_set(corpus, args.pool, args.sample, args.seed)
        embed(labelled.docs)
        sets[corpus] = labelled
        signatures[corpus] = signed(labelled.docs)  # once: the signals only compare
        print(
            f"{corpus}: {len(labelled.docs)} pages, {len(labelled.labels)} labelled pairs,"
            f" {labelled.negatives_same_folder} same-folder negative pairs"
            f" ({time.perf_counter() - started:.1f} s)",
            file=sys.stderr,
        )
    out: dict[str, object] = {}
    for name, signals in SIGNALS.items():
        figures: dict[str, object] = {}
        for split in SPLITS:
            total = Score()
            per_corpus = {}
            for corpus, labelled in sets.items():
                one = Score()
                part = subset(labelled, split)
                if name == "both" and args.store != "memory":
                    found = in_store(part.docs, args.store)
                else:
                    own = {d.slug: signatures[corpus][d.slug] for d in part.docs}
                    found = in_memory(own, signals)
                score(part, found, one)
                per_corpus[corpus] = _figures(one)
                _add(total, one)
            figures[split] = {"overall": _figures(total), "corpora": per_corpus}
            if args.show_fp and name == "both" and split == "all":
                for kind, a, b, s in sorted(total.false):
                    print(f"  false {kind} {s:.3f} {a} ~ {b}", file=sys.stderr)
        out[name] = figures
    return out


SPLITS = ("tune", "holdout", "all")


def subset(labelled: Labelled, split: str) -> Labelled:
    """The labelled set of one split's pages (``all``: every page), scored as a wiki of
    its own: its pairs, its recall sets."""
    if split == "all":
        return labelled
    docs = [d for d in labelled.docs if d.split == split]
    kept = {d.slug for d in docs}
    return Labelled(
        docs,
        {p: k for p, k in labelled.labels.items() if p[0] in kept and p[1] in kept},
        {
            v: [p for p in pairs if p[0] in kept and p[1] in kept]
            for v, pairs in labelled.recall_sets.items()
        },
        labelled.negatives_same_folder,
    )


def _add(total: Score, one: Score) -> None:
    for src, dst in (
        (one.found, total.found),
        (one.right, total.right),
        (one.recalled, total.recalled),
        (one.expected, total.expected),
    ):
        for k, v in src.items():
            dst[k] += v
    total.false.extend(one.false)
    total.conflicts += one.conflicts


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _figures(s: Score) -> dict[str, object]:
    found, right = sum(s.found.values()), sum(s.right.values())
    recalled, expected = sum(s.recalled.values()), sum(s.expected.values())
    return {
        "precision": _ratio(right, found),
        "recall": _ratio(recalled, expected),
        "found": found,
        "precision_by_kind": {k: _ratio(s.right[k], s.found[k]) for k in sorted(s.found)},
        "recall_by_variant": {k: f"{s.recalled[k]}/{s.expected[k]}" for k in sorted(s.expected)},
        "unlabelled_conflicts": s.conflicts,
    }


# -- scale --------------------------------------------------------------------------


def synthetic(docs: Sequence[Doc], n: int, rng: np.random.Generator) -> list[tuple[Doc, int]]:
    vocabulary = sorted({w for d in docs for w in d.body.split()})
    out = []
    for i in range(n):
        source = docs[i % len(docs)]
        tokens = source.body.split(" ")
        swap = rng.random(len(tokens)) < 0.30
        picks = rng.integers(0, len(vocabulary), size=len(tokens))
        body = " ".join(
            vocabulary[int(p)] if s else t for t, s, p in zip(tokens, swap, picks, strict=True)
        )
        noise = 0.65 / np.sqrt(len(source.vectors[0]))
        vectors = [(v + rng.normal(0, noise, len(v))).astype(np.float32) for v in source.vectors]
        vectors = [v / np.linalg.norm(v) for v in vectors]
        out.append((Doc(f"s{i}-{source.slug}", source.folder, source.title, body, vectors), i))
    return out


def _write(store: Any, doc: Doc, version: int, now: datetime) -> None:
    fm = {"title": doc.title, "type": "guide", "status": "active"}
    record = PageRecord(doc.slug, fm, doc.body, version, now, now)
    chunks = [
        Chunk(doc.slug, i, "h", f"c{i}", f"{doc.slug}-{version}-{i}", v, "local:use-m3@512")
        for i, v in enumerate(doc.vectors)
    ]
    if version == 1:
        store.pages.create(record, chunks)
    else:
        store.pages.update(record, chunks, expected_version=version - 1)


def scale(docs: Sequence[Doc], sizes: Sequence[int]) -> list[dict[str, object]]:
    rows = []
    for n in sizes:
        rng = np.random.default_rng(n)
        store = SqliteStore(Path(tempfile.mkdtemp(prefix="dups-bench-")))
        now = datetime.now(UTC)
        pages = synthetic(docs, n, rng)
        for doc, _ in pages:
            _write(store, doc, 1, now)
        started = time.perf_counter()
        first = duplicates.refresh(store)
        full = time.perf_counter() - started
        changed = pages[n // 2][0]
        changed.body = pages[n // 3][0].body  # it now copies another page
        _write(store, changed, 2, now)
        started = time.perf_counter()
        again = duplicates.refresh(store)
        incremental = time.perf_counter() - started
        row: dict[str, object] = {
            "pages": n,
            "first_run_s": round(full, 2),
            "first_compared": first.compared,
            "first_found": first.found,
            "incremental_s": round(incremental, 3),
            "incremental_signed": again.signed,
            "incremental_signatures_read": len(again.candidates),
            "incremental_compared": again.compared,
            "first_over_incremental": round(full / incremental, 1) if incremental else None,
        }
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", action="append", choices=sorted(TREES))
    parser.add_argument("--sample", type=int, default=12)
    parser.add_argument("--pool", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scale", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--show-fp", action="store_true")
    parser.add_argument(
        "--vector-cache",
        type=Path,
        metavar="FILE",
        help="an .npz of chunk vectors by text hash, read first and written after"
        " embedding (the embedder is most of a run on a busy machine)",
    )
    parser.add_argument(
        "--store",
        choices=("memory", "sqlite", "firestore"),
        default="memory",
        help="where the combined signals' figures come from: signatures compared in memory,"
        " or each half written to a fresh store and a first run's findings listed"
        " (firestore: the emulator at FIRESTORE_EMULATOR_HOST)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (CORPUS_ROOT / "fastapi-es").is_dir():
        print(f"no corpora under {CORPUS_ROOT}", file=sys.stderr)
        return 2
    if args.vector_cache and args.vector_cache.exists():
        with np.load(args.vector_cache) as held:
            _cache.update({k: held[k] for k in held.files})
    figures = quality(args)
    pool = [
        d
        for corpus in args.corpus or list(TREES)
        for d in labelled_set(corpus, args.pool, 0, args.seed).docs
    ]
    embed(pool)
    if args.vector_cache:
        np.savez(args.vector_cache, **_cache)  # type: ignore[arg-type]
    rows = scale([d for d in pool if d.vectors], args.scale)
    result = {"quality": figures, "scale": rows}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for name, data in figures.items():
            assert isinstance(data, dict)
            for split, part in data.items():
                print(f"{name:8} {split:8} {json.dumps(part['overall'])}")
        for row in rows:
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
