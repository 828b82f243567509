"""Cost model on the Firestore emulator: store reads and writes per operation at 1,000 and
10,000 pages, counted at the client, with wall time and RSS, extrapolated to 100,000 pages.

The wiki is built from the corpus (``../shared/corpus/fastapi-es``): page ``i`` is corpus
page ``i mod n`` with its own title, tags, category and a closing section of its own words,
so retrieval stays meaningful and no two pages are equal. Pages are written in bulk straight
to the store (``pages.create``, the adapter's real commit) with a **hashed bag-of-words
embedder of 64 dimensions** (tests/fixtures/embedder.py): the real model would take hours
for 150,000 chunks on 2 cores, and the operation counts do not depend on the vectors' size.

Counting: every call the Firestore client makes goes through its GAPIC ``_firestore_api``;
this script wraps those methods on each store's own client. A query is billed one read per
document returned (one if it returns none), a ``get`` one per document asked for, a count
aggregation one per 1,000 index entries counted (at least one), a commit one write per
write (deletes apart). A ``find_nearest`` is billed by index entries read too, which the
client cannot see: the instance counts its ``find_nearest`` calls and each is billed by
Firestore's documented rule, one read per batch of up to 100 kNN index entries read (the
flat index reads every entry the pre-filters let through: status and embedder match every
active chunk) plus the documents returned, which the client counts (column ``kNN``).

Both dense paths are measured in the same run, each in ask instances of its own: ``new``
(the snapshot's int8 codes, the candidates read by key: no vector query) and ``old``
(``find_nearest`` per question, as before issue 35).

Operations (each through its service, as the functions run it):
create, update (new content), metadata-only update, ask on a cold instance (a fresh process),
ask on a warm instance after another process wrote one page, archive, index_code of 1,000
paths, an incremental rebuild after one edit (``--rebuild``; needs a full build first).

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8911 .venv/bin/python bench/scale.py --pages 1000 [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.api.models import AskRequest  # noqa: E402
from shared.bootstrap import Wiring  # noqa: E402
from shared.config import load_settings  # noqa: E402
from shared.schema import FrontMatter, Page  # noqa: E402
from shared.services.archive import archive_answer  # noqa: E402
from shared.services.code_index import index_paths  # noqa: E402
from shared.services.importer import split_front_matter  # noqa: E402
from shared.services.indexing import build_chunks  # noqa: E402
from shared.services.wiki import to_record, update_validated  # noqa: E402
from shared.site import manifest  # noqa: E402
from shared.store.firestore import FirestoreStore  # noqa: E402
from tests.fixtures.embedder import HashingEmbedder  # noqa: E402
from tests.fixtures.store_reads import Counts, counted  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "fastapi-es" / "docs"
QUESTION = "¿Cómo declaro un parámetro de consulta opcional con un valor por defecto?"
TAGS = [f"tema-{i}" for i in range(40)]
CATEGORIES = ["tutorial", "referencia", "avanzado", "despliegue", "seguridad"]
WORDS = [
    "alfa",
    "bravo",
    "charlie",
    "delta",
    "eco",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "julieta",
    "kilo",
    "lima",
]

# Firestore Standard edition, us-central1, per 100,000 operations (USD), as published on
# https://firebase.google.com/docs/firestore/standard-edition (read 2026-12-01). Free tier:
# 50,000 reads, 20,000 writes, 20,000 deletes a day (not subtracted below).
PRICE_READ = 0.03 / 100_000
PRICE_WRITE = 0.09 / 100_000
PRICE_DELETE = 0.01 / 100_000
WORKLOAD = {"writes_per_day": 50, "questions_per_day": 5000, "warm_instances": 3}


# -- measuring -----------------------------------------------------------------------------


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Row:
    operation: str
    reads: int
    writes: int
    deletes: int
    seconds: float
    rss_mib: float
    note: str = ""
    in_store: float = 0.0  # of ``seconds``, waiting on the store's calls
    nearest_calls: int = 0  # find_nearest queries run (billed by the kNN rule: ``knn_reads``)
    knn_reads: int = 0  # reads billed for the kNN index entries those queries read


def knn_reads(calls: int, entries: int) -> int:
    """Firestore's rule: one read per batch of up to 100 kNN index entries a query reads."""
    return calls * math.ceil(entries / 100)


@contextmanager
def measured(
    rows: list[Row], name: str, counts: Counts, note: str = "", nearest: list[int] | None = None
) -> Iterator[None]:
    r0, w0, d0, _ = counts.snapshot()
    waited = counts.waited
    calls = len(nearest) if nearest is not None else 0
    started = time.perf_counter()
    yield
    seconds = time.perf_counter() - started
    r1, w1, d1, _ = counts.snapshot()
    rows.append(
        Row(
            name,
            r1 - r0,
            w1 - w0,
            d1 - d0,
            seconds,
            rss_mib(),
            note,
            counts.waited - waited,
            (len(nearest) - calls) if nearest is not None else 0,
        )
    )


# -- the wiki ------------------------------------------------------------------------------


def corpus() -> list[tuple[str, str]]:
    pages = []
    for path in sorted(CORPUS.rglob("*.md")):
        meta, body = split_front_matter(path.read_text(encoding="utf-8"))
        title = str(meta.get("title") or path.stem.replace("-", " ").capitalize())
        if body.strip():
            pages.append((title, body))
    return pages


def variant(i: int, base: list[tuple[str, str]]) -> Page:
    rng = random.Random(i)
    title, body = base[i % len(base)]
    words = " ".join(rng.sample(WORDS, 4))
    moment = datetime.now(UTC)
    front = FrontMatter(
        title=f"{title} ({i})",
        type="guide",
        tags=rng.sample(TAGS, 3),
        category=CATEGORIES[i % len(CATEGORIES)],
    )
    content = f"{body}\n\n## Variante {i}\n\nNotas de la variante {i}: {words} página-{i}.\n"
    return Page(
        slug=f"p-{i:06d}",
        front_matter=front,
        content=content,
        version=1,
        created_at=moment,
        updated_at=moment,
    )


def build(project: str, pages: int, threads: int) -> tuple[int, float]:
    """Write ``pages`` pages straight to the store; the chunk count and seconds."""
    store = FirestoreStore(project)
    embedder = HashingEmbedder()
    base = corpus()
    total = 0
    lock = threading.Lock()
    started = time.perf_counter()

    def one(i: int) -> None:
        nonlocal total
        page = variant(i, base)
        chunks = build_chunks(page, embedder, {})
        store.pages.create(to_record(page, store), chunks)
        with lock:
            total += len(chunks)

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(pages)))
    return total, time.perf_counter() - started


# -- the ask instance (its own process: a cold start is a fresh interpreter) ------------


def ask_instance(project: str, phase: str, timeout: float, path: str) -> dict[str, Any]:
    """One ask instance. ``first``: a cold start (the first ever when no snapshot is stored
    yet), then warm questions, with another store writing one page before the last.
    ``second``: a later cold start, from the snapshot stored and the changes since.
    ``path``: ``new`` (the snapshot's codes) or ``old`` (``find_nearest`` per question)."""
    settings = load_settings({"BIBLIOTECA_STORE": "firestore", "GOOGLE_CLOUD_PROJECT": project})
    embedder = HashingEmbedder()
    rows: list[Row] = []
    rss_before = rss_mib()
    # The emulator has no vector index: find_nearest scans every chunk, past the store's
    # usual 10 s deadline at 10,000 pages. Production's flat index does not (docs/scale.md).
    instance = FirestoreStore(project, timeout=timeout)
    counts = counted(instance)
    request = AskRequest(question=QUESTION)
    nearest: list[int] = []
    store_nearest = instance.chunks.nearest

    def counted_nearest(*args: Any, **kwargs: Any) -> Any:
        nearest.append(1)
        return store_nearest(*args, **kwargs)

    instance.chunks.nearest = counted_nearest  # type: ignore[method-assign]
    if path == "old":
        from shared.retrieval import hybrid

        def old_dense(chunks: Any, state: Any, vector: Any, embedder_name: str, *rest: Any) -> Any:
            filters, limit = rest
            return chunks.nearest(vector, embedder=embedder_name, filters=filters, limit=limit)

        hybrid._nearest = old_dense  # type: ignore[assignment]
    label = f"{path}: " if path == "old" else ""
    w = Wiring(settings, store=instance, embedder=embedder)
    stored = FirestoreStore(project).chunks.load_snapshot() is not None  # not counted

    def question() -> None:
        w.ask(request, authorized=True)

    if phase == "second":
        cold = f"{label}ask, cold instance, from the stored snapshot"
        with measured(rows, cold, counts, nearest=nearest):
            question()
        rss_cold = rss_mib()
        with measured(rows, f"{label}ask, warm, nothing written", counts, nearest=nearest):
            question()
        return {
            "rows": [r.__dict__ for r in rows],
            "rss_start_mib": rss_before,
            "rss_cold_mib": rss_cold,
        }
    first = "from the stored snapshot (first run)" if stored else "first ever (no snapshot)"
    with measured(rows, f"{label}ask, cold instance, {first}", counts, nearest=nearest):
        question()
    with measured(rows, f"{label}ask, warm, nothing written, first run", counts, nearest=nearest):
        question()
    writer = FirestoreStore(project)  # another process's store: its own client and caches
    record = writer.pages.get("p-000001")
    assert record is not None
    update_validated(
        "p-000001",
        {},
        record.content + "\n\nUna línea más.\n",
        None,
        writer,
        embedder,
        actor="bench",
    )
    time.sleep(6)  # past the change log's look-back: what a write some seconds ago costs
    with measured(rows, f"{label}ask, warm, after another wrote 1 page", counts, nearest=nearest):
        question()
    chunks = len(writer.chunks.vectors_for("p-000001"))
    w.close()  # the snapshot the next cold instance starts from is stored
    return {
        "rows": [r.__dict__ for r in rows],
        "rss_start_mib": rss_before,
        "written_page_chunks": chunks,
    }


# -- the writer's operations ---------------------------------------------------------------


def write_operations(project: str, rows: list[Row]) -> None:
    store = FirestoreStore(project)
    counts = counted(store)
    embedder = HashingEmbedder()
    from shared.services.wiki import create_validated

    base = corpus()
    page = variant(10_000_000, base)
    with measured(rows, "create (wiki_create)", counts):
        create_validated(None, page.front_matter, page.content, store, embedder, actor="bench")
    record = store.pages.get("p-000002")
    assert record is not None
    with measured(rows, "update, new content", counts):
        update_validated(
            "p-000002",
            {},
            record.content + "\n\nOtra línea.\n",
            None,
            store,
            embedder,
            actor="bench",
        )
    with measured(rows, "update, metadata only", counts):
        update_validated(
            "p-000003", {"tags": ["nueva"]}, None, None, store, embedder, actor="bench"
        )
    paragraphs = []
    for slug in ("p-000004", "p-000005"):
        source = store.pages.get(slug)
        assert source is not None
        paragraphs.append(
            next(p for p in source.content.split("\n\n") if len(p) > 200 and p[0].isalpha())
        )
    outcome: dict[str, Any] = {}
    with measured(rows, "archive", counts):
        outcome = archive_answer(
            question="¿Qué explican estas dos páginas de la guía?",
            answer=f"{paragraphs[0]} [1]\n\n{paragraphs[1]} [2]",
            sources=["p-000004", "p-000005"],
            store=store,
            embedder=embedder,
            judge=None,
            model="bench",
        ).body()
    rows[-1].note = f"archived={outcome['archived']} {outcome['reason']}"
    paths = [f"src/modulo_{i // 50}/archivo_{i}.py" for i in range(1000)]
    with measured(rows, "index_code, 1,000 paths", counts):
        index_paths("bench/repo", paths, store, replace=False)


def rebuild_operations(project: str, rows: list[Row]) -> None:
    from shared.bootstrap import Wiring
    from shared.services.site_build import build_site

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            {
                "BIBLIOTECA_STORE": "firestore",
                "GOOGLE_CLOUD_PROJECT": project,
                "BIBLIOTECA_SITE_DIR": f"{tmp}/site",
                "BIBLIOTECA_REPORT_DIR": f"{tmp}/report",
            }
        )
        store = FirestoreStore(project)
        counts = counted(store)
        w = Wiring(settings, store=store, embedder=HashingEmbedder())

        def rebuild(full: bool) -> None:
            build_site(
                settings,
                full,
                store=store,
                publisher=w.publisher(),
                curator_report=w.curator_report(),
            )

        with measured(rows, "rebuild, full (first build)", counts):
            rebuild(full=True)
        # An incremental build re-reads the pages written in the READ_MARGIN_SECONDS (5
        # min, for writers' clock skew) before its last read: here that is every page,
        # written seconds ago. Steady state is a wiki written earlier: let the margin pass.
        manifest.READ_MARGIN_SECONDS = 1.0
        time.sleep(2)
        record = store.pages.get("p-000005")
        assert record is not None
        update_validated(
            "p-000005",
            {},
            record.content + "\n\nEditada.\n",
            None,
            store,
            HashingEmbedder(),
            actor="bench",
        )
        with measured(rows, "rebuild, incremental after 1 edit", counts):
            rebuild(full=False)


# -- report -------------------------------------------------------------------------------


def extrapolate(
    rows: list[Row], pages: int, chunks: int, target: int, path: str = "new"
) -> dict[str, Any]:
    """Billed reads at ``target`` pages (size-dependent reads scale linearly, the kNN index
    entries with the chunks) and a month's cost, for one dense path."""
    factor = target / pages
    label = "old: " if path == "old" else ""
    by = {r.operation: r for r in rows}

    def billed(row: Row | None) -> float:
        """Reads the client counted (scaled if they track the wiki) plus the kNN rule's."""
        if row is None:
            return 0.0
        return row.reads * _scale(row, factor) + knn_reads(row.nearest_calls, chunks) * factor

    warm_after = by.get(f"{label}ask, warm, after another wrote 1 page")
    warm_idle = by.get(f"{label}ask, warm, nothing written")
    cold = by.get(f"{label}ask, cold instance, from the stored snapshot")
    write = by.get("update, new content")
    # Each write makes each warm instance catch up once; the other questions are idle ones.
    per_day_reads = (
        WORKLOAD["writes_per_day"] * (write.reads if write else 0)
        + WORKLOAD["writes_per_day"] * WORKLOAD["warm_instances"] * billed(warm_after)
        + WORKLOAD["questions_per_day"] * billed(warm_idle)
        + WORKLOAD["warm_instances"] * billed(cold)
    )
    per_day_writes = WORKLOAD["writes_per_day"] * (write.writes if write else 0)
    per_day_deletes = WORKLOAD["writes_per_day"] * (write.deletes if write else 0)
    month = 30 * (
        per_day_reads * PRICE_READ + per_day_writes * PRICE_WRITE + per_day_deletes * PRICE_DELETE
    )
    return {
        "path": path,
        "target_pages": target,
        "target_chunks": round(chunks * factor),
        "workload": WORKLOAD,
        "assumes": "one cold start per warm instance a day",
        "reads_per_day": round(per_day_reads),
        "writes_per_day": per_day_writes,
        "usd_per_month": round(month, 2),
        "cold_ask_reads": round(billed(cold)),
        "warm_ask_reads": round(billed(warm_idle)),
        "warm_ask_after_write_reads": round(billed(warm_after)),
    }


def _scale(row: Row, factor: float) -> float:
    """Reads that track the wiki's size scale with it; the note says which do."""
    return factor if "scales" in row.note else 1.0


def table(rows: list[Row]) -> str:
    out = [
        "| operation | reads | kNN | writes | deletes | seconds | in store calls | own | RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r.operation} | {r.reads} | {r.knn_reads} | {r.writes} | {r.deletes} "
            f"| {r.seconds:.2f} | {r.in_store:.2f} | {r.seconds - r.in_store:.2f} "
            f"| {r.rss_mib:.0f} |"
        )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--project", help="reuse a wiki already built in this emulator project")
    parser.add_argument("--rebuild", action="store_true", help="also measure the site rebuild")
    parser.add_argument("--target", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="the ask instance's store deadline (s)"
    )
    parser.add_argument("--instance", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.environ.get("FIRESTORE_EMULATOR_HOST"):
        parser.error("set FIRESTORE_EMULATOR_HOST (this bench runs on the emulator)")
    if args.instance:
        project, phase, timeout, path = args.instance.split(":")
        print(json.dumps(ask_instance(project, phase, float(timeout), path)))
        return 0
    project = args.project or f"bench-scale-{uuid.uuid4().hex[:10]}"
    chunks, build_s = (0, 0.0) if args.project else build(project, args.pages, args.threads)
    if args.project:
        chunks = len(FirestoreStore(project).chunks.active_chunks())
    rows: list[Row] = []
    instance: dict[str, Any] = {}
    rss_cold: dict[str, float] = {}
    for path, phase in (("new", "first"), ("new", "second"), ("old", "first"), ("old", "second")):
        child = subprocess.run(
            [sys.executable, __file__, "--instance", f"{project}:{phase}:{args.timeout}:{path}"],
            check=False,
            capture_output=True,
            text=True,
        )
        if child.returncode != 0:
            print(child.stderr[-3000:], file=sys.stderr)
            child.check_returncode()
        result = json.loads(child.stdout.strip().splitlines()[-1])
        instance = instance or result
        if "rss_cold_mib" in result:
            rss_cold[path] = result["rss_cold_mib"]
        rows.extend(Row(**r) for r in result["rows"])
    write_operations(project, rows)
    if args.rebuild:
        rebuild_operations(project, rows)
    for r in rows:
        r.knn_reads = knn_reads(r.nearest_calls, chunks)
        if "ask, " not in r.operation:
            continue
        label = r.operation.split("ask, ")[0]  # "old: " or ""
        idle = next(x.reads for x in rows if x.operation == f"{label}ask, warm, nothing written")
        # A catch-up reads the written page's chunks (its texts again, maybe) and the log
        # entries of the look-back: more than that is a read that tracks the wiki.
        if "ask, cold" in r.operation or (
            "ask, warm, after" in r.operation
            and r.reads > idle + 2 * instance["written_page_chunks"] + 20
        ):
            r.note = "scales with the wiki"
    report = {
        "pages": args.pages,
        "chunks": chunks,
        "project": project,
        "build_seconds": round(build_s, 1),
        "written_page_chunks": instance["written_page_chunks"],
        "ask_rss_start_mib": round(instance["rss_start_mib"]),
        "ask_rss_after_cold_question_mib": {k: round(v) for k, v in rss_cold.items()},
        "rows": [dict(r.__dict__.items()) for r in rows],
        "extrapolation": {
            path: extrapolate(rows, args.pages, chunks, target, path)
            for path in ("new", "old")
            for target in (args.pages,)
        }
        | {
            f"{path}@{args.target}": extrapolate(rows, args.pages, chunks, args.target, path)
            for path in ("new", "old")
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{args.pages} pages, {chunks} chunks (built in {build_s:.0f} s, project {project});"
        f" the page written before the warm ask has {instance['written_page_chunks']} chunks;"
        f" ask process RSS before its first question {instance['rss_start_mib']:.0f} MiB,"
        f" after a cold one {rss_cold}"
    )
    print(table(rows))
    print(json.dumps(report["extrapolation"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
