"""Concurrent unversioned updates of one page: how long each of N writers waits.

N threads call ``wiki_update``'s service (``update_validated``, no ``expected_version``)
on one page at the same moment, as a server's threads would: odd writers change the
text, even ones the tags, each of a page of ``--size`` characters. The offline embedder
(mapped weights) pays for new text, as under ``biblioteca serve`` (``--embedder hashing``:
the tests' deterministic embedder, nearly free, which leaves the write path alone).
Reports, per store,
the wall time until the last write landed, each writer's latency (p50, max), and the
attempts made (a lost race costs one more: read, merge, embed what is new, write).
Runs on SQLite, and on the Firestore emulator when ``--firestore`` (and
``FIRESTORE_EMULATOR_HOST``) is set.

    .venv/bin/python bench/writers.py [--writers 50] [--runs 3] [--size 4000] [--firestore]
        [--sqlite] [--embedder local|hashing]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.api.models import WikiCreateRequest  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.services import wiki  # noqa: E402


class Counting:
    """The store, counting the page writes tried (each lost race is one more)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.tries = 0
        self._lock = threading.Lock()
        outer = self

        class Pages:
            def __getattr__(self, name: str) -> Any:
                return getattr(store.pages, name)

            def update(self, *args: Any, **kwargs: Any) -> None:
                with outer._lock:
                    outer.tries += 1
                store.pages.update(*args, **kwargs)

        self.pages = Pages()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def text(i: int, size: int) -> str:
    line = f"El escritor {i} cuenta cómo se ajusta el pool de conexiones. "
    sections = []
    for n in range(max(1, size // 600)):
        sections.append(f"## Parte {n}\n\n" + (line * 9)[:560])
    return "# Carrera\n\n" + "\n\n".join(sections)


def run(store: Any, writers: int, size: int, embedder: Any) -> dict[str, Any]:
    created = wiki.create_page(
        WikiCreateRequest.parse(
            {
                "content": text(-1, size),
                "front_matter": {"title": f"Carrera {uuid.uuid4().hex[:8]}", "type": "concept"},
            }
        ),
        store,
        embedder,
        actor="bench",
    )
    slug = created.page.slug
    counting: Any = Counting(store)  # a Store, as far as the service can tell
    turns = wiki.PageTurns()  # the process's, as ``Wiring.turns`` hands it to each update
    barrier = threading.Barrier(writers)
    latencies: list[float] = [0.0] * writers
    failures: list[str] = []

    def write(i: int) -> None:
        barrier.wait()
        started = time.perf_counter()
        try:
            if i % 2:
                wiki.update_validated(
                    slug,
                    {},
                    text(i, size),
                    None,
                    counting,
                    embedder,
                    actor="bench",
                    turns=turns,
                )
            else:
                wiki.update_validated(
                    slug,
                    {"tags": [f"escritor-{i}"]},
                    None,
                    None,
                    counting,
                    embedder,
                    actor="bench",
                    turns=turns,
                )
        except Exception as exc:  # a bench reports, it does not stop
            failures.append(f"{type(exc).__name__}: {exc}")
        latencies[i] = time.perf_counter() - started

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    final = store.pages.get(slug)
    return {
        "wall_s": round(wall, 2),
        "p50_s": round(statistics.median(latencies), 2),
        "max_s": round(max(latencies), 2),
        "tries": counting.tries,
        "failed": len(failures),
        "version": final.version,
        "first_failure": failures[0] if failures else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writers", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", type=int, default=4000, help="characters of the page")
    parser.add_argument("--firestore", action="store_true")
    parser.add_argument("--sqlite", action="store_true", help="with --firestore: both")
    parser.add_argument("--embedder", choices=["local", "hashing"], default="local")
    args = parser.parse_args()
    embedder: Any = shared_local_embedder()
    if args.embedder == "hashing":
        from tests.fixtures.embedder import HashingEmbedder

        embedder = HashingEmbedder()
    embedder.embed_documents(["calentar el modelo"])
    stores: list[tuple[str, Any]] = []
    if args.sqlite or not args.firestore:
        from shared.store.sqlite import SqliteStore

        stores.append(("sqlite", lambda: SqliteStore(Path(tempfile.mkdtemp()))))
    if args.firestore:
        from shared.store.firestore import FirestoreStore

        stores.append(("firestore", lambda: FirestoreStore(f"bench-{uuid.uuid4().hex[:10]}")))
    for name, make in stores:
        for _ in range(args.runs):
            result = run(make(), args.writers, args.size, embedder)
            row = {"store": name, "embedder": args.embedder, "writers": args.writers, **result}
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
