"""Answer quality on the labelled questions: facts, first citation, code, repeats, hedges.

Imports ../shared/corpus/fastapi-es into a throw-away embedded store (as bench/retrieval.py
does), retrieves every question of bench/questions.json as ``ask`` does, and answers it
with the shipped offline answerer and with the one of BASELINE (read from git), on the
same passages, in the same run.

    .venv/bin/python bench/answers.py [--json] [--store DIR] [--show N ...] [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from retrieval import CORPUS, NONE, QUESTIONS, open_corpus  # noqa: E402

from shared.api.models import DEFAULT_LIMIT  # noqa: E402
from shared.ports import Confidence, Passage  # noqa: E402
from shared.providers.answerers import LocalAnswerer  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.retrieval import answer_checks, evidence, hybrid  # noqa: E402
from shared.retrieval.extractive import NOTHING  # noqa: E402
from shared.retrieval.fusion import Ranked  # noqa: E402
from shared.retrieval.text import fold, language, tokens  # noqa: E402
from shared.services.ask import numbered  # noqa: E402

SECTIONS = True  # measured both ways: passages run on into their section
# The answerer this benchmark was written against (issue 11), kept in git, not in the tree.
BASELINE = "8ffd351"
BASELINE_PATH = "shared/retrieval/extractive.py"
# Two sentences of one answer are near duplicates when they share this much of their words.
NEAR_DUPLICATE = 0.6
# Openers that point back to something the reader was not shown, checked at the start of
# every quote (the text before a citation [n]): its antecedent would be in the same quote.
DANGLING = re.compile(
    r"^(esto|esta|este|estos|estas|eso|esa|ese|esos|esas|en (?:este|ese) caso|"
    r"en (?:estos|esos) casos|this|these|that|those|in this case)\b",
    re.IGNORECASE,
)
_CITATION = re.compile(r"\[(\d{1,3})\]")
_CLOSING = re.compile(r"^(Más detalles en|More in)\b")
_CITATIONS = re.compile(r"\[\d{1,3}\](?:\[\d{1,3}\])*")
_LABEL = re.compile(r"^\s*\w+:\s*\n", re.M)  # a list's label line ("Also:")
_FENCE = re.compile(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1[^\n]*$", re.M | re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def load_baseline(commit: str = BASELINE) -> types.ModuleType:
    """The extractive module as it was at ``commit`` (its imports resolve to today's tree)."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{BASELINE_PATH}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("baseline_extractive")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:{BASELINE_PATH}", "exec"), module.__dict__)
    return module


@dataclass
class Answer:
    """One answer to one question, with what the metrics need."""

    text: str
    slugs: list[str]  # the slug of each numbered source
    hedged: bool
    refused: bool


@dataclass
class Tally:
    """Sums over a set of answers; ``report`` turns them into shares and means."""

    answers: int = 0
    facts: int = 0
    facts_found: int = 0
    first_cited_right: int = 0
    code_asked: int = 0
    code_shown: int = 0
    duplicates: int = 0
    with_duplicates: int = 0
    dangling: int = 0
    hedged: int = 0
    words: int = 0
    misses: list[str] = field(default_factory=list)

    def report(self) -> dict[str, float]:
        n = max(self.answers, 1)
        return {
            "n": self.answers,
            "fact_recall": self.facts_found / max(self.facts, 1),
            "first_citation_right": self.first_cited_right / n,
            "code_shown": self.code_shown / max(self.code_asked, 1),
            "code_n": self.code_asked,
            "near_duplicates_per_answer": self.duplicates / n,
            "answers_with_near_duplicates": self.with_duplicates / n,
            "dangling_openers_per_answer": self.dangling / n,
            "hedged": self.hedged / n,
            "mean_words": self.words / n,
        }


def fact_found(fact: str, answer: str) -> bool:
    """Any of the fact's '|' alternatives at the start of a word of the answer (folded)."""
    text = fold(answer)
    return any(
        re.search(r"(?<![\w])" + re.escape(fold(alternative)), text)
        for alternative in fact.split("|")
    )


def prose_sentences(answer: str) -> list[str]:
    """The answer's quoted sentences: outside code blocks and the framing (its opening
    line and the closing list of pages), citations removed."""
    paragraphs = _FENCE.sub("\n", answer).split("\n\n")[1:]
    prose = "\n\n".join(p for p in paragraphs if not _CLOSING.match(p))
    pieces = (_CITATION.sub("", s).strip(" -*>\t") for s in _SENTENCE.split(prose))
    return [p for p in pieces if len(p.split()) >= 4]


def near_duplicates(answer: str) -> int:
    """How many sentences repeat one of another quote of the same answer in most of their
    words, or repeat any earlier sentence exactly. A quote is the text up to a citation:
    two consecutive sentences of one page that share words are the page's, not a repeat."""
    seen: list[tuple[int, str, set[str]]] = []
    count = 0
    body = answer.split("\n\n", 1)[-1]  # after the framing line
    for quote, text in enumerate(_CITATIONS.split(body)):
        for sentence in prose_sentences("\n\n" + text):
            words = set(tokens(sentence))
            if not words:
                continue
            if any(
                s == sentence or (q != quote and len(words & w) / len(words | w) >= NEAR_DUPLICATE)
                for q, s, w in seen
            ):
                count += 1
            seen.append((quote, sentence, words))
    return count


def dangling_openers(answer: str) -> int:
    """Quotes (the text up to a citation) that open with a back-reference. A list inside a
    quote is part of it: an item may point back to the item before it."""
    body = _FENCE.sub("\n", answer).split("\n\n", 1)[-1]  # the framing line is not a quote
    quotes = (_LABEL.sub("", q).strip(" -*>\t\n") for q in _CITATIONS.split(body))
    return sum(bool(DANGLING.match(q)) for q in quotes)


def first_citation(answer: str, slugs: Sequence[str]) -> str | None:
    for match in _CITATION.finditer(answer):
        n = int(match.group(1))
        if 1 <= n <= len(slugs):
            return slugs[n - 1]
    return None


def score(tally: Tally, item: dict[str, Any], answer: Answer) -> None:
    """Add one labelled question's answer to ``tally``."""
    tally.answers += 1
    tally.words += len(answer.text.split())
    facts = item.get("facts", [])
    found = [f for f in facts if fact_found(f, answer.text)]
    tally.facts += len(facts)
    tally.facts_found += len(found)
    right = first_citation(answer.text, answer.slugs) == item["page"]
    tally.first_cited_right += right
    if item.get("code"):
        tally.code_asked += 1
        tally.code_shown += fold(item["code"]) in fold(answer.text)
    repeats = near_duplicates(answer.text)
    tally.duplicates += repeats
    tally.with_duplicates += repeats > 0
    tally.dangling += dangling_openers(answer.text)
    tally.hedged += answer.hedged
    if not right or len(found) < len(facts):
        missing = [f for f in facts if f not in found]
        tally.misses.append(f"{item['q']!r}: first cited right={right}, missing facts {missing}")


@dataclass
class Retrieved:
    """What ``ask`` hands its answerer for one question, and the ranking it came from."""

    passages: list[Passage]
    ranked: list[Ranked]
    confidence: Confidence

    @property
    def best_fused(self) -> float:
        return evidence.best_fused(self.ranked)


def retrieve(store: Any, question: str) -> Retrieved:
    """The passages ``ask`` would answer from, with the functions ``ask`` uses."""
    embedder = shared_local_embedder()
    found = hybrid.retrieve(
        store.chunks,
        question,
        embedder.embed_query(question),
        embedder=embedder.name,
        filters=NONE,
        limit=DEFAULT_LIMIT,
    )
    cited = evidence.cited(found.ranked)
    rows = found.sections if SECTIONS else None
    confidence = evidence.confidence(found.ranked, cited)
    return Retrieved(numbered(cited, rows), found.ranked, confidence)


Answerer = Callable[[str, Retrieved], Answer]


def shipped(question: str, found: Retrieved) -> Answer:
    """The shipped answerer, as ``ask`` runs it (with its answer check)."""
    text = (
        LocalAnswerer()
        .answer(question, found.passages, mode="help", confidence=found.confidence)
        .text
    )
    checked = answer_checks.review(text, found.passages, found.confidence, language(question))
    return Answer(
        text=checked.text,
        slugs=[p.slug for p in found.passages],
        hedged=bool(found.passages) and checked.confidence == "low",
        refused=not found.passages,
    )


def baseline(module: types.ModuleType) -> Answerer:
    """The answerer of ``module`` (it never hedges)."""

    def answer(question: str, found: Retrieved) -> Answer:
        text = module.compose(question, found.passages)
        return Answer(
            text=text,
            slugs=[p.slug for p in found.passages],
            hedged=False,
            refused=text in NOTHING.values(),
        )

    return answer


def thresholds(
    questions: Sequence[dict[str, Any]],
    negatives: Sequence[dict[str, Any]],
    found: dict[str, Retrieved],
) -> dict[str, Any]:
    """The hedge's threshold against the alternative of a harder cosine bar, per split.

    For a best-fused threshold: the share of answerable questions hedged, and of
    neighbouring off-topic ones answered without a hedge. For a cosine bar (the gate's
    second condition raised): the share of answerable questions whose labelled page is no
    longer cited, and of off-topic ones still answered."""
    out: dict[str, Any] = {"hedge_below": {}, "cosine_bar": {}}
    near = [n for n in negatives if n["kind"] == "neighbouring"]
    for t in (0.24, 0.26, 0.28, 0.30, 0.32, 0.34, 0.36, 0.38, 0.40):
        row = {}
        for split in ("tune", "holdout"):
            pos = [found[q["q"]] for q in questions if q["split"] == split]
            neg = [found[n["q"]] for n in near if n["split"] == split]
            row[f"answerable hedged {split}"] = sum(f.best_fused < t for f in pos) / len(pos)
            row[f"neighbours unhedged {split}"] = sum(
                bool(f.passages) and f.best_fused >= t for f in neg
            ) / len(neg)
        out["hedge_below"][f"{t:.2f}"] = row
    for bar in (0.30, 0.32, 0.34, 0.36, 0.38, 0.40):
        row = {}

        def kept(f: Retrieved, bar: float = bar) -> list[Ranked]:
            return [
                r
                for r in f.ranked
                if r.fused >= evidence.MIN_FUSED or (r.dense_found and r.cosine >= bar)
            ]

        for split in ("tune", "holdout"):
            pos = [(q, found[q["q"]]) for q in questions if q["split"] == split]
            neg = [found[n["q"]] for n in near if n["split"] == split]
            row[f"answerable lose their page {split}"] = sum(
                q["page"] not in {r.slug for r in kept(f)} for q, f in pos
            ) / len(pos)
            row[f"neighbours answered {split}"] = sum(bool(kept(f)) for f in neg) / len(neg)
        out["cosine_bar"][f"{bar:.2f}"] = row
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--store", type=Path, help="keep the imported corpus in this folder")
    parser.add_argument("--show", type=int, nargs="*", default=[], help="print these answers")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"the corpus is not at {CORPUS}", file=sys.stderr)
        return 2
    data = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    questions, negatives = data["questions"], data["negatives"]
    systems: dict[str, Answerer] = {
        "shipped": shipped,
        f"before ({BASELINE})": baseline(load_baseline()),
    }

    with tempfile.TemporaryDirectory() as tmp:
        store, _ = open_corpus(args.store or Path(tmp))
        found = {q["q"]: retrieve(store, q["q"]) for q in [*questions, *negatives]}

    subsets: dict[str, Callable[[dict[str, Any]], bool]] = {
        "all": lambda q: True,
        "tune": lambda q: q["split"] == "tune",
        "holdout": lambda q: q["split"] == "holdout",
        "es": lambda q: q["lang"] == "es",
        "en": lambda q: q["lang"] == "en",
    }
    results: dict[str, Any] = {}
    shown: dict[int, dict[str, str]] = {i: {} for i in args.show}
    for name, system in systems.items():
        tallies = {subset: Tally() for subset in subsets}
        for i, item in enumerate(questions):
            answer = system(item["q"], found[item["q"]])
            if i in shown:
                shown[i][name] = answer.text
            for subset, keep in subsets.items():
                if keep(item):
                    score(tallies[subset], item, answer)
        off_topic: dict[str, dict[str, float]] = {}
        for split in ("tune", "holdout"):
            for kind in ("neighbouring", "unrelated"):
                chosen = [n for n in negatives if n["split"] == split and n["kind"] == kind]
                if not chosen:
                    continue
                answers = [system(n["q"], found[n["q"]]) for n in chosen]
                confident = sum(not a.hedged and not a.refused for a in answers)
                off_topic[f"{kind} {split}"] = {
                    "n": len(chosen),
                    "answered": confident / len(chosen),
                }
        results[name] = {
            "questions": {subset: t.report() for subset, t in tallies.items()},
            "off_topic_answered_without_hedge": off_topic,
            "misses": tallies["tune"].misses,
        }

    gates = thresholds(questions, negatives, found)
    if args.json:
        print(json.dumps({"results": results, "thresholds": gates}, indent=2))
        return 0
    print(
        f"{len(questions)} questions ({sum(q['split'] == 'holdout' for q in questions)} held out),"
        f" {len(negatives)} off-topic; same passages for every answerer"
    )
    header = (
        f"{'answerer':22} {'subset':8} {'facts':>6} {'1st':>6} {'code':>6} {'dup':>5} "
        f"{'dup%':>5} {'dangl':>6} {'hedge':>6} {'words':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, result in results.items():
        for subset, m in result["questions"].items():
            print(
                f"{name:22} {subset:8} {m['fact_recall']:6.3f} {m['first_citation_right']:6.3f} "
                f"{m['code_shown']:6.3f} {m['near_duplicates_per_answer']:5.2f} "
                f"{m['answers_with_near_duplicates']:5.2f} {m['dangling_openers_per_answer']:6.2f} "
                f"{m['hedged']:6.3f} {m['mean_words']:6.0f}"
            )
    print("off-topic answered without a hedge (share):")
    for name, result in results.items():
        cells = ", ".join(
            f"{k} {v['answered']:.2f} (n={v['n']:.0f})"
            for k, v in result["off_topic_answered_without_hedge"].items()
        )
        print(f"  {name}: {cells}")
    for name, table in gates.items():
        print(f"{name} (answerable: {len(questions)}; neighbouring off-topic per split):")
        for value, row in table.items():
            print(f"  {value}: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()))
    for i, texts in shown.items():
        print(f"\n=== {i}: {questions[i]['q']} -> {questions[i]['page']}")
        for name, text in texts.items():
            print(f"--- {name}\n{text}")
    if args.show_misses:
        for name, result in results.items():
            print(f"\n{name}: tuning questions with a missing fact or a wrong first citation")
            for miss in result["misses"]:
                print(f"  {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
