"""One ``biblioteca import`` against the same tree as N shards in parallel (``--shard i/N``).

For each corpus, in the same run: the whole tree imported by one process into a fresh
store, then the same tree as N processes started at once (``--shard 0/N`` … ``N-1/N``)
into another fresh store. Both are real ``python -m shared import`` processes on
SQLite; the embedder is the Gemini adapter against a local fake of its API (hashed bags
of words, ``tests/fixtures/gemini.py``), so the figure is the import's own work (read,
convert, measure, write) and not the model's: a deployed job embeds through Gemini,
whose latency N tasks overlap too. Prints each wall time, the ratio one / N shards, the
pages each way (they must match), the throughput of one process, and the CPU seconds
each way (user + system of the processes): on this machine's 2 cores N shards cannot
run faster than 2x, while a Cloud Run job gives each task its own CPUs, so the CPU a
shard spends (its share of the pages plus what every shard pays: starting Python,
reading the whole tree's listing, storing the search snapshot) is its wall time there.

    .venv/bin/python bench/shard.py [--corpus fastapi-es ...] [--shards 4] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.corpora import CORPUS_SPECS  # noqa: E402
from tests.fixtures.gemini import FakeGemini, _handler  # noqa: E402

KEY = "AIzaFAKE-bench-shard-0123456789"


@dataclass
class Row:
    corpus: str
    shards: int
    pages_one: int
    pages_sharded: int
    one_s: float
    sharded_s: float
    slowest_shard_pages: int
    one_cpu_s: float
    shards_cpu_s: list[float]

    @property
    def overhead_cpu_s(self) -> float:
        """CPU seconds each extra shard adds: what every process pays whatever its pages."""
        return (sum(self.shards_cpu_s) - self.one_cpu_s) / max(self.shards - 1, 1)

    @property
    def ratio(self) -> float:
        return self.one_s / self.sharded_s if self.sharded_s else 0.0

    @property
    def pages_per_s(self) -> float:
        return self.pages_one / self.one_s if self.one_s else 0.0


def _argv(name: str, shard: str | None) -> list[str]:
    spec = CORPUS_SPECS[name]
    argv = [sys.executable, "-m", "shared", "import", str(spec.docs_dir), "--json"]
    argv += ["--type", spec.default_type]
    for folder in spec.assets:
        argv += ["--assets", str(spec.root / folder)]
    if spec.repo is not None:
        argv += ["--repo", str(spec.root / spec.repo)]
    return argv + (["--shard", shard] if shard else [])


def _environment(data: Path, gemini_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BIBLIOTECA_", "CLOUD_RUN"))}
    env.pop("FIRESTORE_EMULATOR_HOST", None)
    return env | {
        "BIBLIOTECA_DATA_DIR": str(data),
        "BIBLIOTECA_EMBEDDER": "gemini",
        "GOOGLE_AI_API_KEY": KEY,
        "GEMINI_BASE_URL": gemini_url,
    }


@dataclass
class Ran:
    wall_s: float
    reports: list[dict[str, Any]]
    cpu_s: list[float]  # user + system of each process


def _run_all(argvs: list[list[str]], env: dict[str, str]) -> Ran:
    """Start every command at once; the wall time until the last ends, the reports and
    each process's CPU time."""
    with contextlib.ExitStack() as files:
        started = time.perf_counter()
        running = []
        for argv in argvs:
            out, err = (files.enter_context(tempfile.TemporaryFile()) for _ in range(2))
            process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=err)
            running.append((process, out, err))
        cpu = []
        for process, _, _ in running:
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            cpu.append(usage.ru_utime + usage.ru_stime)
        elapsed = time.perf_counter() - started
        reports = []
        for process, out, err in running:
            out.seek(0)
            err.seek(0)
            text = out.read()
            if not text.strip():
                tail = err.read().decode()[-2000:]
                raise SystemExit(f"import failed ({process.returncode}):\n{tail}")
            reports.append(json.loads(text))
    return Ran(elapsed, reports, cpu)


def _written(report: dict[str, Any]) -> int:
    return int(report["created"]) + int(report["updated"]) + int(report["unchanged"])


def measure(name: str, shards: int, gemini_url: str) -> Row:
    with tempfile.TemporaryDirectory(prefix="bench-shard-") as tmp:
        one = _run_all([_argv(name, None)], _environment(Path(tmp, "one"), gemini_url))
        argvs = [_argv(name, f"{i}/{shards}") for i in range(shards)]
        sharded = _run_all(argvs, _environment(Path(tmp, "sharded"), gemini_url))
    return Row(
        corpus=name,
        shards=shards,
        pages_one=_written(one.reports[0]),
        pages_sharded=sum(_written(r) for r in sharded.reports),
        one_s=round(one.wall_s, 2),
        sharded_s=round(sharded.wall_s, 2),
        slowest_shard_pages=max(_written(r) for r in sharded.reports),
        one_cpu_s=round(one.cpu_s[0], 2),
        shards_cpu_s=[round(c, 2) for c in sharded.cpu_s],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", choices=sorted(CORPUS_SPECS))
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = args.corpus or ["fastapi-es", "astro-es"]
    missing = [n for n in names if not CORPUS_SPECS[n].docs_dir.is_dir()]
    if missing:
        print(f"corpora not found beside the checkout: {', '.join(missing)}", file=sys.stderr)
        return 2
    fake = FakeGemini()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        rows = [measure(name, args.shards, url) for name in names]
    finally:
        server.shutdown()
        server.server_close()
    if args.json:
        extra = [
            {"ratio": round(r.ratio, 2), "overhead_cpu_s": round(r.overhead_cpu_s, 2)} for r in rows
        ]
        print(json.dumps([asdict(r) | e for r, e in zip(rows, extra, strict=True)], indent=2))
        return 0
    print(f"cores: {os.cpu_count()}")
    print(
        "corpus        pages  one (s)  shards  sharded (s)  ratio  one: pages/s  same pages"
        "  CPU one (s)  CPU per shard (s)  CPU each shard adds (s)"
    )
    for r in rows:
        print(
            f"{r.corpus:<13} {r.pages_one:>5}  {r.one_s:>7.1f}  {r.shards:>6}  "
            f"{r.sharded_s:>11.1f}  {r.ratio:>4.2f}×  {r.pages_per_s:>12.1f}  "
            f"{'yes' if r.pages_one == r.pages_sharded else 'NO':>10}  {r.one_cpu_s:>11.1f}  "
            f"{' '.join(f'{c:.1f}' for c in r.shards_cpu_s):>17}  {r.overhead_cpu_s:>23.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
