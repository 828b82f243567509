"""Local publishing cost of one changed page: a fresh generation against a recycled one.

Publishes a site of ``--pages`` page folders with ``LocalPublisher``, then one changed
page at a time. The first two incremental publishes have no spare generation yet and
make every link anew (what every publish cost before generations were recycled); the
next ones recycle the spare and change a few links. Both are measured in the same run
on the same disk, and the ratio printed.

    .venv/bin/python bench/publish.py [--pages 10000] [--runs 6]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.publish.local import LocalPublisher  # noqa: E402
from shared.records import STAGE_INDEX, STAGE_PAGES, Output, Publication  # noqa: E402

FRESH = 2  # incremental publishes before a spare generation exists


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=6, help="incremental publishes (> 2)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-publish-"))
    site = work / "site"
    pages = [f"p{i:05d}/index.html" for i in range(args.pages)]
    others = ["index.html", "sitemap.xml", "static/widget.js", "type/concept/index.html"]
    try:
        first = [Output(p, p.encode(), STAGE_PAGES) for p in pages + others]
        full = publish(site, "b0000", first, [], full=True)
        print(f"full publish of {args.pages} pages: {full[0]:.2f} s, cleanup {full[1]:.2f} s")
        fresh: list[float] = []
        recycled: list[float] = []
        for run in range(1, max(args.runs, FRESH + 1) + 1):
            changed = pages[run]
            writes = [
                Output(changed, f"v{run}".encode(), STAGE_PAGES),
                Output("index.html", f"i{run}".encode(), STAGE_INDEX),
            ]
            keep = [p for p in pages if p != changed] + others[1:]
            took = publish(site, f"b{run:04d}", writes, keep)
            (fresh if run <= FRESH else recycled).append(sum(took))
            kind = "fresh generation" if run <= FRESH else "recycled spare"
            print(f"one page changed, {kind}: publish {took[0]:.3f} s, cleanup {took[1]:.3f} s")
        ratio = statistics.median(fresh) / statistics.median(recycled)
        print(
            f"median publish+cleanup: fresh {statistics.median(fresh):.3f} s, recycled "
            f"{statistics.median(recycled):.3f} s; fresh / recycled = {ratio:.1f}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def publish(
    site: Path, build_id: str, writes: list[Output], keep: list[str], *, full: bool = False
) -> tuple[float, float]:
    publisher = LocalPublisher(str(site))
    started = time.perf_counter()
    publisher.publish(Publication(build_id, full, writes, keep, []))
    published = time.perf_counter()
    publisher.cleanup()
    return published - started, time.perf_counter() - published


if __name__ == "__main__":
    raise SystemExit(main())
