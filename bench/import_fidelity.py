"""What the import's fidelity measure costs: pages a second with and without it, no model.

For each corpus the whole docs tree is imported into fresh SQLite stores with the service
tier's hashing embedder (microseconds a text: this measures the import, not a model),
three ways in the same run:

- ``read``: the files read and split into front matter and body, nothing else (the floor);
- ``without``: ``import_directory`` with the per-page measure replaced by a no-op;
- ``with``: ``import_directory`` as shipped (``shared/services/fidelity.py`` on every page).

It prints pages/s of each and the ratios ``with/without`` (the measure's cost) and
``with/read``; the contract's floor is 200 pages/s. Each way is timed twice: on the wall
clock and in this process's CPU time (``time.process_time``), as on a shared machine the
wall clock also counts the other processes' turns; the load average before and after the
run says how busy the machine was.

    .venv/bin/python bench/import_fidelity.py [--corpus fastapi-es ...] [--repeat 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.services import fidelity, importer  # noqa: E402
from shared.services.importer import import_directory  # noqa: E402
from shared.store.sqlite import SqliteStore  # noqa: E402
from tests.fixtures.corpora import CORPUS_SPECS, Corpus  # noqa: E402
from tests.fixtures.embedder import HashingEmbedder  # noqa: E402

Seconds = tuple[float, float]  # (wall clock, this process's CPU)


def _clocks() -> Seconds:
    return time.perf_counter(), time.process_time()


def _since(started: Seconds) -> Seconds:
    now = _clocks()
    return now[0] - started[0], now[1] - started[1]


def read_only(spec: Corpus) -> Seconds:
    """Seconds to read and split every file of the tree: what no import can go below."""
    started = _clocks()
    for path in importer.markdown_files(spec.docs_dir):
        importer.split_front_matter(path.read_text(encoding="utf-8-sig"))
    return _since(started)


def imported(spec: Corpus, measured: bool) -> tuple[Seconds, int]:
    """Seconds of one whole import into a fresh store, and the pages it measured."""
    original = fidelity.Fidelity.page
    if not measured:
        setattr(fidelity.Fidelity, "page", lambda self, page: None)  # noqa: B010
    try:
        with tempfile.TemporaryDirectory() as tmp:
            started = _clocks()
            report = import_directory(
                spec.docs_dir,
                SqliteStore(Path(tmp)),
                HashingEmbedder(),
                default_type=spec.default_type,
                repo=spec.root / spec.repo if spec.repo else None,
                assets=[spec.root / folder for folder in spec.assets],
            )
            return _since(started), report.fidelity.pages
    finally:
        setattr(fidelity.Fidelity, "page", original)  # noqa: B010


def _row(pages: int, read: Seconds, without: Seconds, with_: Seconds) -> dict[str, float]:
    """Pages a second of each way on both clocks, and the ratios of their CPU times."""
    row: dict[str, float] = {"pages": pages}
    for clock, n in (("wall", 0), ("cpu", 1)):
        for way, seconds in (("read", read), ("without", without), ("with", with_)):
            row[f"{way}_pps_{clock}"] = round(pages / max(seconds[n], 1e-9), 1)
    row["with_over_without"] = round(with_[1] / max(without[1], 1e-9), 2)
    row["with_over_read"] = round(with_[1] / max(read[1], 1e-9), 1)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--corpus", nargs="*", default=list(CORPUS_SPECS))
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs of each way")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: dict[str, dict[str, float]] = {}
    load_before = os.getloadavg()[0]
    for name in args.corpus:
        spec = CORPUS_SPECS[name]
        if not spec.docs_dir.is_dir():
            print(f"{name}: not at {spec.docs_dir}, skipped", file=sys.stderr)
            continue
        read = min(read_only(spec) for _ in range(args.repeat))
        without = min(imported(spec, False)[0] for _ in range(args.repeat))
        runs = [imported(spec, True) for _ in range(args.repeat)]
        with_, pages = min(runs)
        rows[name] = _row(pages, read, without, with_)
        if not args.json:
            print(name, " ".join(f"{k}={v}" for k, v in rows[name].items()), flush=True)
    load = {"load_before": load_before, "load_after": os.getloadavg()[0]}
    if args.json:
        print(json.dumps({"corpora": rows, **load}))
    else:
        print(f"load average (1 min, {os.cpu_count()} cores): {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
