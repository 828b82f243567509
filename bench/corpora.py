"""The real corpora the quality benchmarks run on, their labelled questions, their stores.

``bench/retrieval.py`` and ``bench/answers.py`` measure every corpus of ``CORPORA`` (or the
ones ``--corpus`` names) in one run. Each corpus is imported as its team would import it
(``biblioteca import DIR``) with the shipped offline embedder; ``--store DIR`` keeps each
imported store in ``DIR/<corpus>`` so a second run only checks it (the real embedder reads
about 30 chunks a second: importing textual-en takes minutes).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shared.providers.local_embedder import shared_local_embedder
from shared.services.importer import import_directory
from shared.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
# ../shared/corpus beside the checkout; a git worktree deeper down finds it further up.
CORPUS_ROOT = next(
    (
        folder / "shared" / "corpus"
        for folder in ROOT.parents
        if (folder / "shared" / "corpus" / "fastapi-es").is_dir()
    ),
    ROOT.parent / "shared" / "corpus",
)


@dataclass(frozen=True)
class Corpus:
    """One corpus: the folder ``biblioteca import`` is given and its labelled questions."""

    name: str
    docs: str  # relative to the corpus folder
    questions_file: str  # beside this module
    lang: str  # the language its pages are written in: other questions are cross-language
    default_type: str = "guide"

    @property
    def docs_dir(self) -> Path:
        return CORPUS_ROOT / self.name / self.docs

    def labelled(self) -> dict[str, Any]:
        """``{"questions": [...], "negatives": [...]}`` as written in its file."""
        data: dict[str, Any] = json.loads((HERE / self.questions_file).read_text("utf-8"))
        return data


CORPORA = {
    c.name: c
    for c in (
        Corpus("fastapi-es", "docs", "questions.json", "es"),
        Corpus("textual-en", "repo/docs", "questions-textual-en.json", "en"),
        Corpus("astro-es", "repo/src/content/docs/es", "questions-astro-es.json", "es"),
        Corpus("vitepress-en", "repo/docs/en", "questions-vitepress-en.json", "en"),
        Corpus("docusaurus-en", "repo/website/docs", "questions-docusaurus-en.json", "en"),
    )
}


# Every docs tree of ../shared/corpus: the benches that take their truth from what the
# authors wrote (bench/enrich.py) run on all of them. Every one is labelled now.
TREES = dict(CORPORA)


def chosen(names: list[str] | None) -> list[Corpus]:
    """The corpora a ``--corpus`` option names (all of them when it names none)."""
    unknown = [n for n in names or [] if n not in CORPORA]
    if unknown:
        raise SystemExit(f"unknown corpus {unknown}; known: {sorted(CORPORA)}")
    return [CORPORA[n] for n in names] if names else list(CORPORA.values())


def labelled_pages(item: dict[str, Any]) -> set[str]:
    """Every page that answers a labelled question: its ``page`` and its ``also``."""
    return {item["page"], *item.get("also", [])}


def open_corpus(corpus: Corpus, directory: Path) -> tuple[SqliteStore, float]:
    """``corpus`` imported into an embedded store in ``directory``, and the import's seconds.

    A folder that already holds it is only checked (unchanged files are not re-imported),
    so ``--store DIR`` saves the import on repeated runs."""
    store = SqliteStore(directory)
    started = time.perf_counter()
    report = import_directory(
        corpus.docs_dir, store, shared_local_embedder(), default_type=corpus.default_type
    )
    if report.failed:
        raise RuntimeError(f"{corpus.name}: import failed for {report.failed}")
    return store, time.perf_counter() - started
