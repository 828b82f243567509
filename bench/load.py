"""Load and soak of a real ``biblioteca serve``: ask, and a mix of reads and writes, at a fixed
concurrency for a bounded time, beside a baseline served by the same server in the same run.

Starts ``biblioteca serve --demo`` on a throw-away store (the demo wiki, its site built), then
runs each scenario with ``--concurrency`` client threads, each on its own keep-alive
connection, for ``--seconds`` (after a warm-up of a third of that, not counted):

- ``static`` (the baseline): ``GET /``, the built site's index.html;
- ``ask``: anonymous help-mode questions of bench/questions.json, in turn;
- ``mixed``: 70 % ask, 20 % site pages, 10 % ``wiki_update`` of a page of the thread's own
  (no two threads write one page: concurrent unversioned updates are another matter).

For each: requests, errors, throughput, p50/p95/p99 latency, and how far the server's
resident memory (PSS of master and worker) grew per 1,000 requests. ``--soak SECONDS`` then runs
``mixed`` that long and compares the growth of its first and second halves: a leak keeps
growing, a warm-up does not.

First, the hostile bodies: 200 MiB sent to ``wiki_create`` without a token (401), with a
declared length (413) and chunked (413), each on its own connection; the figure is how far
the peak resident size of the server rose (``/proc/<pid>/clear_refs`` resets it).
``--source DIR`` serves another checkout (``git archive <commit> | tar -x -C DIR``) with
the same probes, to measure an older commit.

    .venv/bin/python bench/load.py [--concurrency 8] [--seconds 20] [--soak 0]
                                   [--source DIR] [--bodies-only] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = Path(__file__).with_name("questions.json")
TOKEN = "bench-load-token-0123456789"

Call = Callable[[httpx.Client, int, random.Random], int]


@dataclass
class Result:
    scenario: str
    seconds: float
    requests: int
    errors: int
    per_second: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    rss_start_mib: float
    rss_end_mib: float
    rss_kib_per_1000: float
    statuses: dict[str, int] = field(default_factory=dict)


# -- the server under test -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(source: Path, data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("BIBLIOTECA_", "GEMINI"))}
    environ |= {
        "BIBLIOTECA_DATA_DIR": str(data_dir),
        "BIBLIOTECA_API_TOKEN": TOKEN,
        "BIBLIOTECA_RATE_LIMIT": "1000000/minute",  # every client here is 127.0.0.1
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "shared", "serve", "--demo", "--port", str(port)],
        cwd=source,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise SystemExit("biblioteca serve exited during start-up")
        time.sleep(0.5)
    process.terminate()
    raise SystemExit("biblioteca serve did not answer within 300 s")


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants: the gunicorn master and its worker."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [p for c in (task / "children").read_text().split() for p in tree(int(c))]
    return found


def field_kib(pid: int, name: str, source: str = "status") -> int:
    """A ``Name:  123 kB`` line of /proc/<pid>/status (or smaps_rollup), in KiB."""
    lines = Path(f"/proc/{pid}/{source}").read_text().splitlines()
    return int(next(x for x in lines if x.startswith(f"{name}:")).split()[1])


def rss_kib(pid: int) -> int:
    """Resident KiB of the server (master and worker), proportional: the worker shares the
    master's pages (the model, loaded before the fork), which plain RSS counts twice."""
    return sum(field_kib(p, "Pss", "smaps_rollup") for p in tree(pid))


# -- hostile bodies ---------------------------------------------------------------------------

BIG = 200 * 1024 * 1024


def send_big_body(port: int, headers: str, *, chunked: bool) -> str:
    """200 MiB from a thread while the answer is read; the answer's status line."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(120)
    answered = threading.Event()
    block = b"0" * (1024 * 1024)

    def send() -> None:
        try:
            sock.sendall(headers.encode() + b"\r\n")
            for _ in range(BIG // len(block)):
                if answered.is_set():
                    return
                sock.sendall(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed
            return

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        status = sock.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
    except OSError as exc:
        status = type(exc).__name__
    answered.set()
    sock.close()
    sender.join(timeout=30)
    return status


def big_bodies(port: int, pid: int) -> list[dict[str, Any]]:
    """Peak memory growth of the server for each 200 MiB body."""
    start = "POST /wiki_create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    auth = f"Authorization: Bearer {TOKEN}\r\n"
    cases = [
        ("401, declared", start + f"Content-Length: {BIG}\r\n", False),
        ("413, declared", start + auth + f"Content-Length: {BIG}\r\n", False),
        ("413, chunked", start + auth + "Transfer-Encoding: chunked\r\n", True),
    ]
    found = []
    for name, headers, chunked in cases:
        processes = tree(pid)
        for p in processes:
            Path(f"/proc/{p}/clear_refs").write_text("5")  # the peak is now the current size
        before = sum(field_kib(p, "VmRSS") for p in processes)
        started = time.monotonic()
        answer = send_big_body(port, headers, chunked=chunked)
        elapsed = time.monotonic() - started
        time.sleep(0.5)
        peak = sum(field_kib(p, "VmHWM") for p in processes)
        found.append(
            {
                "case": name,
                "answer": answer,
                "seconds": round(elapsed, 2),
                "rss_before_mib": round(before / 1024, 1),
                "peak_growth_mib": round((peak - before) / 1024, 1),
            }
        )
    return found


# -- the scenarios ----------------------------------------------------------------------------


def scenarios(questions: Sequence[str], slugs: Sequence[str]) -> dict[str, Call]:
    auth = {"Authorization": f"Bearer {TOKEN}"}

    def static(http: httpx.Client, worker: int, rng: random.Random) -> int:
        return http.get("/").status_code

    def ask(http: httpx.Client, worker: int, rng: random.Random) -> int:
        question = questions[rng.randrange(len(questions))]
        return http.post("/ask", json={"question": question}).status_code

    def mixed(http: httpx.Client, worker: int, rng: random.Random) -> int:
        roll = rng.random()
        if roll < 0.7:
            return ask(http, worker, rng)
        if roll < 0.9:
            return http.get(f"/{slugs[rng.randrange(len(slugs))]}/").status_code
        slug = slugs[worker % len(slugs)]
        note = f"\n\nNota de carga {rng.random():.12f}."
        body = {"slug": slug, "content": f"# Página de carga\n\nTexto de la página.{note}"}
        return http.post("/wiki_update", json=body, headers=auth).status_code

    return {"static": static, "ask": ask, "mixed": mixed}


def drive(
    base_url: str, call: Call, concurrency: int, seconds: float, seed: int
) -> tuple[list[float], dict[str, int], float]:
    """Run ``call`` from ``concurrency`` threads for ``seconds``: latencies (ms), statuses."""
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        mine: list[float] = []
        seen: dict[str, int] = {}
        with httpx.Client(base_url=base_url, timeout=120) as http:
            while time.monotonic() < stop:
                started = time.perf_counter()
                try:
                    status = str(call(http, index, rng))
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                mine.append((time.perf_counter() - started) * 1000)
                seen[status] = seen.get(status, 0) + 1
        with lock:
            latencies.extend(mine)
            for key, count in seen.items():
                statuses[key] = statuses.get(key, 0) + count

    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, statuses, time.monotonic() - started


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(
    name: str, base_url: str, call: Call, pid: int, concurrency: int, seconds: float, seed: int
) -> Result:
    drive(base_url, call, concurrency, seconds / 3, seed + 1)  # warm-up: model, caches, pools
    before = rss_kib(pid)
    latencies, statuses, elapsed = drive(base_url, call, concurrency, seconds, seed)
    after = rss_kib(pid)
    errors = sum(count for status, count in statuses.items() if not status.startswith("2"))
    return Result(
        scenario=name,
        seconds=round(elapsed, 1),
        requests=len(latencies),
        errors=errors,
        per_second=round(len(latencies) / elapsed, 1),
        p50_ms=round(statistics.median(latencies), 1),
        p95_ms=round(percentile(latencies, 0.95), 1),
        p99_ms=round(percentile(latencies, 0.99), 1),
        rss_start_mib=round(before / 1024, 1),
        rss_end_mib=round(after / 1024, 1),
        rss_kib_per_1000=round((after - before) / len(latencies) * 1000, 1),
        statuses=statuses,
    )


def soak(base_url: str, call: Call, pid: int, concurrency: int, seconds: float) -> dict[str, Any]:
    """``mixed`` for ``seconds`` in ten slices: the memory after each, and the growth per
    1,000 requests of the first and the second half (a leak keeps growing, warm-up stops)."""
    samples = [{"requests": 0, "rss_mib": round(rss_kib(pid) / 1024, 1)}]
    done = errors = 0
    for part in range(10):
        latencies, statuses, _ = drive(base_url, call, concurrency, seconds / 10, 100 + part)
        done += len(latencies)
        errors += sum(c for s, c in statuses.items() if not s.startswith("2"))
        samples.append({"requests": done, "rss_mib": round(rss_kib(pid) / 1024, 1)})

    def growth(first: dict[str, float], last: dict[str, float]) -> float:
        added = last["requests"] - first["requests"]
        return round((last["rss_mib"] - first["rss_mib"]) * 1024 / max(added, 1) * 1000, 1)

    return {
        "seconds": seconds,
        "requests": done,
        "errors": errors,
        "first_half_kib_per_1000": growth(samples[0], samples[5]),
        "second_half_kib_per_1000": growth(samples[5], samples[10]),
        "samples": samples,
    }


# -- report -----------------------------------------------------------------------------------


def table(results: Sequence[Result]) -> str:
    base = results[0]
    lines = [
        "| scenario | requests | errors | req/s | vs static | p50 ms | p95 ms | p99 ms "
        "| p50 vs static | RSS MiB start → end | RSS KiB / 1,000 req |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.scenario} | {r.requests:,} | {r.errors} | {r.per_second} "
            f"| {r.per_second / base.per_second:.3f} | {r.p50_ms} | {r.p95_ms} | {r.p99_ms} "
            f"| {r.p50_ms / base.p50_ms:.1f}× | {r.rss_start_mib} → {r.rss_end_mib} "
            f"| {r.rss_kib_per_1000} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0, help="per scenario")
    parser.add_argument("--soak", type=float, default=0.0, help="seconds of mixed load after")
    parser.add_argument("--source", type=Path, default=ROOT, help="checkout to serve")
    parser.add_argument("--bodies-only", action="store_true", help="only the hostile bodies")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    questions = [q["q"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]]
    with tempfile.TemporaryDirectory(prefix="biblioteca-load-") as tmp:
        port = free_port()
        server = start_server(args.source.resolve(), Path(tmp) / "data", port)
        results: list[Result] = []
        soaked = None
        try:
            bodies = big_bodies(port, server.pid)
            if args.bodies_only:
                return report(args, bodies, results, soaked)
            base_url = f"http://127.0.0.1:{port}"
            os.environ["BIBLIOTECA_DATA_DIR"] = str(Path(tmp) / "data")
            sys.path.insert(0, str(ROOT))
            from shared.bootstrap import open_store
            from shared.config import get_settings

            slugs = sorted(p.slug for p in open_store(get_settings()).pages.list())
            calls = scenarios(questions, slugs)
            results = [
                measure(name, base_url, call, server.pid, args.concurrency, args.seconds, seed)
                for seed, (name, call) in enumerate(calls.items())
            ]
            soaked = (
                soak(base_url, calls["mixed"], server.pid, args.concurrency, args.soak)
                if args.soak
                else None
            )
        finally:
            server.terminate()
            server.wait(timeout=30)
    return report(args, bodies, results, soaked)


def report(
    args: argparse.Namespace,
    bodies: list[dict[str, Any]],
    results: list[Result],
    soaked: dict[str, Any] | None,
) -> int:
    if args.json:
        out = {"bodies": bodies, "results": [asdict(r) for r in results], "soak": soaked}
        print(json.dumps(out, indent=2))
        return 0
    print("200 MiB bodies to wiki_create (peak growth of the server's resident size):\n")
    print("| body | answer | seconds | RSS before MiB | peak growth MiB |\n|---|---|---|---|---|")
    for b in bodies:
        print(
            f"| {b['case']} | {b['answer']} | {b['seconds']} | {b['rss_before_mib']} "
            f"| {b['peak_growth_mib']} |"
        )
    if not results:
        return 0
    print(f"\nconcurrency {args.concurrency}, {args.seconds:g} s per scenario (after warm-up)\n")
    print(table(results))
    for r in results:
        print(f"\n{r.scenario} statuses: {r.statuses}")
    if soaked:
        print(
            f"\nsoak: {soaked['seconds']:g} s of mixed, {soaked['requests']:,} requests, "
            f"{soaked['errors']} errors; memory growth per 1,000 requests: "
            f"{soaked['first_half_kib_per_1000']} KiB in the first half, "
            f"{soaked['second_half_kib_per_1000']} KiB in the second"
        )
        print(
            "requests → PSS MiB: "
            + ", ".join(f"{s['requests']:,} → {s['rss_mib']}" for s in soaked["samples"])
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
