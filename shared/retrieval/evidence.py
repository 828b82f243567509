"""Which retrieved chunks an answer may cite, with the rest of their section, and how
strong that evidence is (pure): "low" when nothing passes the gate, the best match is
weak, the question names something the wiki never mentions, or the lead page does not
hold what the question is about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from shared.records import Confidence
from shared.retrieval.fusion import Ranked
from shared.retrieval.reading import may_open_on_tail
from shared.retrieval.tokens import name_tokens, named_terms, query_groups, tokens

# A chunk is relevant when its fused score or its cosine alone reaches these
# (bench/README.md: measured on answerable and off-topic questions).
MIN_FUSED = 0.24
MIN_COSINE = 0.30
# A cited chunk runs on into the next chunks of its section up to this length, so a chunk
# cut before its code or the rest of its list still carries them (bench/answers.py).
SECTION_CHARS = 1200
# The lead passage (the answer's first) runs on past its heading into the page's next
# sections up to this length: what makes a section actionable is often the subsection
# right after it (the parameter, the import, the code), 28 of the 38 facts the tuning
# answers missed on a right lead page sat in a following section (bench/README.md).
LEAD_RUN_CHARS = 1800
# Under this best fused score the wiki does not seem to treat the question directly: the
# answer says so before giving the closest it has (chosen in bench/answers.py). Once the
# question's own words are judged too (``judge``), 0.28 hedges 4 fewer right answers than
# 0.30 on the tuning splits, and no more wrong leads or neighbouring-tech questions: every
# one of those between 0.28 and 0.30 is low for another reason.
HEDGE_BELOW = 0.28
# The lead page's cited passages must hold at least this share of the question's words
# (each weighted by its idf, a word the wiki never uses left out; a glossary translation
# counts as the word): under it the best page is about something else (bench/answers.py).
LEAD_SHARE = 0.30
# When the second page's relevance is at least this share of the lead's, the lead is a
# toss-up between two pages (bench/answers.py, tuning splits of the three corpora)...
LEAD_MARGIN = 0.90
# ...unless the lead chunk itself is close in meaning to the question: among the toss-ups
# no other rule hedged, a lead cosine of at least this (the offline embedder's scale) was
# right 14 times of 22 and wrong once of 13; margin, coverage and the pages' shares of
# the question's words told them apart no better than chance (bench/README.md).
LEAD_COSINE = 0.50


class Vocabulary(Protocol):
    """What the wiki's words are, as the lexical index knows them (no store read)."""

    def idf(self, token: str) -> float | None: ...


@dataclass(frozen=True, slots=True)
class Judgement:
    """How far the evidence answers the question: ``confidence``, and the names the
    question uses that the wiki never mentions (the hedge says them)."""

    confidence: Confidence
    unmentioned: tuple[str, ...] = ()


class Section(Protocol):
    """A chunk as a passage runs on into it: its heading and its text."""

    @property
    def heading(self) -> str: ...
    @property
    def text(self) -> str: ...


def relevant(chunk: Ranked) -> bool:
    """Whether a retrieved chunk is worth citing at all."""
    return chunk.fused >= MIN_FUSED or (chunk.dense_found and chunk.cosine >= MIN_COSINE)


def cited(ranked: Sequence[Ranked]) -> list[Ranked]:
    """The chunks of ``ranked`` that pass the relevance gate, in order."""
    return [r for r in ranked if relevant(r)]


def best_fused(ranked: Sequence[Ranked]) -> float:
    """The best fused score among the chunks considered: how well the wiki matches at all."""
    return max((r.fused for r in ranked), default=0.0)


def confidence(ranked: Sequence[Ranked], chosen: Sequence[Ranked]) -> Confidence:
    """``low`` when nothing is cited or the best match is weak, else ``high`` (the score
    alone: ``judge`` adds what the question's words say)."""
    return "high" if chosen and best_fused(ranked) >= HEDGE_BELOW else "low"


def unmentioned(question: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The names in ``question`` (technologies, APIs, identifiers: ``text.named_terms``)
    that no chunk of the wiki contains in any form the index knows."""
    return tuple(
        name
        for name in named_terms(question)
        if all(vocabulary.idf(t) is None for t in name_tokens(name))
    )


def judge(
    question: str, ranked: Sequence[Ranked], chosen: Sequence[Ranked], vocabulary: Vocabulary
) -> Judgement:
    """``high`` only when the evidence answers the question: something is cited, the best
    match is strong enough, every name the question uses is in the wiki, the lead page
    holds the question's words (``lead_share``), the names it uses and more than them
    (``names_only``), and no other page comes as close as LEAD_MARGIN to it unless the
    lead is close in meaning (``toss_up``)."""
    missing = unmentioned(question, vocabulary)
    if missing:
        return Judgement("low", missing)
    if confidence(ranked, chosen) == "low":
        return Judgement("low")
    held = lead_tokens(chosen)
    if lead_share(question, held, vocabulary) < LEAD_SHARE or unheld_names(question, held):
        return Judgement("low")
    if names_only(question, held, vocabulary):
        return Judgement("low")
    if toss_up(chosen):
        return Judgement("low")
    return Judgement("high")


def toss_up(chosen: Sequence[Ranked]) -> bool:
    """Whether the lead page is a coin toss: another page comes within LEAD_MARGIN of it
    and the lead chunk's cosine is under LEAD_COSINE (a lead that close in meaning to the
    question was right, whichever page came second)."""
    return runner_up_share(chosen) >= LEAD_MARGIN and chosen[0].cosine < LEAD_COSINE


def runner_up_share(chosen: Sequence[Ranked]) -> float:
    """The best other page's relevance as a share of the lead page's (0 with one page)."""
    lead = chosen[0]
    other = next((r for r in chosen if r.slug != lead.slug), None)
    if other is None or lead.relevance <= 0:
        return 0.0
    return other.relevance / lead.relevance


def lead_tokens(chosen: Sequence[Ranked]) -> set[str]:
    """The index tokens of the lead page's cited passages (title and heading included)."""
    lead = chosen[0].slug
    return {
        t for r in chosen if r.slug == lead for t in tokens(f"{r.title}\n{r.heading}\n{r.text}")
    }


def lead_share(question: str, held: set[str], vocabulary: Vocabulary) -> float:
    """The share of the question's words (idf-weighted) that the lead page holds in one of
    their forms; 1.0 when none of its words is in the wiki (nothing to weigh)."""
    return _held_share(query_groups(question), held, vocabulary)


def _held_share(groups: Sequence[tuple[str, ...]], held: set[str], vocabulary: Vocabulary) -> float:
    """``lead_share`` of these word groups (a word the wiki never uses left out)."""
    total = found = 0.0
    for group in groups:
        weight = max((v for t in group if (v := vocabulary.idf(t)) is not None), default=None)
        if weight is None:
            continue
        total += weight
        found += weight if held.intersection(group) else 0.0
    return found / total if total else 1.0


def names_only(question: str, held: set[str], vocabulary: Vocabulary) -> bool:
    """Whether the lead page holds the question's names and none of its other words the
    wiki uses: it names the technology the question asks about ("Django REST Framework",
    on a page comparing frameworks) without a word of what is asked of it (a serializer,
    nested objects). A question of names alone is left to the other rules."""
    names = frozenset(t for name in named_terms(question) for t in name_tokens(name))
    if not names:
        return False
    others = [g for g in query_groups(question) if not names.intersection(g)]
    if not any(vocabulary.idf(t) is not None for g in others for t in g):
        return False
    return _held_share(others, held, vocabulary) == 0.0


def unheld_names(question: str, held: set[str]) -> list[str]:
    """Names of the question (capitalised or code-shaped; all-capital acronyms such as
    HTTP or API are generic words) that the lead page never says: a page about Textual's
    own widgets does not answer how Rich draws one."""
    return [
        name
        for name in named_terms(question)
        if not name.isupper() and not held.intersection(name_tokens(name))
    ]


def section_text(
    chunk: Ranked,
    rows: Mapping[tuple[str, int], Section],
    cited: Sequence[Ranked],
    *,
    lead: bool = False,
) -> str:
    """The chunk's text run on into the following chunks of its section that are not
    cited themselves, up to SECTION_CHARS; the overlap chunking carried over is dropped.
    The ``lead`` passage runs on past its heading too, up to LEAD_RUN_CHARS, each new
    section opening on its heading line. A chunk that opens on the tail of a paragraph
    cut by chunking opens on all of that paragraph (``whole_opening``)."""
    text = whole_opening(chunk, rows)
    taken = {(c.slug, c.ordinal) for c in cited}
    budget = LEAD_RUN_CHARS if lead else SECTION_CHARS
    heading = chunk.heading
    ordinal = chunk.ordinal + 1
    while (chunk.slug, ordinal) not in taken and len(text) < budget:
        following = rows.get((chunk.slug, ordinal))
        if following is None or (following.heading != heading and not lead):
            break
        head, _, rest = following.text.partition("\n\n")
        added = rest if rest and text.rstrip().endswith(head.strip()) else following.text
        if following.heading != heading:
            added = f"{heading_line(following.heading)}\n\n{following.text}"
            heading = following.heading
        if len(text) + len(added) > budget:
            break
        text = f"{text}\n\n{added}"
        ordinal += 1
    return text


def heading_line(path: str) -> str:
    """A heading path's last heading as a Markdown heading line: what a passage that runs
    into another section shows where it begins (no answer quotes a heading line)."""
    return "#### " + path.rsplit(" › ", 1)[-1].strip()


def whole_opening(chunk: Ranked, rows: Mapping[tuple[str, int], Section]) -> str:
    """``chunk.text`` with its first paragraph made whole when it is the tail chunking
    carried over from the chunk before (same section): that chunk's last paragraph, of
    which it is the end, stands in its place, so a quote can open where its sentence
    does (on astro-es a list's lead-in was left as ", y también incluye:")."""
    before = rows.get((chunk.slug, chunk.ordinal - 1))
    if before is None or before.heading != chunk.heading or not may_open_on_tail(chunk.text):
        return chunk.text
    head, sep, rest = chunk.text.partition("\n\n")
    last = before.text.rstrip().rsplit("\n\n", 1)[-1]
    if not head.strip() or len(last) <= len(head.strip()) or not last.endswith(head.strip()):
        return chunk.text
    if last.lstrip().startswith(("```", "~~~")):
        return chunk.text
    return f"{last}{sep}{rest}"
