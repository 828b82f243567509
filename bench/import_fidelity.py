"""What the import's fidelity measure costs: pages a second with and without it, no model.

For each corpus the whole docs tree is imported into fresh SQLite stores with the service
tier's hashing embedder (microseconds a text: this measures the import, not a model),
three ways in the same run:

- ``read``: the files read and split into front matter and body, nothing else (the floor);
- ``without``: ``import_directory`` with the per-page measure replaced by a no-op;
- ``with``: ``import_directory`` as shipped (``shared/services/fidelity.py`` on every page).

It prints pages/s of each and the ratios ``with/without`` (the measure's cost) and
``with/read``; the contract's floor is 200 pages/s. Each way is timed twice: on the wall
clock, in CPU time (``cpu``: this process's and its finished children's, the measure's
worker processes) and in this process's CPU alone (``main``: the import's own path,
what the wall clock comes down to when the workers have cores of their own), as on a
shared machine the wall clock also counts the other processes' turns; the load average
before and after the run says how busy the machine was.

``--against DIR`` also runs the same ways on the code of another checkout (an export of
main: ``git archive 61bb23f | tar -x -C DIR``), corpus by corpus in the same run, in a
child process of this script, and prints its figures as ``before`` beside these.

    .venv/bin/python bench/import_fidelity.py [--corpus fastapi-es ...] [--repeat 1] \
        [--against DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ``--code DIR`` (how ``--against`` runs the baseline): that checkout's code is imported.
_CODE = sys.argv[sys.argv.index("--code") + 1] if "--code" in sys.argv else None
ROOT = Path(_CODE).resolve() if _CODE else Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.services import fidelity, importer  # noqa: E402
from shared.services.importer import import_directory  # noqa: E402
from shared.store.sqlite import SqliteStore  # noqa: E402
from tests.fixtures.corpora import CORPORA, CORPUS_SPECS, Corpus  # noqa: E402
from tests.fixtures.embedder import HashingEmbedder  # noqa: E402

# (wall clock, CPU of this process and its finished children, CPU of this process alone)
Seconds = tuple[float, float, float]


def _clocks() -> Seconds:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # workers, once joined
    cpu = own.ru_utime + own.ru_stime
    return time.perf_counter(), cpu + children.ru_utime + children.ru_stime, cpu


def _since(started: Seconds) -> Seconds:
    now = _clocks()
    return now[0] - started[0], now[1] - started[1], now[2] - started[2]


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
    """Pages a second of each way on each clock, and the ratios of their CPU times."""
    row: dict[str, float] = {"pages": pages}
    for clock, n in (("wall", 0), ("cpu", 1), ("main", 2)):
        for way, seconds in (("read", read), ("without", without), ("with", with_)):
            row[f"{way}_pps_{clock}"] = round(pages / max(seconds[n], 1e-9), 1)
    row["with_over_without"] = round(with_[1] / max(without[1], 1e-9), 2)
    row["with_over_read"] = round(with_[1] / max(read[1], 1e-9), 1)
    return row


def _best(runs: list[Seconds]) -> Seconds:
    """The best of several runs on each clock (the least disturbed by other processes)."""
    return min(r[0] for r in runs), min(r[1] for r in runs), min(r[2] for r in runs)


def measured(spec: Corpus, repeat: int) -> dict[str, float]:
    """One corpus's row, on this checkout's code."""
    read = _best([read_only(spec) for _ in range(repeat)])
    without = _best([imported(spec, False)[0] for _ in range(repeat)])
    runs = [imported(spec, True) for _ in range(repeat)]
    return _row(runs[0][1], read, without, _best([seconds for seconds, _ in runs]))


def baseline(code: str, name: str, repeat: int) -> dict[str, float]:
    """One corpus's row on the code of the checkout ``code``, measured by this script in a
    child process that imports that code."""
    command = [sys.executable, __file__, "--code", code, "--corpus", name, "--json"]
    env = {**os.environ, "BIBLIOTECA_TEST_CORPORA": str(CORPORA)}  # the same corpora
    out = subprocess.run(  # this script, on the folder the caller named
        [*command, "--repeat", str(repeat)], capture_output=True, text=True, check=True, env=env
    )
    row: dict[str, float] = json.loads(out.stdout)["corpora"][name]
    return row


def _print(name: str, row: dict[str, float], before: dict[str, float] | None) -> None:
    keys = [k for k in row if "_pps_" in k]
    shown = [
        f"{k}={before[k]}→{row[k]}" if before is not None and k in before else f"{k}={row[k]}"
        for k in keys
    ]
    ratios = [f"{k}={row[k]}" for k in ("with_over_without", "with_over_read")]
    if before is not None:
        ratios.append(
            f"with_cpu_after_over_before={row['with_pps_cpu'] / before['with_pps_cpu']:.2f}"
        )
    print(name, f"pages={row['pages']:g}", *shown, *ratios, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--corpus", nargs="*", default=list(CORPUS_SPECS))
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs of each way")
    parser.add_argument("--against", help="another checkout whose code is the baseline")
    parser.add_argument("--code", help=argparse.SUPPRESS)  # read above, before the imports
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: dict[str, dict[str, float]] = {}
    befores: dict[str, dict[str, float]] = {}
    load_before = os.getloadavg()[0]
    for name in args.corpus:
        spec = CORPUS_SPECS[name]
        if not spec.docs_dir.is_dir():
            print(f"{name}: not at {spec.docs_dir}, skipped", file=sys.stderr)
            continue
        if args.against:
            befores[name] = baseline(args.against, name, args.repeat)
        rows[name] = measured(spec, args.repeat)
        if not args.json:
            _print(name, rows[name], befores.get(name))
    load = {"load_before": load_before, "load_after": os.getloadavg()[0]}
    if args.json:
        print(json.dumps({"corpora": rows, "before": befores, **load}))
    else:
        print(f"load average (1 min, {os.cpu_count()} cores): {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
