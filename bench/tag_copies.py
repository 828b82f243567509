"""What a page's tags cost the embedded store: its file size, and a tag-filtered search.

Writes ``--pages`` pages of ``--chunks`` chunks each, every page with ``--tags`` tags of
64 characters (the caps: 200 tags, 64 characters each), into a fresh SQLite store (no
embedding: unit vectors), then reports the file's size and the median time of a
``tag``-filtered nearest search on a warm matrix, and of the matrix's reload after one
metadata-only write.

    .venv/bin/python bench/tag_copies.py [--pages 50] [--chunks 40] [--tags 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.records import Chunk, PageRecord, SearchFilter  # noqa: E402
from shared.store.sqlite import FILENAME, SqliteStore  # noqa: E402

DIM = 64
EMBEDDER = "bench@64"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--tags", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    store = SqliteStore(folder)
    rng = np.random.default_rng(7)
    now = datetime.now(UTC)
    for p in range(args.pages):
        slug = f"pagina-{p}"
        tags = [f"{p % 5}-" + f"etiqueta-{t}-".ljust(60, "x") for t in range(args.tags)]
        fm = {"title": slug, "type": "guide", "status": "active", "tags": tags}
        record = PageRecord(slug, fm, "texto", 1, now, now)
        chunks = [
            Chunk(
                slug,
                i,
                f"h{i}",
                f"texto {i}",
                f"{slug}-{i}",
                rng.random(DIM).astype(np.float32),
                EMBEDDER,
            )
            for i in range(args.chunks)
        ]
        store.pages.create(record, chunks)
    store.db.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = (folder / FILENAME).stat().st_size
    query = rng.random(DIM).astype(np.float32)
    tag = "0-" + "etiqueta-0-".ljust(60, "x")
    times, reloads = [], []
    for n in range(7):
        started = time.perf_counter()
        hits = store.chunks.nearest(
            query, embedder=EMBEDDER, filters=SearchFilter(tag=tag), limit=10
        )
        times.append(time.perf_counter() - started)
        page = store.pages.get("pagina-1")
        assert page is not None
        store.pages.update(
            PageRecord(page.slug, page.front_matter, page.content, page.version + 1, now, now),
            None,
            expected_version=page.version,
        )
        started = time.perf_counter()
        store.chunks.nearest(query, embedder=EMBEDDER, filters=SearchFilter(), limit=10)
        reloads.append(time.perf_counter() - started)
        assert len(hits) == 10, n
        assert all(h.slug.endswith(("0", "5")) for h in hits), n
    print(
        json.dumps(
            {
                "pages": args.pages,
                "chunks": args.chunks,
                "tags": args.tags,
                "file_mb": round(size / 1e6, 2),
                "tag_search_ms": round(statistics.median(times[1:]) * 1000, 2),
                "reload_ms": round(statistics.median(reloads) * 1000, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
