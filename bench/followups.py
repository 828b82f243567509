"""Follow-up questions: R@5 of each reading of a follow-up, on the three real corpora.

``bench/followups.json`` holds, per corpus, pairs of an earlier question and a follow-up
("¿y los de header?", "what about easing functions?") labelled with the page(s) that
answer the follow-up, and a few new subjects asked later in the same conversation (where
carrying the earlier subject over would hurt). Each corpus is imported into its own
SQLite store; each follow-up is retrieved (``services.ask.gather``, the path ``ask``
takes) read four ways:

- ``alone``: the follow-up as asked (no history);
- ``rule``: ``retrieval.followup.standalone`` as shipped (carried over only into a
  short or follow-up-shaped question), and with ``SHORT_WORDS`` at 2, 4 and 6;
- ``always``: the earlier question's salient words carried into every question;
- ``concat``: the earlier question and the follow-up, whole.

R@1 and R@5: the share of questions whose expected page is the first, or among the first
five, distinct pages retrieved.

    .venv/bin/python bench/followups.py [--embedder hashing|local] [--json]

``hashing`` (default) is the test tier's deterministic embedder, for a quick run (the
lexical side and a bag-of-words dense side); ``local`` the offline model (minutes per
corpus to import on a busy machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.ports import Embedder  # noqa: E402
from shared.records import SearchFilter  # noqa: E402
from shared.retrieval import followup, hybrid  # noqa: E402
from shared.services.ask import gather  # noqa: E402
from shared.services.importer import import_directory, tree_of  # noqa: E402
from shared.store.sqlite import SqliteStore  # noqa: E402
from shared.text.fold import fold  # noqa: E402
from tests.fixtures.corpora import CORPUS_SPECS  # noqa: E402

INDEX = hybrid.IndexCache()  # this process's search index, as a wiring holds one

PAIRS = json.loads(Path(__file__).with_name("followups.json").read_text(encoding="utf-8"))


def _with_short(words: int) -> Callable[[str, list[str]], str]:
    def read(question: str, earlier: list[str]) -> str:
        saved = followup.SHORT_WORDS
        followup.SHORT_WORDS = words
        try:
            return followup.standalone(question, earlier)
        finally:
            followup.SHORT_WORDS = saved

    return read


def _always(question: str, earlier: list[str]) -> str:
    has = {fold(w) for w in followup.content_words(question)}
    carried = [w for w in followup.content_words(earlier[-1]) if fold(w) not in has]
    return f"{question} ({' '.join(carried)})" if carried else question


READINGS: dict[str, Callable[[str, list[str]], str]] = {
    "alone": lambda question, earlier: question,
    "rule": followup.standalone,
    "rule, short<=2": _with_short(2),
    "rule, short<=4": _with_short(4),
    "rule, short<=6": _with_short(6),
    "always": _always,
    "concat": lambda question, earlier: f"{earlier[-1]} {question}",
}


def top_pages(text: str, store: SqliteStore, embedder: Embedder, k: int = 5) -> list[str]:
    found = gather(text, SearchFilter(), 20, store, embedder, INDEX)
    return list(dict.fromkeys(p.slug for p in found.passages))[:k]


def measure(name: str, embedder: Embedder) -> dict[str, Any]:
    spec = CORPUS_SPECS[name]
    slugs = tree_of(spec.docs_dir).slugs
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp))
        import_directory(spec.docs_dir, store, embedder, default_type=spec.default_type)
        rows: dict[str, dict[str, float]] = {}
        for reading, read in READINGS.items():
            hits = {"follow-up": [0, 0], "new-subject": [0, 0]}
            first = 0
            for pair in PAIRS[name]:
                # A page this branch's importer does not read (MDX) cannot be found.
                expected = {slugs[path] for path in pair["expected"] if path in slugs}
                if not expected:
                    continue
                text = read(pair["question"], pair["history"])
                pages = top_pages(text, store, embedder)
                hit = bool(expected & set(pages))
                first += int(bool(pages) and pages[0] in expected)
                hits[pair["kind"]][0] += int(hit)
                hits[pair["kind"]][1] += 1
            rows[reading] = {kind: round(h / max(n, 1), 2) for kind, (h, n) in hits.items()}
            rows[reading]["pairs"] = sum(n for _, n in hits.values())
            rows[reading]["r1"] = round(first / max(rows[reading]["pairs"], 1), 2)
            rows[reading]["all"] = round(
                sum(h for h, _ in hits.values()) / max(rows[reading]["pairs"], 1), 2
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", choices=("hashing", "local"), default="hashing")
    parser.add_argument("--corpus", nargs="*", default=[k for k in PAIRS if not k.startswith("_")])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.embedder == "local":
        from shared.providers.local_embedder import LocalEmbedder
        from shared.providers.use_cache import default_cache

        embedder: Embedder = LocalEmbedder(cache=default_cache())
    else:
        from tests.fixtures.embedder import HashingEmbedder

        embedder = HashingEmbedder()
    results = {name: measure(name, embedder) for name in args.corpus}
    if args.json:
        print(json.dumps(results))
        return 0
    for name, rows in results.items():
        pairs = int(next(iter(rows.values()))["pairs"])
        print(f"{name} ({args.embedder}, {pairs} pairs): R@5 follow-ups / new subjects / all; R@1")
        for reading, row in rows.items():
            shares = " / ".join(f"{row[k]:.2f}" for k in ("follow-up", "new-subject", "all"))
            print(f"  {reading:16s} {shares}; {row['r1']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
