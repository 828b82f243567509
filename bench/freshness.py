"""Freshness recheck after ``index_code``: the path index against a full scan, same run.

Writes N pages (default 10,000) into a fresh Firestore emulator project (or a throw-away
SQLite file with ``--store sqlite``), each citing 3 of the corpus's 1,220 real code paths,
with the code index holding them. Then one repository change moves one folder
(``docs_src/body`` → ``docs_src/body_v2``): the shipped recheck (``index_paths``: the
put, then only the pages citing a changed path, through the path index) is timed and its
reads counted at the client, against ``recheck_all`` (every page read and checked).

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8911 .venv/bin/python bench/freshness.py [--pages N]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.gates.staleness import assess, cited_keys  # noqa: E402
from shared.records import PageRecord  # noqa: E402
from shared.services.code_index import index_paths  # noqa: E402
from shared.services.freshness import recheck_after, recheck_all  # noqa: E402
from shared.text.code_paths import cited_paths, normalize_path, path_key  # noqa: E402

PATHS = next(
    folder / "shared" / "corpus" / "fastapi-es" / "code-paths.txt"
    for folder in ROOT.parents
    if (folder / "shared" / "corpus" / "fastapi-es" / "code-paths.txt").is_file()
)
MOVED_FROM, MOVED_TO = "docs_src/body/", "docs_src/body_v2/"


def corpus_paths() -> list[str]:
    lines = PATHS.read_text(encoding="utf-8").splitlines()
    return sorted({normalize_path(line) for line in lines if line.strip()})


def citable(paths: list[str]) -> list[str]:
    """The paths a page can cite (code files, by the archive gate's rules)."""
    return [p for p in paths if cited_paths(f"`{p}`") == [p]]


def corpus_states() -> None:
    """The corpus's pages against its own code index: their states, how many the ranking
    penalty (every judged path gone) would touch in bench/retrieval.py and
    bench/answers.py, and which pages judging every path (no roots, the old rule) moves."""
    from collections import Counter

    from shared.gates.staleness import all_gone, page_cited
    from shared.text.code_paths import root_names, suffix_keys

    keys = {k for p in corpus_paths() for k in suffix_keys(p)}
    roots = root_names(corpus_paths())
    states: Counter[str] = Counter()
    gone = 0
    moved: list[str] = []
    at = datetime.now(UTC)
    docs = PATHS.parent / "docs"
    for md in sorted(docs.rglob("*.md")):
        cited = page_cited({}, md.read_text(encoding="utf-8", errors="replace"))
        found = frozenset(path_key(p) for p in cited if path_key(p) in keys)
        freshness = assess(cited, found, at, roots=roots)
        states[freshness.state] += 1
        gone += all_gone(freshness)
        old = assess(cited, found, at).state
        if old != freshness.state:
            moved.append(f"{md.relative_to(docs)}: {old} -> {freshness.state}")
    print(f"corpus pages: {sum(states.values())} {dict(states)}; every judged path gone: {gone}")
    print(f"indexed roots: {sorted(roots)}")
    print(f"moved by the roots rule ({len(moved)}): {moved}")


def open_store(kind: str) -> Any:
    if kind == "sqlite":
        from shared.store.sqlite import SqliteStore

        return SqliteStore(Path(tempfile.mkdtemp(prefix="bench-freshness-")))
    if not os.environ.get("FIRESTORE_EMULATOR_HOST"):
        sys.exit(
            "set FIRESTORE_EMULATOR_HOST (this bench writes to an emulator), or --store sqlite"
        )
    from shared.store.firestore import FirestoreStore

    return FirestoreStore(f"bench-{uuid.uuid4().hex[:16]}")


@contextmanager
def counting(store: Any) -> Iterator[dict[str, int]]:
    """Documents read (and statements or RPCs sent), counted at the client."""
    counts = {"documents": 0, "calls": 0}
    if hasattr(store.db, "connection"):  # SQLite: every statement (rows are not counted: -1)
        counts["documents"] = -1
        conn = store.db.connection()
        conn.set_trace_callback(lambda _sql: counts.__setitem__("calls", counts["calls"] + 1))
        try:
            yield counts
        finally:
            conn.set_trace_callback(None)
        return
    api = store.db.client()._firestore_api
    originals: dict[str, Callable[..., Any]] = {}

    def wrap(name: str, has_doc: Callable[[Any], bool]) -> None:
        original = getattr(api, name)
        originals[name] = original

        def counted(*args: Any, **kw: Any) -> Any:
            counts["calls"] += 1
            for response in original(*args, **kw):
                if has_doc(response):
                    counts["documents"] += 1
                yield response

        setattr(api, name, counted)

    wrap("run_query", lambda r: r._pb.HasField("document"))
    wrap("batch_get_documents", lambda r: r._pb.HasField("found"))
    wrap("run_aggregation_query", lambda r: True)
    try:
        yield counts
    finally:
        for name, original in originals.items():
            setattr(api, name, original)


def seed(store: Any, pages: int, paths: list[str]) -> None:
    """The pages as a write leaves them (freshness computed from the same index)."""
    rng = random.Random(7)
    now = datetime.now(UTC)
    found = frozenset(path_key(p) for p in paths)
    records = []
    for i in range(pages):
        cited = tuple(rng.sample(paths, 3))
        content = "Ver " + ", ".join(f"`{p}`" for p in cited) + ".\n"
        records.append(
            PageRecord(
                slug=f"p{i:05d}",
                front_matter={"title": f"P {i}", "type": "guide", "status": "active"},
                content=content,
                version=1,
                created_at=now,
                updated_at=now,
                freshness=assess(cited, found, now),
            )
        )
    if hasattr(store.db, "connection"):
        for record in records:
            store.pages.create(record, [])
        return
    from shared.store.firestore import pages as page_docs

    client = store.db.client()
    for start in range(0, len(records), 100):  # as the adapter's create writes each page
        batch = client.batch()
        for record in records[start : start + 100]:
            batch.set(
                store.db.collection(page_docs.COLLECTION).document(record.slug),
                page_docs._document(record, 0, ""),
            )
            keys = cited_keys(record.freshness)
            page_docs._index_entries(store.db, batch, record.slug, [], keys)
        batch.commit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--store", choices=["firestore", "sqlite"], default="firestore")
    parser.add_argument(
        "--corpus", action="store_true", help="only count the corpus pages' freshness states"
    )
    args = parser.parse_args()
    if args.corpus:
        corpus_states()
        return

    store = open_store(args.store)
    paths = corpus_paths()
    index_paths("fastapi", paths, store, replace=True)
    t0 = time.perf_counter()
    seed(store, args.pages, citable(paths))
    print(f"seeded {args.pages} pages in {time.perf_counter() - t0:.1f} s ({args.store})")

    moved = [p.replace(MOVED_FROM, MOVED_TO) for p in paths]
    changed = sum(p.startswith(MOVED_FROM) for p in paths)

    # Baseline: the same change, then every page read and checked (the same writes).
    store.code.apply_paths("fastapi", moved, replace=True)
    with counting(store) as full:
        t0 = time.perf_counter()
        full_result = recheck_all(store)
        full_s = time.perf_counter() - t0
    index_paths("fastapi", paths, store, replace=True)  # back to the start, rechecked

    with counting(store) as put_only:
        t0 = time.perf_counter()
        changes = store.code.apply_paths("fastapi", moved, replace=True)
        put_s = time.perf_counter() - t0
    with counting(store) as shipped:
        t0 = time.perf_counter()
        result = recheck_after(changes, store)
        shipped_s = time.perf_counter() - t0

    stale = len(store.pages.citing([path_key(p) for p in changes.removed]))
    print(
        f"index change: {changed} paths moved ({len(changes.removed)} removed, "
        f"{len(changes.added)} added); the put itself: {put_s:.2f} s, "
        f"{put_only['documents']} documents / {put_only['calls']} calls"
    )
    print(
        f"{'recheck':<24}{'pages read':>11}{'changed':>9}{'documents':>11}{'calls':>7}{'time':>9}"
    )
    for name, done, counts, seconds in (
        ("path index (shipped)", result, shipped, shipped_s),
        ("full scan (baseline)", full_result, full, full_s),
    ):
        print(
            f"{name:<24}{done.read:>11}{done.changed:>9}{counts['documents']:>11}"
            f"{counts['calls']:>7}{seconds:>8.2f}s"
        )
    print(
        f"ratio full/shipped: pages read {full_result.read / max(result.read, 1):.0f}x, "
        f"documents {full['documents'] / max(shipped['documents'], 1):.1f}x, "
        f"time {full_s / shipped_s:.1f}x; pages citing a removed path: {stale}"
    )


if __name__ == "__main__":
    main()
