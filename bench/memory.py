"""Memory of an ``ask`` instance's search snapshot (lexical index and compressed vectors),
measured at several wiki sizes in one run.

For each size the wiki of ``bench/scale.py`` (corpus pages with variations) is chunked and
indexed here, stored as the snapshot a cold instance loads, and then loaded by a fresh
interpreter that reports what loading cost: seconds to decode, the process's RSS growth
(the index as it lives in memory), the process's RSS then and its peak (VmHWM: the
decode included), and a few searches. The smallest size is
the baseline the others are divided by, so the growth per page is read off the ratios;
applying one rewritten page (``with_pages``, a warm instance's catch-up) is timed too.
No store and no network: the index is pure (Firestore adds its client, not the index).
Each chunk also carries a random unit vector of ``--dims`` (512: the shipped model), so the
snapshot's dense side (int8 codes and scales, ``shared.retrieval.dense``) is loaded too
and its share reported (``dense MiB``, and one dense scan timed); ``--dims 0`` leaves it out.

    .venv/bin/python bench/memory.py [--pages 1000 10000 100000] [--dims 512] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

QUESTIONS = (
    "¿Cómo declaro un parámetro de consulta opcional con un valor por defecto?",
    "How do I upload a file?",
    "CORSMiddleware allow_origins",
)
# Run in a fresh interpreter: what a cold instance pays to hold the index.
LOAD = """
import gc, json, sys, time
from shared.records import SearchFilter
from shared.retrieval import snapshot

def status(field):
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across exec.
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024

def rss():
    return status("VmRSS")

payload = open(sys.argv[1], "rb").read()
gc.collect()
before = rss()
started = time.perf_counter()
decoded = snapshot.decode_all(payload)
index, dense = decoded.index, decoded.dense
decode = time.perf_counter() - started
del payload
gc.collect()
held = rss() - before
started = time.perf_counter()
for question in json.loads(sys.argv[2]):
    index.search(question, SearchFilter(), 40)
search = (time.perf_counter() - started) / len(json.loads(sys.argv[2]))
dense_ms, dense_mib = 0.0, 0.0
if dense is not None:
    import numpy as np
    (embedder,) = dense.blocks
    probe = np.ones(2 * dense.blocks[embedder][0].codes.shape[1], np.float32)
    probe /= np.linalg.norm(probe)
    started = time.perf_counter()
    dense.candidates(probe, embedder=embedder, filters=SearchFilter(), limit=50)
    dense_ms = (time.perf_counter() - started) * 1000
    dense_mib = dense.nbytes / 2**20
peak = status("VmHWM")  # before the catch-up below imports the bench's wiki builder
# A catch-up: another process rewrote one page; apply it five times, keep the median.
sys.path.insert(0, "bench")
import scale
from shared.records import IndexedChunk
from shared.retrieval.chunking import split_markdown
page = scale.variant(17, scale.corpus())
fm = page.front_matter
rows = [
    IndexedChunk(
        page.slug, n, fm.title, p.heading, p.text + " nuevo", fm.type, fm.category, tuple(fm.tags)
    )
    for n, p in enumerate(split_markdown(fm.title, page.content))
]
applied = []
for _ in range(5):
    started = time.perf_counter()
    index = index.with_pages({page.slug}, rows)
    applied.append(time.perf_counter() - started)
print(json.dumps({
    "decode_s": decode, "index_mib": held, "search_ms": search * 1000,
    "dense_mib": dense_mib, "dense_ms": dense_ms,
    "apply_ms": sorted(applied)[2] * 1000,
    "rss_mib": held + before, "peak_mib": peak,
    "chunks": len(index),
}))
"""


def build(pages: int, folder: Path, dims: int = 512) -> dict[str, Any]:
    """Chunk and index ``pages`` pages; store the snapshot in ``folder``."""
    import numpy as np
    import scale

    from shared.records import IndexedChunk
    from shared.retrieval import snapshot
    from shared.retrieval.chunking import split_markdown
    from shared.retrieval.dense import DenseIndex
    from shared.retrieval.lexical import LexicalIndex

    base = scale.corpus()
    rows: list[IndexedChunk] = []
    for i in range(pages):
        page = scale.variant(i, base)
        fm = page.front_matter
        rows.extend(
            IndexedChunk(
                page.slug,
                n,
                fm.title,
                piece.heading,
                piece.text,
                fm.type,
                fm.category,
                tuple(fm.tags),
            )
            for n, piece in enumerate(split_markdown(fm.title, page.content))
        )
    text = sum(len(r.text) for r in rows)
    started = time.perf_counter()
    index = LexicalIndex(rows)
    built = time.perf_counter() - started
    dense = None
    if dims:
        rng = np.random.default_rng(pages)
        vectors = rng.standard_normal((len(rows), dims), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        dense = DenseIndex.build(
            replace(r, embedder=f"local:use-m3@{dims}", vector=v)
            for r, v in zip(rows, vectors, strict=True)
        )
        del vectors
    del rows
    started = time.perf_counter()
    payload = snapshot.encode(index, dense)
    encoded = time.perf_counter() - started
    path = folder / f"index-{pages}.npz"
    path.write_bytes(payload)
    return {
        "pages": pages,
        "text_mb": text / 1e6,
        "build_s": built,
        "encode_s": encoded,
        "snapshot_mb": len(payload) / 1e6,
        "path": str(path),
    }


def load(path: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", LOAD, path, json.dumps(QUESTIONS)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    loaded: dict[str, Any] = json.loads(done.stdout)
    return loaded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--dims", type=int, default=512, help="vector size (0: no dense side)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for pages in sorted(args.pages):
            row = build(pages, Path(folder), args.dims)
            row.update(load(row.pop("path")))
            rows.append(row)
            print(f"{pages} pages measured", file=sys.stderr)
    base = rows[0]
    for row in rows:
        row["x_pages"] = row["pages"] / base["pages"]
        row["x_index_mib"] = row["index_mib"] / max(base["index_mib"], 1e-9)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        "| pages | chunks | text MB | snapshot MB | decode s | index MiB | × pages | × index "
        "| process MiB | peak MiB | search ms | apply 1 page ms | build s | encode s "
        "| dense MiB | dense scan ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['pages']:,} | {r['chunks']:,} | {r['text_mb']:.0f} | {r['snapshot_mb']:.1f} "
            f"| {r['decode_s']:.2f} | {r['index_mib']:.0f} | {r['x_pages']:.0f} "
            f"| {r['x_index_mib']:.1f} | {r['rss_mib']:.0f} | {r['peak_mib']:.0f} "
            f"| {r['search_ms']:.0f} "
            f"| {r['apply_ms']:.0f} "
            f"| {r['build_s']:.0f} | {r['encode_s']:.1f} "
            f"| {r['dense_mib']:.0f} | {r['dense_ms']:.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
