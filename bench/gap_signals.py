"""Rebuild time with N weak-question signals in the gap log against none (issue 23).

    .venv/bin/python bench/gap_signals.py [--signals 2000] [--embedder hashing|local]

A one-page SQLite wiki, built once; then the best of three incremental builds with nothing
to build, before and after recording N weak questions the way ``ask`` records them.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--signals", type=int, default=2000)
    parser.add_argument("--embedder", choices=["hashing", "local"], default="hashing")
    args = parser.parse_args()
    os.environ["BIBLIOTECA_DATA_DIR"] = tempfile.mkdtemp()
    from shared.api.models import AskRequest
    from shared.bootstrap import Wiring
    from shared.config import get_settings
    from shared.ports import Embedder
    from shared.services import ask as asking
    from shared.services.site_build import build_site
    from tests.fixtures.embedder import HashingEmbedder
    from tests.functions.test_rebuild import put

    embedder: Embedder
    if args.embedder == "local":
        from shared.providers.local_embedder import shared_local_embedder

        embedder = shared_local_embedder()
    else:
        embedder = HashingEmbedder()
    w = Wiring(get_settings(), embedder=embedder)
    store = w.store
    put(store, "concept—a")

    def best() -> float:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            build_site(
                w.settings,
                store=store,
                publisher=w.publisher(),
                curator_report=w.curator_report(),
                embedder=embedder,
            )
            times.append(time.perf_counter() - started)
        return min(times)

    best()
    none = best()
    keeps = "vector" in inspect.signature(asking.record_hit).parameters
    for i in range(args.signals):
        text = f"¿Cómo se configura el módulo {i} del servicio {i * 7}? " * 30  # ~1,800 chars
        question = asking.as_question(AskRequest.parse({"question": text[:2000]}))
        if keeps:
            asking.record_hit(
                store,
                question,
                [],
                "local",
                1.0,
                confidence="low",
                best_fused=0.0,
                vector=embedder.embed_query(question.text),
                embedder=embedder.name,
            )
        else:  # a tree from before signals kept their vector (the README's "before" row)
            asking.record_hit(store, question, [], "local", 1.0, confidence="low", best_fused=0.0)
    many = best()
    print(
        f"{args.embedder}: none {none * 1000:.0f} ms, {args.signals} signals "
        f"{many * 1000:.0f} ms, ratio {many / none:.1f}"
    )


if __name__ == "__main__":
    main()
