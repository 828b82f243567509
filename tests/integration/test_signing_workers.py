"""A duplicates first run signs in forked worker processes what it would sign in line.

Run in a fresh interpreter: a pytest worker may have loaded gRPC (the Firestore tests),
and then ``shared.workers`` rightly refuses to fork, which would leave the pool untested.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import os, random, sys
    from pathlib import Path

    from shared import workers
    from shared.dedup import codec
    from shared.schema import parse_front_matter
    from shared.services import duplicates
    from shared.services.wiki import create_validated
    from shared.store.sqlite import SqliteStore
    from tests.fixtures.embedder import HashingEmbedder

    def pid(_: int) -> int:
        return os.getpid()

    store = SqliteStore(Path(sys.argv[1]))
    rng = random.Random(7)
    words = [f"palabra{i}" for i in range(400)]
    texts = [" ".join(rng.choice(words) for _ in range(120)) + "." for _ in range(10)]
    texts.append(texts[0].replace("palabra", "palabra ", 1))  # a copy: one finding
    for i, text in enumerate(texts):
        front = parse_front_matter({"title": f"Página {i}", "type": "guide"})
        create_validated(f"p{i}", front, text, store, HashingEmbedder(), actor="ana")
    pages = store.pages.list()
    in_line = {p.slug: codec.stored_signature(duplicates.sign(store, p)).data for p in pages}

    assert workers.can_fork(), "one thread and no gRPC: this process may fork"
    with workers.forked(2) as pool:
        assert pool is not None
        assert os.getpid() not in set(pool.map(pid, range(8)))

    duplicates.POOL_FROM_PAGES, duplicates.SIGNING_CHUNK = 2, 3  # 11 pages, 4 sends
    run = duplicates.refresh(store)
    stored = {s.slug: s.data for s in store.duplicates.signatures(None)}
    assert (run.full, run.signed, run.found) == (True, 11, 1), run
    assert stored == in_line
    print("signed in workers")
    """
)


def test_a_first_run_signs_in_worker_processes_what_it_signs_in_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "data")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "signed in workers"
