"""Recall@10 of the snapshot's compressed dense search against exact search, on the five corpora.

Each corpus is imported with the shipped offline embedder (``--store DIR`` keeps the
stores: a second run only checks them). The queries are the corpus's labelled questions
where it has them, and every page's title and section headings (up to ``--queries``),
embedded as questions. For each query the exact top 10 is the float32 scan over every
active chunk (what ``find_nearest`` and the SQLite scan return); beside it, in the same
run: the 4-bit codes alone (``scan``), and the codes' top ``--rescore`` candidates
rescored exactly from their stored vectors (``rescored``: what ``ask`` runs), with the
bytes each keeps in memory per chunk; and, not shipped, sign bits (64 bytes a chunk at
512 dimensions) ranked by Hamming distance with their top ``BINARY_RESCORE`` rescored
exactly: the smallest code there is, for comparison (docs/scale.md, "Memory").

    .venv/bin/python bench/dense_recall.py [--corpus NAME ...] [--store DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpora import CORPUS_ROOT, Corpus, open_corpus  # noqa: E402

from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.records import SearchFilter  # noqa: E402
from shared.retrieval import dense  # noqa: E402

K = 10
BINARY_RESCORE = (50, 200)
# The five corpora: the three with labelled questions (bench/corpora.py) and two more
# dialects whose queries are their own titles and headings.
CORPORA = [
    Corpus("fastapi-es", "docs", "questions.json", "es"),
    Corpus("textual-en", "repo/docs", "questions-textual-en.json", "en"),
    Corpus("astro-es", "repo/src/content/docs/es", "questions-astro-es.json", "es"),
    Corpus("vitepress-en", "repo/docs/en", "", "en"),
    Corpus("docusaurus-en", "repo/website/docs", "", "en"),
]


@dataclass(frozen=True)
class Row:
    corpus: str
    chunks: int
    queries: int
    scan_recall: float
    rescored: dict[int, float]
    binary: dict[int, float]
    bytes_float32: int
    bytes_codes: int


def queries_of(corpus: Corpus, rows: list[Any], cap: int) -> list[str]:
    asked = [q["q"] for q in corpus.labelled()["questions"]] if corpus.questions_file else []
    headings = sorted({r.title for r in rows} | {r.heading.split(" › ")[-1] for r in rows})
    return [*asked, *[h for h in headings if h.strip()]][:cap]


def measure(corpus: Corpus, folder: Path, cap: int, rescores: list[int]) -> Row:
    store, _ = open_corpus(corpus, folder)
    embedder = shared_local_embedder()
    rows = [r for r in store.chunks.active_chunks() if r.embedder == embedder.name]
    exact = np.stack([np.asarray(r.vector, dtype=np.float32) for r in rows])
    index = dense.DenseIndex.build(rows)
    by_key = {(r.slug, r.ordinal): r for r in rows}
    keys = [(r.slug, r.ordinal) for r in rows]
    texts = queries_of(corpus, rows, cap)
    scan_hits, rescored_hits = 0, dict.fromkeys(rescores, 0)
    binary_hits = dict.fromkeys(BINARY_RESCORE, 0)
    signs = np.packbits(exact > 0, axis=1)
    for text in texts:
        probe = embedder.embed_query(text)
        exact_scores = exact @ probe
        truth = {keys[i] for i in np.argsort(-exact_scores, kind="stable")[:K]}
        distance = np.unpackbits(signs ^ np.packbits(probe > 0), axis=1).sum(axis=1)
        by_distance = np.argsort(distance, kind="stable")
        for n in BINARY_RESCORE:
            pool = by_distance[:n]
            best = pool[np.argsort(-exact_scores[pool], kind="stable")[:K]]
            binary_hits[n] += len(truth & {keys[i] for i in best})
        found = index.candidates(
            probe, embedder=embedder.name, filters=SearchFilter(), limit=max([K, *rescores])
        )
        scan_hits += len(truth & {k for k, _ in found[:K]})
        for n in rescores:
            wanted = {k: by_key[k] for k, _ in found[:n]}
            hits = dense.rescored(probe, wanted, embedder=embedder.name, limit=K)
            rescored_hits[n] += len(truth & {(h.slug, h.ordinal) for h in hits})
    total = K * len(texts)
    return Row(
        corpus=corpus.name,
        chunks=len(rows),
        queries=len(texts),
        scan_recall=scan_hits / total,
        rescored={n: hits / total for n, hits in rescored_hits.items()},
        binary={n: hits / total for n, hits in binary_hits.items()},
        bytes_float32=exact.nbytes,
        bytes_codes=index.nbytes,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", nargs="*", choices=[c.name for c in CORPORA])
    parser.add_argument("--store", type=Path, help="keep the imported stores here")
    parser.add_argument("--queries", type=int, default=300, help="queries per corpus at most")
    parser.add_argument("--rescore", type=int, nargs="+", default=[dense.RESCORE, 40, 20])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = [c for c in CORPORA if not args.corpus or c.name in args.corpus]
    missing = [c.name for c in chosen if not c.docs_dir.is_dir()]
    if missing:
        raise SystemExit(f"corpora not found under {CORPUS_ROOT}: {missing}")
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        base = args.store or Path(scratch)
        for corpus in chosen:
            results.append(measure(corpus, base / corpus.name, args.queries, args.rescore))
            print(f"{corpus.name} measured", file=sys.stderr)
    if args.json:
        print(json.dumps([r.__dict__ for r in results], indent=2))
        return 0
    names = " | ".join(f"rescored top {n}" for n in args.rescore)
    bits = " | ".join(f"bits, rescored top {n}" for n in BINARY_RESCORE)
    print(
        f"| corpus | chunks | queries | int4 scan | {names} | {bits} | bytes/chunk int4 (float32) |"
    )
    print("|---|---|---|---|" + "---|" * (len(args.rescore) + len(BINARY_RESCORE)) + "---|")
    for r in results:
        recalls = " | ".join(f"{r.rescored[n]:.3f}" for n in args.rescore)
        binary = " | ".join(f"{r.binary[n]:.3f}" for n in BINARY_RESCORE)
        print(
            f"| {r.corpus} | {r.chunks:,} | {r.queries} | {r.scan_recall:.3f} | {recalls} "
            f"| {binary} | {r.bytes_codes / r.chunks:.0f} ({r.bytes_float32 / r.chunks:.0f}) |"
        )
    first = args.rescore[0]
    worst = min(r.rescored[first] for r in results)
    print(f"worst recall@{K} rescoring the top {first}: {worst:.3f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
