"""What keeping revisions costs a write: the same page updates with their revision and
without it (the store's ``update`` given ``revision=None``), interleaved, in one run.

Measured at the store (no embedding: each update changes the text but gives the chunks
as they are, so the timing is the commit's), on SQLite, and on the Firestore emulator
when ``FIRESTORE_EMULATOR_HOST`` is set (``--firestore``); for a short page and a 40 KiB
one (a revision holds the version's whole text: the commit carries it twice). Also says
how many revisions the retention left (``--keep``), and that asking reads none.

    .venv/bin/python bench/revisions.py [--writes 200] [--keep 50] [--firestore] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.ports import Store  # noqa: E402
from shared.records import PageRecord  # noqa: E402
from shared.services.wiki import revision_of  # noqa: E402

SIZES = {"short": 400, "40KiB": 40 * 1024}


def _record(slug: str, size: int) -> PageRecord:
    now = datetime.now(UTC)
    text = ("Texto de la página sobre el pool de conexiones. " * (size // 48 + 1))[:size]
    return PageRecord(slug, {"title": slug, "type": "guide", "status": "active"}, text, 1, now, now)


def measure(store: Store, writes: int, size: int) -> dict[str, float]:
    """Milliseconds per update, with and without the revision, alternating on two pages."""
    pages = {kind: _record(f"bench-{kind}-{uuid.uuid4().hex[:8]}", size) for kind in ("on", "off")}
    for kind, page in pages.items():
        store.pages.create(page, [], revision_of(page, "bench", None) if kind == "on" else None)
    times: dict[str, list[float]] = {"on": [], "off": []}
    for i in range(writes):
        for kind in ("on", "off") if i % 2 else ("off", "on"):
            before = pages[kind]
            after = dataclasses.replace(
                before,
                content=f"{before.content[:-12]}{i:012d}",
                version=before.version + 1,
                updated_at=datetime.now(UTC),
            )
            revision = revision_of(after, "bench", before) if kind == "on" else None
            started = time.perf_counter()
            store.pages.update(after, None, expected_version=before.version, revision=revision)
            times[kind].append((time.perf_counter() - started) * 1000)
            pages[kind] = after
    kept = len(store.revisions.history(pages["on"].slug, limit=100_000))
    on, off = statistics.median(times["on"]), statistics.median(times["off"])
    return {
        "with_ms": round(on, 3),
        "without_ms": round(off, 3),
        "extra_ms": round(on - off, 3),
        "ratio": round(on / off, 3) if off else 0.0,
        "revisions_kept": kept,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--keep", type=int, default=50)
    parser.add_argument("--firestore", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    from shared.store.sqlite import SqliteStore

    with tempfile.TemporaryDirectory() as folder:
        sqlite = SqliteStore(Path(folder), revisions_keep=args.keep)
        for name, size in SIZES.items():
            results[f"sqlite/{name}"] = measure(sqlite, args.writes, size)
    if args.firestore:
        from shared.store.firestore import FirestoreStore

        firestore = FirestoreStore(f"bench-{uuid.uuid4().hex[:10]}", revisions_keep=args.keep)
        for name, size in SIZES.items():
            results[f"firestore/{name}"] = measure(firestore, max(args.writes // 4, 10), size)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'store/page':20} {'with':>9} {'without':>9} {'extra':>9} {'ratio':>6} {'kept':>5}")
    for name, r in results.items():
        print(
            f"{name:20} {r['with_ms']:>7.2f}ms {r['without_ms']:>7.2f}ms "
            f"{r['extra_ms']:>7.2f}ms {r['ratio']:>6.2f} {r['revisions_kept']:>5}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
