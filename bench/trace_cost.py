"""What keeping an answer's trace costs ``ask``: the same questions answered with the
trace kept and with the trace's save replaced by nothing, interleaved, in one run.

On the demo wiki with the offline embedder and answerer (the fastest ``ask`` there is,
so the trace's share is the largest it gets), on SQLite, and on the Firestore emulator
when ``FIRESTORE_EMULATOR_HOST`` is set (``--firestore``).

    .venv/bin/python bench/trace_cost.py [--rounds 15] [--firestore] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.api.models import AskRequest  # noqa: E402
from shared.bootstrap import Wiring  # noqa: E402
from shared.config import load_settings  # noqa: E402
from shared.demo import load_demo_if_empty  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402

QUESTIONS = [
    "¿Cada cuánto se reconstruye el sitio?",
    "¿Cómo promuevo un borrador?",
    "How do I reindex after changing the embedder?",
    "¿Qué comprueba la puerta de grounding?",
    "¿Dónde se guarda el informe del curador?",
]


def measure(store: Any, rounds: int) -> dict[str, float]:
    settings = load_settings({})
    embedder = shared_local_embedder()
    load_demo_if_empty(store, embedder)
    save = store.traces.save

    w = Wiring(settings, store=store, embedder=embedder)

    def one(question: str) -> float:
        started = time.perf_counter()
        w.ask(AskRequest.parse({"question": question}), authorized=False)
        return (time.perf_counter() - started) * 1000

    for question in QUESTIONS:  # warm the caches (lexical index, vectors, model)
        one(question)
    kept: list[float] = []
    skipped: list[float] = []
    for _ in range(rounds):
        for question in QUESTIONS:
            store.traces.save = save
            kept.append(one(question))
            store.traces.save = lambda trace: None
            skipped.append(one(question))
    store.traces.save = save
    with_trace, without = statistics.median(kept), statistics.median(skipped)
    return {
        "asks": len(kept),
        "median_ms_with_trace": round(with_trace, 2),
        "median_ms_without": round(without, 2),
        "ratio": round(with_trace / without, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--firestore", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        from shared.store.sqlite import SqliteStore

        results["sqlite"] = measure(SqliteStore(Path(tmp)), args.rounds)
    if args.firestore:
        from shared.store.firestore import FirestoreStore

        results["firestore-emulator"] = measure(
            FirestoreStore(project=f"bench-{uuid.uuid4().hex[:12]}"), args.rounds
        )
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, r in results.items():
            print(
                f"{name}: {r['asks']} asks, median {r['median_ms_with_trace']} ms with the "
                f"trace, {r['median_ms_without']} ms without: ratio {r['ratio']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
