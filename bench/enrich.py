"""The enrichers against what the corpora's authors wrote themselves, and the queue's costs.

For each corpus (imported as its team would, ``--store DIR`` keeping the import, with its
``code-paths.txt`` as the code index):

- ``sources``: the pages whose text names a path the code index holds; the held-out truth
  is the code files the authors linked (the import records them as ``code`` sources:
  includes and links into the repository). Each page is enriched with its sources hidden.
- ``related``: the wiki links the authors wrote between two pages (either way) are the
  truth; the link between the two pages is hidden from the enricher (and their
  ``related``), which suggests from meaning, shared sources and the pages both link.
  Precision = suggested pairs the authors linked (a pair counts once).

Then the queue itself: write to proposal through the local worker (a thread following the
change log, as ``biblioteca serve`` runs it), and Firestore reads per enrichment counted at
the client on the emulator (``FIRESTORE_EMULATOR_HOST``), against a scan of the wiki's
pages as the baseline a queue without a ledger and a change log would pay.

    .venv/bin/python bench/enrich.py [--corpus fastapi-es astro-es] [--store DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpora import CORPORA, CORPUS_ROOT, Corpus, open_corpus  # noqa: E402

from shared.enrich import enrichers as en  # noqa: E402
from shared.ports import Embedder, Store  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.records import PageRecord  # noqa: E402
from shared.services import enrich as worker  # noqa: E402
from shared.text.code_paths import path_key  # noqa: E402

TARGET_PRECISION = 0.90


def _code_refs(record: PageRecord) -> set[str]:
    return {
        path_key(str(s.get("ref", "")))
        for s in record.front_matter.get("sources") or []
        if isinstance(s, dict) and s.get("type") == "code" and s.get("ref")
    }


def _score(hits: int, suggested: int, truth: int) -> dict[str, Any]:
    return {
        "suggested": suggested,
        "truth": truth,
        "hits": hits,
        "precision": round(hits / suggested, 3) if suggested else None,
        "recall": round(hits / truth, 3) if truth else None,
    }


def bench_sources(store: Store, embedder: Embedder, pages: list[PageRecord]) -> dict[str, Any]:
    """Each page that names an indexed path, its authors' code sources hidden."""
    hits = suggested = truth = judged = 0
    for record in pages:
        truth_keys = _code_refs(record)
        candidates = en.named_paths(record.content)
        if not candidates:
            continue
        found = store.code.lookup([path_key(p) for p in candidates]).found
        if not found:
            continue  # names no path the code index holds: not a page of this bench
        judged += 1
        hidden = {k: v for k, v in record.front_matter.items() if k != "sources"}
        view = en.PageView(record.slug, hidden, record.content)
        suggestion = en.suggest_sources(view, candidates, found, "2026-01-01")
        added = {path_key(p) for p in (suggestion.added if suggestion else ())}
        hits += len(added & truth_keys)
        suggested += len(added)
        truth += len(truth_keys)
    return {"pages": judged, **_score(hits, suggested, truth)}


def _linked_pairs(pages: list[PageRecord]) -> set[frozenset[str]]:
    slugs = {p.slug for p in pages}
    pairs: set[frozenset[str]] = set()
    for record in pages:
        for target in en.wiki_targets(record.content):
            if target in slugs and target != record.slug:
                pairs.add(frozenset((record.slug, target)))
    return pairs


def bench_related(store: Store, embedder: Embedder, pages: list[PageRecord]) -> dict[str, Any]:
    """The authors' links hidden; the suggestions looked for among them."""
    pairs = _linked_pairs(pages)
    hits = suggested = 0
    seen: set[frozenset[str]] = set()
    for record in pages:
        hidden = replace(
            record,
            front_matter={k: v for k, v in record.front_matter.items() if k != "related"},
        )
        ctx = worker.Context(hidden, store, embedder, "2026-01-01")
        # The link between the two pages is hidden (it is the truth); the rest of the
        # link graph (pages both link to) is evidence the enricher may use.
        neighbours = [replace(n, linked=False) for n in ctx.neighbours()]
        suggestion = en.suggest_related(ctx.view, neighbours)
        for slug in suggestion.added if suggestion else ():
            pair = frozenset((record.slug, slug))
            if pair in seen:
                continue  # the same pair suggested from both of its pages counts once
            seen.add(pair)
            suggested += 1
            hits += pair in pairs
    return {"pairs_linked": len(pairs), **_score(hits, suggested, len(pairs))}


def bench_corpus(corpus: Corpus, store_dir: Path) -> dict[str, Any]:
    store, imported_s = open_corpus(corpus, store_dir / corpus.name)
    paths = (CORPUS_ROOT / corpus.name / "code-paths.txt").read_text("utf-8").split()
    store.code.put_paths(corpus.name, paths, replace=True)
    embedder = shared_local_embedder()
    pages = store.pages.list(status="active")
    started = time.perf_counter()
    sources = bench_sources(store, embedder, pages)
    related = bench_related(store, embedder, pages)
    return {
        "corpus": corpus.name,
        "pages": len(pages),
        "import_s": round(imported_s, 1),
        "sources": sources,
        "related": related,
        "enrich_s": round(time.perf_counter() - started, 2),
    }


# -- the queue ---------------------------------------------------------------------------


def write_to_proposal(writes: int = 10) -> dict[str, Any]:
    """Seconds from a write's commit to its first proposal, with the worker thread of
    ``biblioteca serve`` following the change log of a fresh embedded store."""
    from shared.cli.enrich_worker import EnrichWorker
    from shared.schema import parse_front_matter
    from shared.services.wiki import create_validated
    from shared.store.sqlite import SqliteStore

    with tempfile.TemporaryDirectory() as folder:
        os.environ["BIBLIOTECA_DATA_DIR"] = folder
        from shared.bootstrap import reset, wiring
        from shared.config import get_settings

        get_settings.cache_clear()
        reset()
        store = SqliteStore(Path(folder))
        embedder = wiring().embedder
        loop = EnrichWorker()
        loop.start()
        waited: list[float] = []
        try:
            for i in range(writes):
                slug = f"guide—bench-{i}"
                create_validated(
                    slug,
                    parse_front_matter({"title": f"Página {i}", "type": "guide"}),
                    f"# Página {i}\n\nEsta página explica la cola de enriquecimiento número {i}.",
                    store,
                    embedder,
                    actor="bench",
                )
                written = time.perf_counter()
                while not any(p.slug == slug for p in store.proposals.list()):
                    if time.perf_counter() - written > 30:
                        raise RuntimeError(f"no proposal for {slug} within 30 s")
                    time.sleep(0.02)
                waited.append(time.perf_counter() - written)
        finally:
            loop.stop()
            reset()
    return {
        "writes": writes,
        "median_s": round(statistics.median(waited), 2),
        "max_s": round(max(waited), 2),
        "interval_s": loop.interval,
    }


def firestore_reads(pages: int = 40) -> dict[str, Any] | None:
    """Reads one enrichment costs on the emulator, against reading every page once (the
    scan a worker without a change log and a ledger would pay per message)."""
    if not os.environ.get("FIRESTORE_EMULATOR_HOST"):
        return None
    from shared.schema import parse_front_matter
    from shared.services.wiki import create_validated
    from shared.store.firestore import FirestoreStore
    from tests.fixtures.embedder import HashingEmbedder
    from tests.fixtures.store_reads import counted

    store = FirestoreStore(f"bench-enrich-{uuid.uuid4().hex[:12]}")
    embedder = HashingEmbedder()
    paths = (CORPUS_ROOT / "fastapi-es" / "code-paths.txt").read_text("utf-8").split()
    store.code.put_paths("fastapi", paths, replace=True)
    for i in range(pages):
        create_validated(
            f"guide—p{i}",
            parse_front_matter({"title": f"Página {i}", "type": "guide", "tags": ["cola"]}),
            f"# Página {i}\n\nLa cola usa `fastapi/routing.py` y [[guide—p{(i + 1) % pages}]] "
            f"y [[guide—gone-{i}]]; explica el enriquecimiento {i % 5}.",
            store,
            embedder,
            actor="bench",
        )
    counts = counted(store)
    enrichment = worker.Enrichment(store, embedder)
    threads = [
        threading.Thread(target=enrichment.enrich_change, args=(f"guide—p{i}",)) for i in range(10)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    per_enrichment = counts.reads / 10
    scan = counted(store)
    store.pages.list()
    return {
        "pages": pages,
        "reads_per_enrichment": per_enrichment,
        "writes_per_enrichment": counts.writes / 10,
        "scan_reads": scan.reads,
        "ratio_to_scan": round(per_enrichment / max(1, scan.reads), 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", help=f"of {sorted(CORPORA)} (all)")
    parser.add_argument("--store", type=Path, help="keep each imported corpus in DIR/<name>")
    parser.add_argument("--skip-queue", action="store_true", help="the enrichers only")
    args = parser.parse_args(argv)
    names = args.corpus or sorted(CORPORA)
    store_dir = args.store or Path(tempfile.mkdtemp(prefix="bench-enrich-"))
    results: dict[str, Any] = {"corpora": [bench_corpus(CORPORA[n], store_dir) for n in names]}
    if not args.skip_queue:
        results["write_to_proposal"] = write_to_proposal()
        results["firestore"] = [firestore_reads(n) for n in (40, 160)]
    print(json.dumps(results, ensure_ascii=False, indent=2))
    for row in results["corpora"]:
        for name in ("sources", "related"):
            p = row[name]["precision"]
            flag = "" if p is None or p >= TARGET_PRECISION else f"  (< {TARGET_PRECISION})"
            print(
                f"{row['corpus']:>12} {name:>8}: precision {p} recall {row[name]['recall']}"
                f" ({row[name]['hits']}/{row[name]['suggested']} suggested){flag}",
                file=sys.stderr,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
