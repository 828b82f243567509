"""Answer quality on the labelled questions: retrieval, facts, first citation, confidence.

For each corpus of bench/corpora.py (``--corpus`` picks some), imports it into a throw-away
embedded store (as bench/retrieval.py does), retrieves every labelled question as ``ask``
does, and answers it with the shipped offline answerer and with the one of BASELINE (its
answerer and its confidence rule, read from git), on the same passages, in the same run.
It reports R@1 and R@5 of the passages, the facts an ideal answer holds, the first
citation, the confident-wrong rate (``high`` with a first citation on no labelled page)
and the off-topic questions answered ``high``, per split. Any shipped answer with markup
cut in half or a lone line ending in ':' is printed and the run exits 1.

With ``BIBLIOTECA_LLM`` naming a model (``openai`` and its ``BIBLIOTECA_LLM_*`` variables,
as a deployment sets them) that model answers too, beside the offline answerer on the
same passages, on the ``--model-split`` questions (holdout by default: a small local model
takes seconds an answer); its answers' markup problems are counted, not failed. ``sec`` is
the mean seconds spent answering (retrieval, shared by all, left out).

    .venv/bin/python bench/answers.py [--corpus NAME ...] [--json] [--store DIR]
        [--show N ...] [--show-misses] [--model-split SPLIT]
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpora import Corpus, chosen, labelled_pages, open_corpus  # noqa: E402
from retrieval import NONE  # noqa: E402

from shared.api.models import DEFAULT_LIMIT  # noqa: E402
from shared.bootstrap import build_generator  # noqa: E402
from shared.config import load_settings  # noqa: E402
from shared.errors import BibliotecaError  # noqa: E402
from shared.ports import Generator  # noqa: E402
from shared.providers.answerers import LocalAnswerer, ModelAnswerer  # noqa: E402
from shared.providers.local_embedder import shared_local_embedder  # noqa: E402
from shared.providers.model_http import ModelHttp  # noqa: E402
from shared.providers.openai_generator import OpenAIDialect, OpenAIGenerator  # noqa: E402
from shared.records import Confidence, Passage  # noqa: E402
from shared.retrieval import answer_checks, evidence, hybrid  # noqa: E402
from shared.retrieval.extractive import NOTHING  # noqa: E402
from shared.retrieval.fusion import Ranked  # noqa: E402
from shared.retrieval.tokens import tokens  # noqa: E402
from shared.services.ask import numbered  # noqa: E402
from shared.text.fold import fold  # noqa: E402
from shared.text.language import language  # noqa: E402

MODEL_DEADLINE_S = 300.0  # per answer of a configured model (configured_model)
INDEX = hybrid.IndexCache()  # this process's search index, as a wiring holds one
SECTIONS = True  # measured both ways: passages run on into their section
# The answerer and confidence rule of before issue 20, kept in git, not in the tree (the
# first bench of this file, issue 11, compared against 8ffd351).
BASELINE = "31ac6eb"
BASELINE_PATHS = ("shared/retrieval/extractive.py", "shared/retrieval/evidence.py")
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


# Where names the baseline imports have moved since (its imports resolve to today's tree).
MOVED = (
    "shared.records",
    "shared.retrieval.tokens",
    "shared.text.language",
    "shared.text.fold",
    "shared.text.plaintext",
)


def load_baseline(path: str, commit: str = BASELINE) -> types.ModuleType:
    """The module at ``path`` as it was at ``commit``, its imports resolved in today's
    tree: a name no longer where it was imported from is looked up where it moved."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("baseline_" + Path(path).stem)
    sys.modules[module.__name__] = module  # dataclasses look their module up
    lines = source.splitlines(keepends=True)
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("shared"):
            for alias in node.names:
                module.__dict__[alias.asname or alias.name] = _moved(node.module, alias.name)
            for at in range(node.lineno - 1, node.end_lineno or node.lineno):
                lines[at] = "\n"  # keeps the line numbers of tracebacks
    exec(compile("".join(lines), f"{commit}:{path}", "exec"), module.__dict__)
    return module


def _moved(origin: str | None, name: str) -> Any:
    """``name`` from ``origin``, or from the module it has moved to since."""
    for candidate in (origin or "", *MOVED):
        try:
            return getattr(importlib.import_module(candidate), name)
        except (ImportError, AttributeError):
            continue
    raise ImportError(f"the baseline imports {name} from {origin}, found nowhere today")


@dataclass
class Answer:
    """One answer to one question, with what the metrics need."""

    text: str
    slugs: list[str]  # the slug of each numbered source
    hedged: bool
    refused: bool
    failed: str = ""  # why the answerer gave no answer (a model server's error)

    @property
    def confident(self) -> bool:
        """Answered ``high``: sources given and no hedge."""
        return not self.hedged and not self.refused


@dataclass
class Tally:
    """Sums over a set of answers; ``report`` turns them into shares and means."""

    answers: int = 0
    found_first: int = 0  # a labelled page is the passages' first page (R@1)
    found_top5: int = 0  # among their first five pages (R@5)
    facts: int = 0
    facts_found: int = 0
    first_cited_right: int = 0
    confident_wrong: int = 0
    confident_no_fact: int = 0  # answered ``high`` holding none of the question's facts
    code_asked: int = 0
    code_shown: int = 0
    duplicates: int = 0
    with_duplicates: int = 0
    dangling: int = 0
    hedged: int = 0
    words: int = 0
    seconds: float = 0.0  # answering only: retrieval is shared by every answerer
    failed: int = 0  # no answer: the answerer's server failed
    misses: list[str] = field(default_factory=list)

    def report(self) -> dict[str, float]:
        n = max(self.answers, 1)
        return {
            "n": self.answers,
            "recall@1": self.found_first / n,
            "recall@5": self.found_top5 / n,
            "fact_recall": self.facts_found / max(self.facts, 1),
            "first_citation_right": self.first_cited_right / n,
            "confident_wrong": self.confident_wrong / n,
            "confident_no_fact": self.confident_no_fact / n,
            "code_shown": self.code_shown / max(self.code_asked, 1),
            "code_n": self.code_asked,
            "near_duplicates_per_answer": self.duplicates / n,
            "answers_with_near_duplicates": self.with_duplicates / n,
            "dangling_openers_per_answer": self.dangling / n,
            "hedged": self.hedged / n,
            "mean_words": self.words / n,
            "latency_s": self.seconds / n,
            "failed": self.failed / n,
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


_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[[^\[\]]*\]\([^()\s]*\)")
_TAG_OPEN = re.compile(r"<([a-zA-Z][\w-]*)\b[^<>]*>")
_TAG_CUT = re.compile(r"<[a-zA-Z/][^<>]*$")
_VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "source"}
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_EXAMPLE = re.compile(r"^(?:Ejemplo en el código|Example in the code): `")  # code, by its path
# A quote opening on the rest of a sentence chunking cut ("…](url), y también incluye:"
# once the link's tail is dropped): punctuation that only continues a sentence. A page's
# own "...", going on after its code block, is the page's writing.
_FRAGMENT = re.compile(r"^(?:[,;:)\]}»]|\.(?!\.\.))")


def markup_problems(answer: str) -> list[str]:
    """What a reader would see broken: inline HTML, a link, emphasis or a code span opened
    and not closed in a paragraph, a line ending in ':' that introduces nothing (no list
    or code follows, shown or named by its path), or a paragraph opening with punctuation
    that only continues a sentence (the tail of one chunking cut). The framing line (the
    first) introduces the quotes and is left out."""
    problems: list[str] = []
    body = _FENCE.sub("\n```\n", answer)  # a code block stands for itself
    lines = body.split("\n")
    for paragraph in re.split(r"\n\s*\n", _FENCE.sub("\n\n", answer))[1:]:
        if _FRAGMENT.match(paragraph.lstrip(" -*>")):
            problems.append(f"opens inside a sentence: {paragraph[:60]!r}")
    for i, line in enumerate(lines):
        bare = _CITATIONS.sub("", line).rstrip()
        if i > 0 and bare.endswith(":"):
            following = next((x for x in lines[i + 1 :] if x.strip()), "")
            if not (
                _ITEM.match(following) or following.startswith("```") or _EXAMPLE.match(following)
            ):
                problems.append(f"lone colon line: {bare[-60:]!r}")
    for paragraph in re.split(r"\n\s*\n", _FENCE.sub("\n\n", answer)):
        text = _CITATIONS.sub("", paragraph)
        # A backtick outside every whole span opens a cut one (a span may hold backticks
        # of another length: "` ``` `" shows ```).
        text = _CODE_SPAN.sub("x", text)  # a span is a word: not a space around a mark
        if "`" in text:
            problems.append(f"code span cut: {paragraph[-70:]!r}")
        if _TAG_CUT.search(text) or any(
            m.group(1).lower() not in _VOID and f"</{m.group(1).lower()}" not in text.lower()
            for m in _TAG_OPEN.finditer(text)
            if not m.group().endswith("/>")
        ):
            problems.append(f"inline HTML cut: {paragraph[-70:]!r}")
        rest = _LINK.sub("x", text)  # a link is a word too: "**[text](url)**" is emphasis
        if re.search(r"\]\(|\[[^\]]*$|^[^\[]*\]", rest, re.M):
            problems.append(f"link cut: {paragraph[-70:]!r}")
        stripped = re.sub(r"(?<!\S)\*+(?!\S)", " ", rest)  # "2 * 3" is no emphasis
        stripped = "\n".join(_ITEM.sub("", x) for x in stripped.split("\n"))
        if stripped.count("**") % 2 or stripped.replace("**", "").count("*") % 2:
            problems.append(f"emphasis cut: {paragraph[-70:]!r}")
    return problems


def score(
    tally: Tally, item: dict[str, Any], answer: Answer, found: Retrieved, seconds: float
) -> None:
    """Add one labelled question's answer, written in ``seconds``, to ``tally``."""
    right_pages = labelled_pages(item)
    tally.answers += 1
    tally.seconds += seconds
    tally.failed += bool(answer.failed)
    tally.found_first += bool(found.pages[:1]) and found.pages[0] in right_pages
    tally.found_top5 += bool(right_pages.intersection(found.pages[:5]))
    tally.words += len(answer.text.split())
    facts = item.get("facts", [])
    found_facts = [f for f in facts if fact_found(f, answer.text)]
    tally.facts += len(facts)
    tally.facts_found += len(found_facts)
    right = first_citation(answer.text, answer.slugs) in right_pages
    tally.first_cited_right += right
    tally.confident_wrong += answer.confident and not right
    tally.confident_no_fact += answer.confident and bool(facts) and not found_facts
    if item.get("code"):
        tally.code_asked += 1
        tally.code_shown += fold(item["code"]) in fold(answer.text)
    repeats = near_duplicates(answer.text)
    tally.duplicates += repeats
    tally.with_duplicates += repeats > 0
    tally.dangling += dangling_openers(answer.text)
    tally.hedged += answer.hedged
    if not right or len(found_facts) < len(facts):
        missing = [f for f in facts if f not in found_facts]
        tally.misses.append(
            f"{item['q']!r}: first cited right={right} (confident={answer.confident}), "
            f"missing facts {missing}, pages {found.pages[:3]}"
        )


@dataclass
class Retrieved:
    """What ``ask`` hands its answerer for one question, and the ranking it came from."""

    passages: list[Passage]
    ranked: list[Ranked]
    cited: list[Ranked]
    confidence: Confidence
    unmentioned: tuple[str, ...]

    @property
    def best_fused(self) -> float:
        return evidence.best_fused(self.ranked)

    @property
    def pages(self) -> list[str]:
        """The cited pages, best first (what R@k reads: the answer's material)."""
        return list(dict.fromkeys(r.slug for r in self.cited))


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
        state=INDEX.snapshot(store.chunks),
    )
    cited = evidence.cited(found.ranked)
    rows = found.sections if SECTIONS else None
    judgement = evidence.judge(question, found.ranked, cited, found.vocabulary)
    return Retrieved(
        numbered(cited, rows), found.ranked, cited, judgement.confidence, judgement.unmentioned
    )


Answerer = Callable[[str, Retrieved], Answer]


def as_asked(answerer: LocalAnswerer | ModelAnswerer) -> Answerer:
    """``answerer`` as ``ask`` runs it: on the retrieved passages, then its answer check."""

    def answer(question: str, found: Retrieved) -> Answer:
        try:
            text = answerer.answer(
                question,
                found.passages,
                mode="help",
                confidence=found.confidence,
                unmentioned=found.unmentioned,
            ).text
        except BibliotecaError as exc:  # a model server that failed: no answer, counted
            return Answer(text="", slugs=[], hedged=False, refused=True, failed=str(exc))
        checked = answer_checks.review(
            text,
            found.passages,
            found.confidence,
            language(question),
            unmentioned=found.unmentioned,
        )
        return Answer(
            text=checked.text,
            slugs=[p.slug for p in found.passages],
            hedged=bool(found.passages) and checked.confidence == "low",
            refused=not found.passages,
        )

    return answer


shipped = as_asked(LocalAnswerer())  # the shipped offline answerer


def configured_model(environ: Mapping[str, str]) -> tuple[str, Answerer] | None:
    """The language model ``BIBLIOTECA_LLM`` (and its variables) configures, named by what
    it records; None when it is ``local``. An OpenAI-compatible server is given
    MODEL_DEADLINE_S an answer (a small model on busy CPU cores reads a 1,500-token prompt
    in about a minute, past a deployment's 25 s); the latency column says what it took."""
    settings = load_settings(environ)
    generator: Generator | None
    if settings.llm == "openai":
        base_url, name = settings.require_llm_endpoint()
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        calls = ModelHttp(
            OpenAIDialect(key),
            base_url,
            httpx.Client(timeout=MODEL_DEADLINE_S),
            deadline_s=MODEL_DEADLINE_S,
            max_attempts=1,
        )
        generator = OpenAIGenerator(calls, name)
    else:
        generator = build_generator(settings)
    if generator is None:
        return None
    return generator.name, as_asked(ModelAnswerer(generator, settings.llm_max_tokens))


def baseline(answerer: types.ModuleType, rule: types.ModuleType) -> Answerer:
    """The answerer of BASELINE with its own confidence rule, on the same passages."""

    def answer(question: str, found: Retrieved) -> Answer:
        confidence = rule.confidence(found.ranked, found.cited)
        text = answerer.compose(question, found.passages, confidence)
        return Answer(
            text=text,
            slugs=[p.slug for p in found.passages],
            hedged=bool(found.passages) and confidence == "low",
            refused=text in NOTHING.values(),
        )

    return answer


def subsets(lang: str) -> dict[str, Callable[[dict[str, Any]], bool]]:
    """The splits reported for a corpus written in ``lang``: a question in another
    language is cross-language ("cross"), one in ``lang`` same-language ("same")."""
    return {
        "all": lambda q: True,
        "tune": lambda q: q["split"] == "tune",
        "holdout": lambda q: q["split"] == "holdout",
        "same hold": lambda q: q["lang"] == lang and q["split"] == "holdout",
        "cross tune": lambda q: q["lang"] != lang and q["split"] == "tune",
        "cross hold": lambda q: q["lang"] != lang and q["split"] == "holdout",
    }


def measure(
    corpus: Corpus,
    store_dir: Path,
    systems: dict[str, Answerer],
    show: Sequence[int],
    only: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """One corpus: every system's figures per subset, off-topic answered ``high``, the
    shipped answers' markup problems, and the answers asked for by ``show``. A system
    that ``only`` names answers the questions of that split alone (a slow model)."""
    data = corpus.labelled()
    questions, negatives = data["questions"], data["negatives"]
    store, _ = open_corpus(corpus, store_dir)
    found = {q["q"]: retrieve(store, q["q"]) for q in [*questions, *negatives]}
    results: dict[str, Any] = {}
    broken: list[str] = []
    shown: dict[int, dict[str, str]] = {i: {} for i in show}
    for name, system in systems.items():
        split_of = (only or {}).get(name)
        splits = subsets(corpus.lang)
        tallies = {subset: Tally() for subset in splits}
        marked = 0  # answers with a markup problem
        for i, item in enumerate(questions):
            if split_of and item["split"] != split_of:
                continue
            started = time.perf_counter()
            answer = system(item["q"], found[item["q"]])
            seconds = time.perf_counter() - started
            if i in shown:
                shown[i][name] = answer.text
            problems = markup_problems(answer.text)
            marked += bool(problems)
            if name == "shipped":
                broken += [f"{item['q']!r}: {p}" for p in problems]
            for subset, keep in splits.items():
                if keep(item):
                    score(tallies[subset], item, answer, found[item["q"]], seconds)
        off_topic: dict[str, dict[str, float]] = {}
        for split in ("tune", "holdout"):
            if split_of and split != split_of:
                continue
            for kind in ("neighbouring", "unrelated"):
                chosen_ = [n for n in negatives if n["split"] == split and n["kind"] == kind]
                if not chosen_:
                    continue
                answers = [system(n["q"], found[n["q"]]) for n in chosen_]
                if name == "shipped":
                    broken += [
                        f"{n['q']!r}: {p}"
                        for n, a in zip(chosen_, answers, strict=True)
                        for p in markup_problems(a.text)
                    ]
                off_topic[f"{kind} {split}"] = {
                    "n": len(chosen_),
                    "answered_high": sum(a.confident for a in answers) / len(chosen_),
                }
        results[name] = {
            "questions": {s: t.report() for s, t in tallies.items() if t.answers},
            "off_topic_answered_high": off_topic,
            "misses": tallies["tune"].misses,
            "answers_with_markup_problems": marked,
        }
    return {
        "results": results,
        "thresholds": thresholds(questions, negatives, found),
        "markup_problems": broken,
        "shown": {f"{i}: {questions[i]['q']}": texts for i, texts in shown.items()},
    }


def thresholds(
    questions: Sequence[dict[str, Any]],
    negatives: Sequence[dict[str, Any]],
    found: dict[str, Retrieved],
) -> dict[str, Any]:
    """The best-fused hedge threshold, per split: the share of answerable questions
    hedged by it alone, and of neighbouring off-topic ones left confident."""
    out: dict[str, Any] = {}
    near = [n for n in negatives if n["kind"] == "neighbouring"]
    for t in (0.26, 0.30, 0.34, 0.38):
        row = {}
        for split in ("tune", "holdout"):
            pos = [found[q["q"]] for q in questions if q["split"] == split]
            neg = [found[n["q"]] for n in near if n["split"] == split]
            row[f"answerable hedged {split}"] = sum(f.best_fused < t for f in pos) / len(pos)
            row[f"neighbours unhedged {split}"] = sum(
                bool(f.passages) and f.best_fused >= t for f in neg
            ) / max(len(neg), 1)
        out[f"{t:.2f}"] = row
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", help="names of bench/corpora.py (all)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--store", type=Path, help="keep each imported corpus in DIR/<name>")
    parser.add_argument("--show", type=int, nargs="*", default=[], help="print these answers")
    parser.add_argument("--show-misses", action="store_true", help="tuning misses only")
    parser.add_argument(
        "--model-split",
        default="holdout",
        help="the split the model BIBLIOTECA_LLM configures answers (tune, holdout, all)",
    )
    args = parser.parse_args(argv)
    systems: dict[str, Answerer] = {
        "shipped": shipped,
        f"before ({BASELINE})": baseline(*(load_baseline(p) for p in BASELINE_PATHS)),
    }
    only: dict[str, str] = {}
    model = configured_model(os.environ)
    if model is not None:  # beside the offline answerer, on the same passages
        systems[model[0]] = model[1]
        if args.model_split != "all":
            only[model[0]] = args.model_split
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in chosen(args.corpus):
            if not corpus.docs_dir.is_dir():
                print(f"the corpus is not at {corpus.docs_dir}", file=sys.stderr)
                return 2
            out[corpus.name] = measure(
                corpus, (args.store or Path(tmp)) / corpus.name, systems, args.show, only
            )
    broken = sum(len(o["markup_problems"]) for o in out.values())
    if args.json:
        print(json.dumps(out, indent=2))
        return 1 if broken else 0
    for name, o in out.items():
        report(name, o, args.show_misses)
    if broken:
        print(f"\nFAILED: {broken} shipped answers with markup cut in half or a lone ':' line")
        return 1
    return 0


def report(corpus: str, o: dict[str, Any], show_misses: bool) -> None:
    """One corpus's figures as text."""
    print(f"\n## {corpus}: same passages for every answerer")
    header = (
        f"{'answerer':24} {'subset':10} {'n':>3} {'R@1':>6} {'R@5':>6} {'facts':>6} "
        f"{'1st':>6} {'cwrong':>6} {'cnofct':>6} {'code':>6} {'dup':>5} {'dangl':>6} {'hedge':>6} "
        f"{'words':>6} {'sec':>6} {'fail':>5}"
    )
    print(header)
    print("-" * len(header))
    for name, result in o["results"].items():
        for subset, m in result["questions"].items():
            print(
                f"{name:24} {subset:10} {m['n']:3.0f} {m['recall@1']:6.3f} {m['recall@5']:6.3f} "
                f"{m['fact_recall']:6.3f} {m['first_citation_right']:6.3f} "
                f"{m['confident_wrong']:6.3f} {m['confident_no_fact']:6.3f} "
                f"{m['code_shown']:6.3f} "
                f"{m['near_duplicates_per_answer']:5.2f} {m['dangling_openers_per_answer']:6.2f} "
                f"{m['hedged']:6.3f} {m['mean_words']:6.0f} {m['latency_s']:6.2f} "
                f"{m['failed']:5.2f}"
            )
    print("off-topic answered high (share):")
    for name, result in o["results"].items():
        cells = ", ".join(
            f"{k} {v['answered_high']:.2f} (n={v['n']:.0f})"
            for k, v in result["off_topic_answered_high"].items()
        )
        print(
            f"  {name}: {cells}; answers with markup problems: "
            f"{result['answers_with_markup_problems']}"
        )
    print("hedge by best fused alone (answerable hedged / neighbours unhedged):")
    for value, row in o["thresholds"].items():
        print(f"  {value}: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()))
    for problem in o["markup_problems"]:
        print(f"  MARKUP {problem}")
    for question, texts in o["shown"].items():
        print(f"\n=== {question}")
        for name, text in texts.items():
            print(f"--- {name}\n{text}")
    if show_misses:
        for name, result in o["results"].items():
            print(f"\n{name}: tuning questions with a missing fact or a wrong first citation")
            for miss in result["misses"]:
                print(f"  {miss}")


if __name__ == "__main__":
    sys.exit(main())
