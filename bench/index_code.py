"""``index_code`` of one large repository on the Firestore emulator: how long its put takes.

Indexes ``--paths`` distinct paths of one repository (``src/paquete_<i/50>/sub_<i/10>/
modulo_<i>.py``: four segments, three suffix keys each, like a real tree) into a fresh
emulator project, through ``services.code_index.index_paths`` as ``POST /index_code``
does, then a second put of the same paths (nothing changes: reads only). Counts the
commit calls the adapter made. Also on SQLite, for scale.

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8471 .venv/bin/python bench/index_code.py \
        [--paths 20000] [--runs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.services.code_index import index_paths  # noqa: E402


def paths_of(n: int) -> list[str]:
    return [f"src/paquete_{i // 50}/sub_{i // 10}/modulo_{i}.py" for i in range(n)]


def count_commits() -> dict[str, int]:
    """Patch the client's batch commit to count calls (the adapter's only writes here)."""
    from google.cloud.firestore_v1.batch import WriteBatch

    counts = {"commits": 0}
    original = WriteBatch.commit

    def commit(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["commits"] += 1
        return original(self, *args, **kwargs)

    WriteBatch.commit = commit  # type: ignore[method-assign]
    return counts


def measure(store: Any, paths: list[str]) -> dict[str, float]:
    started = time.perf_counter()
    result = index_paths("bench/repo", paths, store, replace=True)
    first = time.perf_counter() - started
    assert result.indexed == len(paths), result
    started = time.perf_counter()
    index_paths("bench/repo", paths, store, replace=True)
    again = time.perf_counter() - started
    return {"first_put_s": round(first, 2), "same_again_s": round(again, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paths", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()
    paths = paths_of(args.paths)
    counts = count_commits()
    for _ in range(args.runs):
        if not args.no_sqlite:
            from shared.store.sqlite import SqliteStore

            row = measure(SqliteStore(Path(tempfile.mkdtemp())), paths)
            print(json.dumps({"store": "sqlite", "paths": args.paths, **row}), flush=True)
        if os.environ.get("FIRESTORE_EMULATOR_HOST"):
            from shared.store.firestore import FirestoreStore

            counts["commits"] = 0
            row = measure(FirestoreStore(f"bench-{uuid.uuid4().hex[:10]}"), paths)
            print(
                json.dumps({"store": "firestore", "paths": args.paths, **row, **counts}),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
