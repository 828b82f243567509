"""Retrieval quality on the labelled questions: recall@1, recall@5 and MRR per page.

For each corpus of bench/corpora.py (fastapi-es, textual-en, astro-es; ``--corpus`` picks
some), imports it into a throw-away embedded store with the offline embedder, then ranks
pages for every labelled question with the shipped hybrid retrieval, with its parts and
fusion alternatives, and with a plain page-level BM25 baseline, all in the same run. A
question is found when any of its labelled pages (``page``, ``also``) is.

    .venv/bin/python bench/retrieval.py [--corpus NAME ...] [--json] [--show-misses]
        [--store DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.api.models import DEFAULT_LIMIT  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.records import ChunkHit, SearchFilter  # noqa: E402
from shared.retrieval import evidence, hybrid  # noqa: E402
from shared.retrieval.fusion import Ranked, by_page, mix, rrf  # noqa: E402
from shared.retrieval.lexical import LexicalHit  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from corpora import Corpus, chosen, labelled_pages, open_corpus  # noqa: E402

NONE = SearchFilter()
INDEX = hybrid.IndexCache()  # this process's search index, as a wiring holds one
SHIPPED = "hybrid (shipped: mix + pages)"


def page_order(slugs: Sequence[str]) -> list[str]:
    """Pages in the order their first chunk appears."""
    return list(dict.fromkeys(slugs))


def metrics(rankings: Sequence[list[str]], answers: Sequence[set[str]]) -> dict[str, float]:
    r1 = r5 = rr = 0.0
    for ranking, answer in zip(rankings, answers, strict=True):
        positions = [i for i, slug in enumerate(ranking, 1) if slug in answer]
        if positions:
            position = positions[0]
            r1 += position == 1
            r5 += position <= 5
            rr += 1 / position
    n = max(len(answers), 1)
    return {"recall@1": r1 / n, "recall@5": r5 / n, "mrr": rr / n, "n": len(answers)}


class PageBm25:
    """The baseline: BM25 over whole pages, lower-cased word tokens, nothing else."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.slugs = list(pages)
        self.docs = [Counter(re.findall(r"\w+", text.lower())) for text in pages.values()]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avgdl = sum(self.lengths) / len(self.lengths)
        df: Counter[str] = Counter()
        for doc in self.docs:
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}

    def rank(self, question: str, k1: float = 1.2, b: float = 0.75) -> list[str]:
        terms = re.findall(r"\w+", question.lower())
        scores = []
        for slug, doc, length in zip(self.slugs, self.docs, self.lengths, strict=True):
            s = 0.0
            for t in terms:
                tf = doc.get(t, 0)
                if tf:
                    s += self.idf[t] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / self.avgdl))
            scores.append((s, slug))
        return [slug for s, slug in sorted(scores, key=lambda x: -x[0]) if s > 0]


def dense_only(dense: Sequence[ChunkHit], lexical: Sequence[LexicalHit], rows: Any) -> list[str]:
    del lexical, rows
    return [h.slug for h in dense]


def lexical_only(dense: Sequence[ChunkHit], lexical: Sequence[LexicalHit], rows: Any) -> list[str]:
    del dense, rows
    return [h.key[0] for h in lexical]


def fused(fuse: Callable[..., list[Ranked]]) -> Callable[..., list[str]]:
    def run(dense: Sequence[ChunkHit], lexical: Sequence[LexicalHit], rows: Any) -> list[str]:
        return [r.slug for r in fuse(dense, lexical, rows)]

    return run


def paged(**options: Any) -> Callable[..., list[Ranked]]:
    """The mix, then pages ranked by ``by_page`` with these options."""

    def run(dense: Sequence[ChunkHit], lexical: Sequence[LexicalHit], rows: Any) -> list[Ranked]:
        return by_page(mix(dense, lexical, rows), **options)

    return run


SUBSETS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "all": lambda q: True,
    "tune": lambda q: q["split"] == "tune",
    "holdout": lambda q: q["split"] == "holdout",
    "es": lambda q: q["lang"] == "es",
    "en": lambda q: q["lang"] == "en",
    "en hold": lambda q: q["lang"] == "en" and q["split"] == "holdout",
}


def measure(corpus: Corpus, store_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """One corpus's figures for every system, and its tuning misses (shipped ranking)."""
    data = corpus.labelled()
    questions = data["questions"]
    embedder = shared_local_embedder()
    store, import_s = open_corpus(corpus, store_dir)
    pages = {p.slug: f"{p.front_matter['title']}\n{p.content}" for p in store.pages.list()}
    if not pages:
        raise SystemExit(f"{corpus.name}: the import found no pages in {corpus.docs_dir}")
    baseline = PageBm25(pages)
    index = INDEX.snapshot(store.chunks).index
    chunk_count = len(index)

    systems: dict[str, Callable[..., list[str]]] = {
        SHIPPED: fused(paged()),
        "mix w=0.5, chunk order": fused(mix),
        "dense only": dense_only,
        "lexical only": lexical_only,
        "rrf k=60": fused(rrf),
    }
    for w in (0.3, 0.4, 0.6, 0.7):
        systems[f"mix w={w}, chunk order"] = fused(partial(mix, dense_weight=w))

    rankings: dict[str, list[list[str]]] = {name: [] for name in systems}
    rankings["baseline: page BM25"] = []
    for q in questions:
        vector = embedder.embed_query(q["q"])
        dense = store.chunks.nearest(
            vector, embedder=embedder.name, filters=NONE, limit=hybrid.CANDIDATES
        )
        lexical = index.search(q["q"], NONE, hybrid.CANDIDATES)
        for name, system in systems.items():
            rankings[name].append(page_order(system(dense, lexical, index.labels)))
        rankings["baseline: page BM25"].append(baseline.rank(q["q"]))

    # The best fused score among the chunks `ask` would consider (its default limit):
    # what the relevance gate and the hedge see.
    def best_fused(question: str) -> float:
        vector = embedder.embed_query(question)
        found = hybrid.retrieve(
            store.chunks,
            question,
            vector,
            embedder=embedder.name,
            filters=NONE,
            limit=DEFAULT_LIMIT,
            state=INDEX.snapshot(store.chunks),
        )
        return evidence.best_fused(found.ranked)

    negatives = [best_fused(q["q"]) for q in data.get("negatives", [])]
    positives = [best_fused(q["q"]) for q in questions]

    results: dict[str, dict[str, dict[str, float]]] = {}
    for name, ranks in rankings.items():
        results[name] = {}
        for subset, keep in SUBSETS.items():
            chosen_ = [
                (r, labelled_pages(q)) for r, q in zip(ranks, questions, strict=True) if keep(q)
            ]
            if chosen_:
                results[name][subset] = metrics([r for r, _ in chosen_], [a for _, a in chosen_])
    misses = [
        f"MISS {q['q']!r}: want {q['page']}, got {ranking[:3]}"
        for ranking, q in zip(rankings[SHIPPED], questions, strict=True)
        if q["split"] == "tune" and (not ranking or ranking[0] not in labelled_pages(q))
    ]
    summary = {
        "corpus_pages": len(pages),
        "chunks": chunk_count,
        "questions": len(questions),
        "held_out": sum(q["split"] == "holdout" for q in questions),
        "import_seconds": round(import_s, 2),
        "results": results,
        "top_score_answerable_min": round(min(positives), 3),
        "top_score_negatives_max": round(max(negatives), 3) if negatives else None,
    }
    return summary, misses


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", help="fastapi-es, textual-en, astro-es (all)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-misses", action="store_true", help="tuning misses only")
    parser.add_argument("--store", type=Path, help="keep each imported corpus in DIR/<name>")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in chosen(args.corpus):
            if not corpus.docs_dir.is_dir():
                print(f"the corpus is not at {corpus.docs_dir}", file=sys.stderr)
                return 2
            summary, misses = measure(corpus, (args.store or Path(tmp)) / corpus.name)
            out[corpus.name] = summary
            if args.json:
                continue
            print(
                f"\n## {corpus.name}: {summary['corpus_pages']} pages, {summary['chunks']} "
                f"chunks, {summary['questions']} questions ({summary['held_out']} held out); "
                f"import {summary['import_seconds']:.1f} s"
            )
            header = f"{'system':30} {'subset':8} {'R@1':>6} {'R@5':>6} {'MRR':>6} {'n':>4}"
            print(header)
            print("-" * len(header))
            for name, by_subset in summary["results"].items():
                for subset, m in by_subset.items():
                    print(
                        f"{name:30} {subset:8} {m['recall@1']:6.3f} {m['recall@5']:6.3f} "
                        f"{m['mrr']:6.3f} {m['n']:4.0f}"
                    )
            print(
                f"top fused score: answerable min {summary['top_score_answerable_min']:.3f}, "
                f"off-topic max {summary['top_score_negatives_max']}"
            )
            if args.show_misses:
                print("\n".join(misses))
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
