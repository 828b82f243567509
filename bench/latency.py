"""Speed of ``ask`` without a model, on the embedded store at ~10k chunks; and import time.

Imports the 122-page corpus (timed), then copies its pages (vectors reused) until the
store holds at least 10,000 chunks, and times each part of answering the labelled
questions: query embedding, hybrid search, extractive synthesis, and the whole service
call. The baseline, measured in the same run, is the search without caches: every
question reads all vectors from SQLite and rebuilds the lexical index.

    .venv/bin/python bench/latency.py [--chunks 10000] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.api.models import AskRequest, AskResponse  # noqa: E402
from shared.config import load_settings  # noqa: E402
from shared.providers.answerers import LocalAnswerer  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.records import ChunkHit, Passage, SearchFilter, Vector  # noqa: E402
from shared.retrieval import evidence, hybrid  # noqa: E402
from shared.retrieval.extractive import compose  # noqa: E402
from shared.retrieval.fusion import mix  # noqa: E402
from shared.retrieval.lexical import LexicalIndex  # noqa: E402
from shared.services.ask import Asker, Asking, ask, numbered  # noqa: E402
from shared.services.importer import import_directory  # noqa: E402
from shared.services.rate_limit import Limiters  # noqa: E402
from shared.store.sqlite import SqliteStore  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "fastapi-es" / "docs"
QUESTIONS = Path(__file__).with_name("questions.json")
ANY = SearchFilter()
INDEX = hybrid.IndexCache()  # this process's search index, as a wiring holds one
T = TypeVar("T")


def grow(store: SqliteStore, target: int) -> int:
    """Copy every page (with its vectors) under new slugs until ``target`` chunks exist."""
    pages = store.pages.list()
    chunks = {p.slug: _chunks(store, p.slug) for p in pages}
    total = sum(len(c) for c in chunks.values())
    copy = 1
    while total < target:
        for page in pages:
            slug = f"{page.slug}-copia-{copy}"
            record = dataclasses.replace(page, slug=slug)
            store.pages.create(
                record, [dataclasses.replace(c, slug=slug) for c in chunks[page.slug]]
            )
            total += len(chunks[page.slug])
        copy += 1
    return total


def _chunks(store: SqliteStore, slug: str) -> list[Any]:
    from shared.records import Chunk

    rows = store.db.connection().execute(
        "SELECT * FROM chunks WHERE slug = ? ORDER BY ordinal", (slug,)
    )
    return [
        Chunk(
            slug=r["slug"],
            ordinal=r["ordinal"],
            heading=r["heading"],
            text=r["text"],
            hash=r["hash"],
            vector=np.frombuffer(r["vector"], dtype=np.float32),
            embedder=r["embedder"],
        )
        for r in rows
    ]


def naive_nearest(store: SqliteStore, vector: Any, embedder: str, limit: int) -> list[ChunkHit]:
    """The scan without a cache: every row's vector read and stacked on every question."""
    rows = (
        store.db.connection()
        .execute(
            "SELECT slug, ordinal, heading, text, title, vector FROM chunks"
            " WHERE status = 'active' AND embedder = ?",
            (embedder,),
        )
        .fetchall()
    )
    matrix = np.stack([np.frombuffer(r["vector"], dtype=np.float32) for r in rows])
    scores = matrix @ vector
    order = np.argsort(-scores)[:limit]
    return [
        ChunkHit(
            rows[i]["slug"],
            rows[i]["title"],
            rows[i]["heading"],
            rows[i]["text"],
            rows[i]["ordinal"],
            float(scores[i]),
        )
        for i in order
    ]


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def summary(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "mean": round(statistics.fmean(ordered), 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--baseline-questions", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    questions = [q["q"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]]
    embedder = shared_local_embedder()
    embedder.embed_query("calentar")  # the model loads once per process, not per question

    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp))
        import_ms, report = timed(
            lambda: import_directory(CORPUS, store, embedder, default_type="guide")
        )
        corpus_chunks = len(store.chunks.active_chunks())
        chunks = grow(store, args.chunks)
        settings = load_settings({"BIBLIOTECA_DATA_DIR": tmp})

        # First question after a write: caches are (re)built, reported on its own.
        def one_search() -> object:
            return hybrid.retrieve(
                store.chunks,
                "hola",
                embedder.embed_query("hola"),
                embedder=embedder.name,
                filters=ANY,
                limit=6,
                state=INDEX.snapshot(store.chunks),
            )

        cold_ms, _ = timed(one_search)
        parts: dict[str, list[float]] = {"embed": [], "search": [], "synthesis": [], "sum": []}
        service: list[float] = []
        for q in questions:

            def embed(q: str = q) -> Vector:
                return embedder.embed_query(q)

            embed_ms, vector = timed(embed)

            def search(q: str = q, v: Vector = vector) -> hybrid.Retrieval:
                return hybrid.retrieve(
                    store.chunks,
                    q,
                    v,
                    embedder=embedder.name,
                    filters=ANY,
                    limit=6,
                    state=INDEX.snapshot(store.chunks),
                )

            search_ms, found = timed(search)
            passages = numbered(evidence.cited(found.ranked))

            def synthesis(q: str = q, p: list[Passage] = passages) -> str:
                return compose(q, p)

            synth_ms, _ = timed(synthesis)
            parts["embed"].append(embed_ms)
            parts["search"].append(search_ms)
            parts["synthesis"].append(synth_ms)
            parts["sum"].append(embed_ms + search_ms + synth_ms)

            def service_ask(q: str = q) -> AskResponse:
                using = Asking(
                    settings, store, embedder, LocalAnswerer(), index=INDEX, limits=Limiters()
                )
                return ask(AskRequest.parse({"question": q}), using, Asker(authorized=False))

            total_ms, _ = timed(service_ask)
            service.append(total_ms)

        # One more page written (as by another process): the next search pays the reload.
        first = store.pages.list()[0]
        extra = dataclasses.replace(first, slug=f"{first.slug}-extra")
        store.pages.create(
            extra, [dataclasses.replace(c, slug=extra.slug) for c in _chunks(store, first.slug)]
        )
        after_write_ms, _ = timed(one_search)

        baseline: list[float] = []
        scan: list[float] = []
        cached_scan: list[float] = []
        for q in questions[: args.baseline_questions]:
            vector = embedder.embed_query(q)

            def scanned(v: Vector = vector) -> list[ChunkHit]:
                return naive_nearest(store, v, embedder.name, 40)

            def cached(v: Vector = vector) -> list[ChunkHit]:
                return store.chunks.nearest(v, embedder=embedder.name, filters=ANY, limit=40)

            scan.append(timed(scanned)[0])
            cached_scan.append(timed(cached)[0])

            def uncached(q: str = q, v: Any = vector) -> Any:
                dense = naive_nearest(store, v, embedder.name, hybrid.CANDIDATES)
                index = LexicalIndex(store.chunks.active_chunks())
                return mix(dense, index.search(q, ANY, hybrid.CANDIDATES), index.labels)

            baseline.append(timed(uncached)[0])

    result = {
        "import_seconds": round(import_ms / 1000, 2),
        "import_failed": len(report.failed),
        "corpus_chunks": corpus_chunks,
        "chunks": chunks,
        "questions": len(questions),
        "first_search_ms": round(cold_ms, 1),
        "first_search_after_one_more_write_ms": round(after_write_ms, 1),
        "parts_ms": {k: summary(v) for k, v in parts.items()},
        "service_ask_ms": summary(service),
        "baseline_uncached_search_ms": summary(baseline),
        "dense_scan_uncached_ms": summary(scan),
        "dense_scan_cached_ms": summary(cached_scan),
        "search_speedup_p50": round(
            statistics.median(baseline) / statistics.median(parts["search"]), 1
        ),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"import of {CORPUS.parent.name}: {result['import_seconds']} s "
        f"({corpus_chunks} chunks, {result['import_failed']} failed)"
    )
    print(f"store grown to {chunks} chunks; {len(questions)} questions")
    print(f"{'part':34} {'p50 ms':>8} {'p95 ms':>8} {'mean':>8}")
    rows = [
        ("query embedding", parts["embed"]),
        ("hybrid search (cached)", parts["search"]),
        ("extractive synthesis", parts["synthesis"]),
        ("embed + search + synthesis", parts["sum"]),
        ("whole ask() incl. hit record", service),
        ("baseline: search without caches", baseline),
        ("  of which dense scan, uncached", scan),
        ("  dense scan from the cached matrix", cached_scan),
    ]
    for name, values in rows:
        s = summary(values)
        print(f"{name:34} {s['p50']:8.2f} {s['p95']:8.2f} {s['mean']:8.2f}")
    print(f"first search of the process (caches built): {cold_ms:.0f} ms")
    print(f"first search after one more write (caches refreshed): {after_write_ms:.0f} ms")
    print(f"cached search is {result['search_speedup_p50']}x faster than the baseline (p50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
