"""The enrichers against what the corpora's authors wrote themselves, and the queue's costs.

For each docs tree of ``../shared/corpus`` (``TREES``: imported as its team would,
``--store DIR`` keeping the import, with its ``code-paths.txt`` as the code index), every
enricher is run through the store port on what the authors wrote, with that hidden:

- ``sources``: the pages whose text names a path the code index holds; the truth is the
  code files the authors linked (the import records them as ``code`` sources: includes
  and links into the repository). Each page is enriched with its sources hidden. A page
  whose authors link no code file at all cannot say which of the paths it names they
  would link, and is not judged.
- ``related``: the wiki links the authors wrote between two pages (either way) are the
  truth; the link between the two pages is hidden from the enricher (and their
  ``related``), which suggests from meaning, shared sources and the pages both link.
  Precision = suggested pairs the authors linked (a pair counts once).
- ``description``: the pages whose front matter has an author-written ``description``,
  hidden (recall: suggestions right / those pages). A suggestion is right when it is a
  sentence of the page's first section, the authors' own introduction (the text before
  the page's first ``##`` heading; its first 60 characters found in that section as plain
  text): a sentence of the body, a heading, a list item or a code line is wrong. Reported
  beside it, and much stricter: ``says_the_authors``, the suggestions that hold at least
  ``DESCRIPTION_OVERLAP`` of the author's description's words (folded, three letters or
  more); an extract rarely says what the author's one-line pitch says.
- ``tags``: the pages whose front matter has author tags, hidden; the vocabulary is the
  rest of the wiki's tags. Precision = suggested tags the authors gave. No docs tree has
  author tags, so two truths the authors did write stand in: the demo wiki's own pages
  (``shared/demo/pages``, all tagged: row ``demo``, each page's tags hidden in turn),
  and ``tags_nav`` on every tree, where each page the stored nav places carries as its
  tags the labels of the nav sections its authors put it under (``nav_labels``: the nav
  the import keeps, from ``mkdocs.yml``'s ``nav``, else from the tree's folders and
  their ``_category_`` labels), hidden from it and suggested from the other pages'
  labels. A page at the nav's top level carries none: any tag suggested to it is wrong.
  Where the nav is the folders, a section label is close to the folder's name, which
  the rule's same-folder condition reads: a truth to say whether the rule finds a
  folder's own tag, not whether free tags are right (that is the demo's).
- ``links``: up to ``LINKS_PER_PAGE`` wiki links the authors wrote per page, each broken
  the way a rename or a typo breaks one (``broken_variant``: a folder level removed, a
  word changed, a suffix dropped); right when the enricher points it back at the page
  the authors linked.

Each item (a page; for ``related`` a pair) falls in ``tune`` or ``holdout`` by a hash of
its slug (``split_of``): thresholds are chosen looking at ``tune``; ``holdout`` is the
figure that counts, ``all`` is both.

``--firestore`` runs the same enrichers on a Firestore copy of each tree (the emulator at
``FIRESTORE_EMULATOR_HOST``; its chunk vectors are those of the embedded store, replayed,
so both stores hold the same vectors) and reports both stores' figures side by side.

Then the queue itself: write to proposal through the local worker (a thread following the
change log, as ``biblioteca serve`` runs it), and Firestore reads per enrichment counted at
the client on the emulator, against a scan of the wiki's pages as the baseline a queue
without a ledger and a change log would pay.

    .venv/bin/python bench/enrich.py [--corpus fastapi-es astro-es] [--store DIR] [--firestore]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpora import CORPUS_ROOT, TREES, Corpus, open_corpus  # noqa: E402

from shared.enrich import enrichers as en  # noqa: E402
from shared.ports import Embedder, Store  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.records import PageRecord, Vector  # noqa: E402
from shared.services import enrich as worker  # noqa: E402
from shared.services.indexing import chunk_hash  # noqa: E402
from shared.text import plaintext  # noqa: E402
from shared.text.code_paths import path_key  # noqa: E402
from shared.text.fold import fold  # noqa: E402

TARGET_PRECISION = 0.90
DESCRIPTION_OVERLAP = 0.5
LINKS_PER_PAGE = 3
SPLITS = ("tune", "holdout")
# What is measured: each enricher against its authors' truth, and ``tags`` against a
# second truth, the nav sections the authors put each page under.
MEASURED = (*en.ENRICHERS, "tags_nav")


def split_of(key: str) -> str:
    """``tune`` or ``holdout``, fixed by a hash of the item's slug (half each)."""
    return SPLITS[hashlib.sha256(key.encode()).digest()[0] % 2]


@dataclass(slots=True)
class Tally:
    """Hits, suggestions and truth counted per split; ``body`` scores each and both."""

    counts: dict[str, list[int]] = field(default_factory=lambda: {s: [0, 0, 0, 0] for s in SPLITS})
    extra: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, key: str, hits: int, suggested: int, truth: int, items: int = 1) -> None:
        row = self.counts[split_of(key)]
        for i, n in enumerate((hits, suggested, truth, items)):
            row[i] += n

    def also(self, name: str, key: str, n: int = 1) -> None:
        """A secondary judgement (``description``'s ``in_first_section``), per split."""
        row = self.extra.setdefault(name, dict.fromkeys(SPLITS, 0))
        row[split_of(key)] += n

    def body(self) -> dict[str, Any]:
        both = [sum(self.counts[s][i] for s in SPLITS) for i in range(4)]
        out = {s: _score(*self.counts[s]) for s in SPLITS} | {"all": _score(*both)}
        for name, row in self.extra.items():
            for s in SPLITS:
                out[s][name] = row[s]
            out["all"][name] = sum(row.values())
        return out


def _score(hits: int, suggested: int, truth: int, items: int) -> dict[str, Any]:
    return {
        "items": items,
        "suggested": suggested,
        "truth": truth,
        "hits": hits,
        "precision": round(hits / suggested, 3) if suggested else None,
        "recall": round(hits / truth, 3) if truth else None,
    }


def _code_refs(record: PageRecord) -> set[str]:
    return {
        path_key(str(s.get("ref", "")))
        for s in record.front_matter.get("sources") or []
        if isinstance(s, dict) and s.get("type") == "code" and s.get("ref")
    }


def _without(record: PageRecord, *keys: str) -> PageRecord:
    kept = {k: v for k, v in record.front_matter.items() if k not in keys}
    return replace(record, front_matter=kept)


def bench_sources(store: Store, embedder: Embedder, pages: list[PageRecord]) -> Tally:
    """Each page that names an indexed path, its authors' code sources hidden."""
    tally = Tally()
    for record in pages:
        truth_keys = _code_refs(record)
        if not truth_keys:
            continue  # its authors link no code file: this page cannot say
        candidates = en.named_paths(record.content)
        if not candidates:
            continue
        found = store.code.lookup([path_key(p) for p in candidates]).found
        if not found:
            continue  # names no path the code index holds: not a page of this bench
        hidden = _without(record, "sources")
        view = en.PageView(record.slug, hidden.front_matter, record.content)
        suggestion = en.suggest_sources(view, candidates, found, "2026-01-01")
        added = {path_key(p) for p in (suggestion.added if suggestion else ())}
        tally.add(record.slug, len(added & truth_keys), len(added), len(truth_keys))
    return tally


def _linked_pairs(pages: list[PageRecord]) -> set[frozenset[str]]:
    slugs = {p.slug for p in pages}
    pairs: set[frozenset[str]] = set()
    for record in pages:
        for target in en.wiki_targets(record.content):
            if target in slugs and target != record.slug:
                pairs.add(frozenset((record.slug, target)))
    return pairs


def _pair_key(pair: frozenset[str]) -> str:
    return " ".join(sorted(pair))


def bench_related(store: Store, embedder: Embedder, pages: list[PageRecord]) -> Tally:
    """The authors' links hidden; the suggestions looked for among them."""
    pairs = _linked_pairs(pages)
    tally = Tally()
    for pair in pairs:
        tally.add(_pair_key(pair), 0, 0, 1)
    seen: set[frozenset[str]] = set()
    for record in pages:
        ctx = worker.Context(_without(record, "related"), store, embedder, "2026-01-01")
        # The link between the two pages is hidden (it is the truth); the rest of the
        # link graph (pages both link to) is evidence the enricher may use.
        neighbours = [replace(n, linked=False) for n in ctx.neighbours()]
        suggestion = en.suggest_related(ctx.view, neighbours)
        for slug in suggestion.added if suggestion else ():
            pair = frozenset((record.slug, slug))
            if pair in seen:
                continue  # the same pair suggested from both of its pages counts once
            seen.add(pair)
            tally.add(_pair_key(pair), int(pair in pairs), 1, 0, items=0)
    return tally


def _description_words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", fold(text)) if len(w) >= 3}


def bench_description(pages: list[PageRecord]) -> Tally:
    """The author's description hidden; a suggestion that says what it says is right."""
    tally = Tally()
    for record in pages:
        author = str(record.front_matter.get("description") or "").strip()
        if not author:
            continue
        hidden = _without(record, "description")
        view = en.PageView(record.slug, hidden.front_matter, record.content)
        suggestion = en.suggest_description(view)
        if suggestion is None:
            tally.add(record.slug, 0, 0, 1)
            continue
        text = str(suggestion.metadata["description"])
        first = " ".join(plaintext.inline(en.introduction(record.content)).split())
        tally.add(record.slug, int(text[:60] in first), 1, 1)
        want = _description_words(author)
        overlap = len(want & _description_words(text)) / max(1, len(want))
        tally.also("says_the_authors", record.slug, int(overlap >= DESCRIPTION_OVERLAP))
    return tally


def nav_labels(store: Store) -> dict[str, tuple[str, ...]]:
    """Each page the stored nav places, with the labels of the nav sections the authors
    put it under, outermost first (``Tutorial``, ``Security``): a page at the nav's top
    level has none."""
    nav = store.site.load_nav()
    found: dict[str, tuple[str, ...]] = {}

    def walk(items: Sequence[Any], path: tuple[str, ...]) -> None:
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("items"), list):
                walk(item["items"], (*path, str(item.get("title") or "")))
            elif isinstance(item, dict) and isinstance(item.get("slug"), str):
                found.setdefault(item["slug"], tuple(label for label in path if label))

    walk(nav["items"] if nav else [], ())
    return found


def author_tags(pages: list[PageRecord]) -> dict[str, tuple[str, ...]]:
    """The pages whose authors tagged them, with their front-matter tags (a page without
    tags is not judged: its authors did not say)."""
    tagged = {p.slug: tuple(str(t) for t in p.front_matter.get("tags") or []) for p in pages}
    return {slug: tags for slug, tags in tagged.items() if tags}


def bench_tags(
    store: Store, embedder: Embedder, pages: list[PageRecord], truth: dict[str, tuple[str, ...]]
) -> Tally:
    """Each page of ``truth`` with its tags hidden, every other page carrying its own
    ``truth`` tags (the vocabulary). Precision = suggested tags the truth gives the page:
    a page the truth holds with no tags (placed at the nav's top level) makes every tag
    suggested to it wrong."""
    tally = Tally()
    for record in pages:
        if record.slug not in truth:
            continue
        want = set(truth[record.slug])
        ctx = worker.Context(_without(record, "tags"), store, embedder, "2026-01-01")
        neighbours = [replace(n, tags=truth.get(n.slug, ())) for n in ctx.neighbours()]
        suggestion = en.suggest_tags(ctx.view, neighbours)
        added = set(suggestion.added if suggestion else ())
        tally.add(record.slug, len(added & want), len(added), len(want))
    return tally


def broken_variant(slug: str) -> str | None:
    """``slug`` broken as a rename or a typo breaks a link: a folder level removed
    (``a—b—c`` -> ``a—c``, ``guide—x`` -> ``x``), a word changed (its plural or its
    singular), or a suffix dropped (``x-y-z`` -> ``x-y``); which one by a hash of the
    slug, the next that applies when it does not."""
    parts = slug.split("—")
    words = parts[-1].split("-")
    pick = hashlib.sha256(slug.encode()).digest()[1]
    changed = pick % len(words)
    word = words[changed]
    kinds: list[str | None] = [
        "—".join([*parts[:-2], parts[-1]]) if len(parts) > 1 else None,
        "—".join(
            [
                *parts[:-1],
                "-".join(
                    [
                        *words[:changed],
                        word[:-1] if word.endswith("s") else f"{word}s",
                        *words[changed + 1 :],
                    ]
                ),
            ]
        )
        if len(word) > 2
        else None,
        "—".join([*parts[:-1], "-".join(words[:-1])]) if len(words) > 1 else None,
    ]
    for i in range(len(kinds)):
        found = kinds[(pick + i) % len(kinds)]
        if found and found != slug:
            return found
    return None


def bench_links(store: Store, embedder: Embedder, pages: list[PageRecord]) -> Tally:
    """Real wiki links broken one at a time; right when pointed back at their target."""
    slugs = {p.slug for p in pages}
    tally = Tally()
    for record in pages:
        targets = [t for t in en.wiki_targets(record.content) if t in slugs and t != record.slug]
        for target in targets[:LINKS_PER_PAGE]:
            broken = broken_variant(target)
            if broken is None or broken in slugs:
                continue
            content = re.sub(rf"\[\[{re.escape(target)}(?=[#|\]])", f"[[{broken}", record.content)
            ctx = worker.Context(replace(record, content=content), store, embedder, "2026-01-01")
            suggestion = worker.OFFLINE["links"](ctx)
            fixes = dict(a.split(" -> ", 1) for a in (suggestion.added if suggestion else ()))
            made = broken in fixes
            tally.add(f"{record.slug} {target}", int(fixes.get(broken) == target), int(made), 1)
    return tally


class ReplayEmbedder:
    """The embedder whose vectors an embedded store already holds, replayed by chunk hash
    (the real one embeds what it does not hold): a second store gets the same vectors
    without the minutes of embedding them again."""

    def __init__(self, real: Embedder, held: dict[str, Vector]) -> None:
        self.name = real.name
        self._real = real
        self._held = held

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        hashes = [chunk_hash(self.name, t) for t in texts]
        missing = [t for t, h in zip(texts, hashes, strict=True) if h not in self._held]
        fresh = iter(self._real.embed_documents(missing)) if missing else iter(())
        rows = [self._held[h] if h in self._held else next(fresh) for h in hashes]
        return np.asarray(rows, dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        return self._real.embed_query(text)


def firestore_copy(name: str, docs: Path, embedded: Store, embedder: Embedder) -> Store:
    """The tree ``docs`` imported into a fresh Firestore store on the emulator, with the
    vectors of the embedded store that holds it replayed."""
    from shared.services.importer import import_directory
    from shared.store.firestore import FirestoreStore

    held: dict[str, Vector] = {}
    for page in embedded.pages.list():
        held.update(embedded.chunks.vectors_for(page.slug))
    store = FirestoreStore(f"bench-enrich-{name}-{uuid.uuid4().hex[:8]}")
    import_directory(docs, store, ReplayEmbedder(embedder, held))
    return store


def bench_store(store: Store, corpus: Corpus, embedder: Embedder) -> dict[str, Any]:
    """Every enricher against its truth on one store holding ``corpus``."""
    paths = (CORPUS_ROOT / corpus.name / "code-paths.txt").read_text("utf-8").split()
    store.code.put_paths(corpus.name, paths, replace=True)
    pages = store.pages.list(status="active")
    started = time.perf_counter()
    tallies = {
        "sources": bench_sources(store, embedder, pages),
        "related": bench_related(store, embedder, pages),
        "description": bench_description(pages),
        "tags": bench_tags(store, embedder, pages, author_tags(pages)),
        "tags_nav": bench_tags(store, embedder, pages, nav_labels(store)),
        "links": bench_links(store, embedder, pages),
    }
    out: dict[str, Any] = {"pages": len(pages)}
    out |= {name: t.body() for name, t in tallies.items()}
    return out | {"enrich_s": round(time.perf_counter() - started, 2)}


def bench_corpus(corpus: Corpus, store_dir: Path, firestore: bool) -> dict[str, Any]:
    store, imported_s = open_corpus(corpus, store_dir / corpus.name)
    embedder = shared_local_embedder()
    row: dict[str, Any] = {"corpus": corpus.name, "import_s": round(imported_s, 1)}
    row["sqlite"] = bench_store(store, corpus, embedder)
    if firestore:
        copy = firestore_copy(corpus.name, corpus.docs_dir, store, embedder)
        row["firestore"] = bench_store(copy, corpus, embedder)
        row["stores_agree"] = all(row["sqlite"][n] == row["firestore"][n] for n in MEASURED)
    return row


def bench_demo(firestore: bool) -> dict[str, Any]:
    """``tags`` on the demo wiki (the only pages with author tags): each page's tags
    hidden in turn, the other pages' tags the vocabulary; on both stores."""
    from shared.demo import DEMO_DIR
    from shared.services.importer import import_directory
    from shared.store.sqlite import SqliteStore

    embedder = shared_local_embedder()
    store = SqliteStore(Path(tempfile.mkdtemp(prefix="bench-enrich-demo-")))
    import_directory(DEMO_DIR, store, embedder)
    stores: dict[str, Store] = {"sqlite": store}
    if firestore:
        stores["firestore"] = firestore_copy("demo", DEMO_DIR, store, embedder)
    row: dict[str, Any] = {"corpus": "demo"}
    for name, each in stores.items():
        pages = each.pages.list(status="active")
        tally = bench_tags(each, embedder, pages, author_tags(pages))
        row[name] = {"pages": len(pages), "tags": tally.body()}
    if firestore:
        row["stores_agree"] = row["sqlite"]["tags"] == row["firestore"]["tags"]
    return row


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


def _summary(row: dict[str, Any]) -> None:
    for store in ("sqlite", "firestore"):
        for name in [n for n in MEASURED if n in row.get(store, {})]:
            part = row[store][name]
            hold, every = part["holdout"], part["all"]
            p = hold["precision"]
            flag = "" if p is None or p >= TARGET_PRECISION else f"  (< {TARGET_PRECISION})"
            print(
                f"{row['corpus']:>13} {store:>9} {name:>11}: holdout precision {p} recall "
                f"{hold['recall']} ({hold['hits']}/{hold['suggested']}); all {every['precision']}"
                f" / {every['recall']} ({every['hits']}/{every['suggested']}){flag}",
                file=sys.stderr,
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", help=f"of {sorted(TREES)} or demo (all)")
    parser.add_argument("--store", type=Path, help="keep each imported corpus in DIR/<name>")
    parser.add_argument("--skip-queue", action="store_true", help="the enrichers only")
    parser.add_argument(
        "--firestore",
        action="store_true",
        help="also on a Firestore copy of each corpus (FIRESTORE_EMULATOR_HOST)",
    )
    args = parser.parse_args(argv)
    if args.firestore and not os.environ.get("FIRESTORE_EMULATOR_HOST"):
        parser.error("--firestore needs FIRESTORE_EMULATOR_HOST (the emulator's host:port)")
    unknown = [n for n in args.corpus or [] if n not in TREES and n != "demo"]
    if unknown:
        parser.error(f"unknown corpus {unknown}; known: {sorted(TREES)}")
    names = [n for n in args.corpus or sorted(TREES) if n != "demo"]
    store_dir = args.store or Path(tempfile.mkdtemp(prefix="bench-enrich-"))
    rows = [bench_corpus(TREES[n], store_dir, args.firestore) for n in names]
    if not args.corpus or "demo" in args.corpus:
        rows.append(bench_demo(args.firestore))
    results: dict[str, Any] = {"corpora": rows}
    if not args.skip_queue:
        results["write_to_proposal"] = write_to_proposal()
        results["firestore"] = [firestore_reads(n) for n in (40, 160)]
    print(json.dumps(results, ensure_ascii=False, indent=2))
    for row in rows:
        _summary(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
