"""Can a wiki tune its own ranking from its headings? Issue 31, item 3, measured.

Every wiki carries question-like pairs for free: a section's heading and the page it is
on. For each corpus of bench/corpora.py this script takes up to ``--pairs`` of them (a
heading of two words or more, not the page's title, each text once, in a seeded random
order), asks each heading as a question, and ranks pages as ``ask`` does (dense and
lexical candidates, ``fusion.mix``, ``by_page``, ``by_kind``, the cited pages first) over
a grid of the two fusion settings that could be learned per wiki without re-indexing:
the dense weight of ``mix`` and the page ``decay`` of ``by_page``.

It prints, per corpus, R@1 of the pairs, of the tuning questions and of the holdout
questions at every grid point; the setting the pairs choose (their best R@1, the shipped
setting on a tie); and the holdout R@1 at the shipped setting beside the one at the
pairs' choice: whether learning from the wiki's headings would have helped questions it
never saw. Nothing here is learned from the labelled questions.

    .venv/bin/python bench/wiki_pairs.py [--corpus NAME ...] [--store DIR] [--pairs 300]
        [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpora import Corpus, chosen, labelled_pages, open_corpus  # noqa: E402
from retrieval import NONE  # noqa: E402

from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.records import ChunkHit  # noqa: E402
from shared.retrieval import evidence, fusion, hybrid  # noqa: E402
from shared.retrieval.intent import intent, kind_fit  # noqa: E402
from shared.retrieval.lexical import LexicalHit, LexicalIndex  # noqa: E402

DENSE_WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7)
DECAYS = (0.3, 0.4, 0.5, 0.6)
SHIPPED = (fusion.DENSE_WEIGHT, fusion.PAGE_DECAY)
INDEX = hybrid.IndexCache()


@dataclass(frozen=True, slots=True)
class Asked:
    """One question's candidates from both sides, and the pages that answer it."""

    question: str
    dense: list[ChunkHit]
    lexical: list[LexicalHit]
    right: frozenset[str]
    split: str  # "pairs", "tune" or "holdout"


def heading_pairs(index: LexicalIndex, count: int) -> list[tuple[str, str]]:
    """Up to ``count`` (heading, page) pairs: a section's own heading (the last of its
    path), two words or more and not its page's title, each text once."""
    found: dict[str, tuple[str, str]] = {}
    for info in index.rows:
        heading = info.heading.rsplit(" › ", 1)[-1].strip()
        if len(heading.split()) >= 2 and heading != info.title:
            found.setdefault(heading.casefold(), (heading, info.slug))
    pairs = sorted(found.values())
    random.Random(7).shuffle(pairs)
    return pairs[:count]


def first_page(index: LexicalIndex, asked: Asked, dense_weight: float, decay: float) -> str:
    """The page ``ask``'s ranking would cite first for ``asked`` at these settings."""
    mixed = fusion.mix(asked.dense, asked.lexical, index.labels, dense_weight=dense_weight)
    wanted = intent(asked.question)
    ranked = fusion.by_kind(
        fusion.by_page(mixed, decay=decay),
        lambda chunk: hybrid._kind(index, chunk),  # the page kind as ``retrieve`` reads it
        lambda k: kind_fit(wanted, k),
        weight=hybrid.KIND_WEIGHT,
    )
    cited = evidence.cited(ranked) or ranked
    return cited[0].slug if cited else ""


def asked_all(corpus: Corpus, directory: Path, pairs: int) -> tuple[LexicalIndex, list[Asked]]:
    store, _ = open_corpus(corpus, directory)
    embedder = shared_local_embedder()
    state = INDEX.snapshot(store.chunks)
    items = [(h, frozenset([slug]), "pairs") for h, slug in heading_pairs(state.index, pairs)]
    items += [
        (q["q"], frozenset(labelled_pages(q)), q["split"]) for q in corpus.labelled()["questions"]
    ]
    out = []
    for question, right, split in items:
        vector = embedder.embed_query(question)
        dense = store.chunks.nearest(
            vector, embedder=embedder.name, filters=NONE, limit=hybrid.CANDIDATES
        )
        lexical = state.index.search(question, NONE, hybrid.CANDIDATES)
        out.append(Asked(question, dense, lexical, right, split))
    return state.index, out


def measure(corpus: Corpus, directory: Path, pairs: int) -> dict[str, Any]:
    index, asked = asked_all(corpus, directory, pairs)
    grid: dict[tuple[float, float], dict[str, float]] = {}
    for setting in product(DENSE_WEIGHTS, DECAYS):
        hits: dict[str, list[bool]] = {"pairs": [], "tune": [], "holdout": []}
        for a in asked:
            hits[a.split].append(first_page(index, a, *setting) in a.right)
        grid[setting] = {k: round(sum(v) / max(len(v), 1), 3) for k, v in hits.items()}
    chosen_ = max(grid, key=lambda s: (grid[s]["pairs"], s == SHIPPED))
    return {
        "pairs": sum(a.split == "pairs" for a in asked),
        "grid": {f"w={w} decay={d}": r for (w, d), r in grid.items()},
        "pairs_choose": f"w={chosen_[0]} decay={chosen_[1]}",
        "holdout_shipped": grid[SHIPPED]["holdout"],
        "holdout_pairs_choice": grid[chosen_]["holdout"],
        "tune_shipped": grid[SHIPPED]["tune"],
        "tune_pairs_choice": grid[chosen_]["tune"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", help="names of bench/corpora.py (all)")
    parser.add_argument("--store", type=Path, help="keep each imported corpus in DIR/<name>")
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in chosen(args.corpus):
            out[corpus.name] = measure(corpus, (args.store or Path(tmp)) / corpus.name, args.pairs)
            if not args.json:
                o = out[corpus.name]
                print(f"{corpus.name}: {o['pairs']} pairs")
                for setting, r in o["grid"].items():
                    print(
                        f"  {setting:18} pairs {r['pairs']:.3f}  tune {r['tune']:.3f}"
                        f"  holdout {r['holdout']:.3f}"
                    )
                print(
                    f"  the pairs choose {o['pairs_choose']}: holdout R@1 "
                    f"{o['holdout_shipped']:.3f} shipped -> {o['holdout_pairs_choice']:.3f}, "
                    f"tune {o['tune_shipped']:.3f} -> {o['tune_pairs_choice']:.3f}",
                    flush=True,
                )
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
