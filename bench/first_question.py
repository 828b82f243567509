"""The first question of a fresh ``biblioteca serve`` right after an import, against its second.

For each corpus: ``biblioteca import DIR`` into a throw-away store (the real command, the
shipped offline embedder; it leaves the search snapshot stored, docs/scale.md), then a
real ``biblioteca serve`` process on a free loopback port (no site rebuild, no enrichment
worker: neither is on a question's path). Once it answers, two different labelled
questions are asked one after the other over HTTP: the first pays whatever a fresh
process still loads on its first question (``serve`` loads the model and the stored
snapshot in its worker before the first request: ``Wiring.warm``), the second is an
ordinary warm one. Printed: the import's seconds, the server's start-up, both questions'
seconds and their ratio. ``--store DIR`` keeps each imported store in ``DIR/<corpus>`` (a
second run re-imports nothing and keeps the snapshot the first stored); each round starts
its own server, and ``--rounds`` keeps the fastest first question of several.

    .venv/bin/python bench/first_question.py [--corpus fastapi-es astro-es] [--rounds 3]
        [--store DIR] [--ports 9260-9279] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from corpora import CORPORA, Corpus, chosen  # noqa: E402

START_TIMEOUT = 600.0  # serve builds the site at start when none exists: minutes on a busy machine
ASK_TIMEOUT = 120.0


@dataclass(frozen=True)
class Row:
    corpus: str
    import_s: float
    start_s: float
    first_s: float
    second_s: float

    @property
    def ratio(self) -> float:
        return self.first_s / max(self.second_s, 1e-9)


def environment(data_dir: Path) -> dict[str, str]:
    """The process environment of the store in ``data_dir``, offline, nothing else inherited.
    Bytecode is kept (beside the store, not in the checkout), as an installed package has
    it: a process that compiles every module it imports is not what is deployed."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("BIBLIOTECA_", "GEMINI")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    return kept | {
        "PYTHONPYCACHEPREFIX": str(data_dir.parent / "pycache"),
        "BIBLIOTECA_DATA_DIR": str(data_dir),
        "BIBLIOTECA_RATE_LIMIT": "1000000/minute",
        "BIBLIOTECA_ENRICH": "off",
    }


def free_port(ports: range) -> int:
    """The first port of ``ports`` free on the loopback (``--ports``: a shared machine's
    engineers each keep to their own range)."""
    for port in ports:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit(f"no free port in {ports.start}-{ports.stop - 1}")


def imported(corpus: Corpus, data_dir: Path) -> float:
    """Seconds ``biblioteca import`` took for ``corpus`` into ``data_dir``."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "shared", "import", str(corpus.docs_dir)],
        cwd=ROOT,
        env=environment(data_dir),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def served(data_dir: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    """A fresh ``biblioteca serve`` on ``port`` once it answers, and its start-up seconds."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "shared", "serve", "--port", str(port), "--no-rebuild"],
        cwd=ROOT,
        env=environment(data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=2).status_code < 500:
                return process, time.perf_counter() - started
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise SystemExit("biblioteca serve exited during start-up")
        time.sleep(0.1)
    process.terminate()
    raise SystemExit(f"biblioteca serve did not answer within {START_TIMEOUT:.0f} s")


def asked(port: int, question: str) -> float:
    started = time.perf_counter()
    reply = httpx.post(
        f"http://127.0.0.1:{port}/ask", json={"question": question}, timeout=ASK_TIMEOUT
    )
    took = time.perf_counter() - started
    if reply.status_code != 200 or not reply.json().get("sources"):
        raise SystemExit(f"ask answered {reply.status_code}: {reply.text[:300]}")
    return took


def measure(corpus: Corpus, data_dir: Path, rounds: int, ports: range) -> Row:
    import_s = imported(corpus, data_dir)
    first, second = [q["q"] for q in corpus.labelled()["questions"][:2]]
    best: tuple[float, float, float] | None = None
    for _ in range(rounds):
        port = free_port(ports)
        process, start_s = served(data_dir, port)
        try:
            figures = (asked(port, first), asked(port, second), start_s)
        finally:
            process.terminate()
            process.wait(timeout=30)
        if best is None or figures[0] < best[0]:
            best = figures
    assert best is not None
    return Row(corpus.name, import_s, best[2], best[0], best[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", nargs="*", choices=sorted(CORPORA))
    parser.add_argument("--store", type=Path, help="keep the imported stores here")
    parser.add_argument("--rounds", type=int, default=3, help="fresh servers per corpus")
    parser.add_argument("--ports", default="9260-9279", help="loopback ports to serve on")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    low, high = (int(p) for p in args.ports.split("-"))
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        base = args.store or Path(scratch)
        for corpus in chosen(args.corpus):
            rows.append(measure(corpus, base / corpus.name, args.rounds, range(low, high + 1)))
            print(f"{corpus.name} measured", file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(r) | {"ratio": r.ratio} for r in rows], indent=2))
        return 0
    print("| corpus | import s | serve start s | first question s | second s | first / second |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.corpus} | {r.import_s:.1f} | {r.start_s:.2f} | {r.first_s:.2f} "
            f"| {r.second_s:.2f} | {r.ratio:.2f}× |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
