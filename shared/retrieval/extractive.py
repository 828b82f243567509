"""The offline answer (pure): the best page's most relevant passage in its own order, its
code when asked how, and a sentence or two from other pages that add something; cited [n].
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from shared.records import Passage
from shared.retrieval import framing
from shared.retrieval.intent import asks_how, asks_what_is
from shared.retrieval.reading import (
    CODE_SPAN,
    Unit,
    continues_cut,
    sentences,
    stands_alone,
    units,
)
from shared.retrieval.tokens import query_groups, tokens
from shared.text.language import language

__all__ = ["FRAMING", "HEDGE", "NOTHING", "compose", "sentences"]

MAX_LEAD_CHARS = 520  # about a chunk's prose: a paragraph, not a page
MAX_EXTRA = 2  # sentences from other pages
MAX_CODE_LINES = 40
MAX_ITEMS = 8  # of a list a quoted lead-in introduces
NEAR_DUPLICATE = 0.5  # share of words two sentences may have in common
LEAD_MARGIN = 1.5  # how much more another passage of the best page must quote to lead
CODE_BONUS = 1.5  # what a passage's code is worth, in that comparison, for a 'how' question
MAX_EXTRA_CHARS = 300
EXTRA_SHARE = 0.4  # an extra sentence holds at least this share of the question's weight
MAX_ACTION_UNITS = 12  # how far past an introducing quote its actionable sentence may be

NOTHING = {
    "es": "No encontré información sobre esto en la wiki. Prueba a reformular la pregunta "
    "o consulta a quien mantiene la documentación.",
    "en": "I couldn't find anything about this in the wiki. Try rephrasing the question, "
    "or ask the people who maintain the documentation.",
}
HEDGE = framing.HEDGE
_EXAMPLE = {"es": "Ejemplo en el código:", "en": "Example in the code:"}
_ALSO = {"es": "También:", "en": "Also:"}
_SEE = {"es": "Más detalles en", "en": "More in"}


@dataclass(frozen=True, slots=True)
class Framing:
    """The words an answer wears around what it quotes, in every language it speaks:
    what an answer turned into a page (``shared.retrieval.answer_page``) takes off again."""

    openings: tuple[str, ...]  # a whole first paragraph: "Según la wiki:", the hedges
    closings: tuple[str, ...]  # a last paragraph opening with one: "Más detalles en"
    labels: tuple[str, ...]  # a line introducing extras: "También:"
    # How an opening that names things begins ("La wiki no menciona …; lo más cercano:"):
    # such an opening runs from one of these to its first colon.
    prefixes: tuple[str, ...] = ()


def _openings() -> tuple[str, ...]:
    found = []
    for lang in ("es", "en"):
        for quotes in (None, "es", "en"):
            found += [framing.lead(lang, quotes), framing.hedge(lang, (), quotes)]
    return tuple(dict.fromkeys(found))


FRAMING = Framing(
    openings=_openings(),
    closings=tuple(_SEE.values()),
    labels=tuple(_ALSO.values()),
    prefixes=framing.hedge_openings(),
)

# Openers that point back to something said before: quoted without it, they dangle.
_POINTING = (
    r"esto|esta|este|estos|estas|eso|esa|ese|esos|esas|ello|"
    r"en (?:este|ese) caso|en (?:estos|esos) casos|de esta (?:manera|forma)|"
    r"this|these|that|those|it|in this case|in these cases"
)
_DANGLING = re.compile(rf"^(?:{_POINTING})\b", re.IGNORECASE)
# A sentence quoted alone from another page must not continue one either.
_CONTINUING = re.compile(
    rf"^(?:{_POINTING}|as[ií] que|entonces|por lo tanto|por eso|luego|despu[eé]s|"
    r"tambi[eé]n|adem[aá]s|pero|y|o|sin embargo|so|then|also|but|and|or|however|"
    r"here|now|hence)\b",
    re.IGNORECASE,
)


def dangles(sentence: str) -> bool:
    """Whether a sentence opens by pointing back ("Esto…", "En este caso…", "These…")."""
    return bool(_DANGLING.match(sentence.lstrip("*_ ")))


def continues(sentence: str) -> bool:
    """Whether a sentence reads as the next step of another ("También…", "Luego…")."""
    return bool(_CONTINUING.match(sentence.lstrip("*_ ")))


@dataclass(frozen=True, slots=True)
class _Read:
    """A passage read for the question: its units and which question words each has."""

    passage: Passage
    units: list[Unit]
    matched: list[frozenset[int]]  # per unit: indexes of the question's word groups found

    def says(self, window: Iterable[int]) -> frozenset[int]:
        """The question's word groups the units of ``window`` hold between them."""
        return frozenset().union(*(self.matched[i] for i in window))


@dataclass(frozen=True, slots=True)
class _Weights:
    """How much each of the question's word groups says: rarer among the passages' units
    counts more (an idf over what was retrieved), so "opcional" outweighs "parámetro"."""

    of: tuple[float, ...]

    def __call__(self, matched: frozenset[int]) -> float:
        return sum(self.of[i] for i in matched)


def _read(passage: Passage, groups: Sequence[tuple[str, ...]]) -> _Read:
    found = units(passage.text)
    matched = []
    for unit in found:
        words = set(tokens(unit.text)) if unit.prose else set()
        matched.append(frozenset(i for i, g in enumerate(groups) if words.intersection(g)))
    return _Read(passage, found, matched)


def _weights(reads: Sequence[_Read], count: int) -> _Weights:
    prose = [m for r in reads for u, m in zip(r.units, r.matched, strict=True) if u.prose]
    n = max(len(prose), 1)
    return _Weights(tuple(math.log(1 + n / (1 + sum(i in m for m in prose))) for i in range(count)))


def compose(
    question: str,
    passages: Sequence[Passage],
    confidence: Literal["high", "low"] = "high",
    unmentioned: Sequence[str] = (),
) -> str:
    """A Markdown answer built from ``passages`` (already judged relevant), or NOTHING.

    With ``confidence`` "low" it opens by saying the wiki does not seem to treat the
    question directly (or does not mention ``unmentioned``, the question's names it never
    uses), then gives the closest passage all the same.
    """
    lang = language(question)
    if not passages:
        return NOTHING[lang]
    groups = query_groups(question)
    reads = [_read(p, groups) for p in passages]
    weight = _weights(reads, len(groups))
    how = asks_how(question)
    lead, window = _lead(reads, weight, how, asks_what_is(question))
    number = lead.passage.number
    quoted = [lead.units[i] for i in window if lead.units[i].prose]
    covered = lead.says(window)
    shown = _shown(lead, window, how)
    body: list[str] = []
    if shown:
        body.append(_cite(_render(shown, lang), number))
    cited = [number]
    if how and all(u.prose or u.aside for u in shown):
        code = _code(lead, window, reads, shown)
        if code is not None:
            unit, source = code
            body.append(_cite(_render([unit], lang), source))
            cited.append(source)
    extras = _extras(reads, lead, quoted, covered, weight)
    if extras:
        body.append(_ALSO[lang] + "\n" + "\n".join(f"- {text} [{n}]" for text, n in extras))
    cited += [n for _, n in extras]
    quoted_text = " ".join([*(u.text for u in quoted), *(t for t, _ in extras)])
    quotes_lang = language(quoted_text) if quoted_text else None
    if confidence == "low":
        opening = framing.hedge(lang, unmentioned, quotes_lang)
    else:
        opening = framing.lead(lang, quotes_lang)
    if not body:  # nothing quotable: point to the best page
        first = passages[0]
        see = f"{_SEE[lang]} **{first.title}** › {first.heading} [{first.number}]."
        return f"{opening}\n\n{see}"
    pages = ", ".join(
        f"**{title}**{_section(lead.passage) if title == lead.passage.title else ''} "
        f"[{']['.join(str(n) for n in numbers)}]"
        for title, numbers in _by_page(passages, cited).items()
    )
    return "\n\n".join([opening, *body, f"{_SEE[lang]}: {pages}."])


def _section(passage: Passage) -> str:
    """ " › <its section>" for the closing line's lead page: where on the page the quote
    is, in the page's own words (a heading often names the API: "Lanza un
    `HTTPException`"); nothing for a passage under the page's title alone."""
    heading = passage.heading.rsplit(" › ", 1)[-1].strip()
    return f" › {heading}" if heading and heading != passage.title else ""


def _shown(lead: _Read, window: list[int], how: bool) -> list[Unit]:
    """The lead passage's units the answer quotes: the window and what introduces it, each
    once, and for a "how" question the step after it (``_what_to_do``)."""
    shown: list[Unit] = []
    for unit in (lead.units[i] for i in _introduced(lead.units, window, how)):
        # A page may include one example twice (other lines highlighted): show it once.
        if all((u.kind, u.text) != (unit.kind, unit.text) for u in shown):
            shown.append(unit)
        elif shown and shown[-1].prose and shown[-1].text.endswith(":"):
            shown.pop()  # its lead-in would introduce nothing: the example is shown above
    if how:
        acts = any(_actionable(u) for u in shown)
        shown += [u for u in _what_to_do(lead, window, on_topic=acts) if u not in shown]
    return shown


def _lead(
    reads: Sequence[_Read], weight: _Weights, how: bool, defining: bool = False
) -> tuple[_Read, list[int]]:
    """The best page's passage to quote, and which of its units: for a definition question
    (``defining``) its opening sentence that names the question's term, else its
    best-ranked passage unless another of its passages says clearly more of the question
    (LEAD_MARGIN times; a passage with code counts CODE_BONUS times more when the
    question asks how)."""
    page = [r for r in reads if r.passage.slug == reads[0].passage.slug]

    def said(option: tuple[_Read, list[int]]) -> float:
        read, window = option
        value = weight(read.says(window))
        has_code = any(not u.prose for u in read.units)
        return value * (CODE_BONUS if how and has_code else 1.0)

    if defining:
        defined = _definition(page)
        if defined is not None:
            return defined
    options = [(r, _window(r, weight)) for r in page]
    best = options[0]
    for option in options[1:]:
        if said(option) > LEAD_MARGIN * said(best):
            best = option
    if not best[1]:  # nothing opens a quote: the lead passage's first sentence, pointing or not
        best = (best[0], _window(best[0], weight, pointing=True))
    return best


def _window(read: _Read, weight: _Weights, *, pointing: bool = False) -> list[int]:
    """Indexes of the units to quote from a passage, in order.

    Every clean opening (not a fragment cut by chunking, not a sentence pointing back to
    what the passage lacks; a list opens at its lead-in) starts a candidate quote that
    runs on through the prose up to MAX_LEAD_CHARS, past asides (admonitions) that say
    nothing of the question. The candidate saying most of the question wins, the
    earliest on a tie: so the quote keeps the text between the matches, in its order.
    Code between quoted sentences, or right after a lead-in (':'), is part of the quote.
    When no word of the question matches, the first clean quote stands. With ``pointing``
    (``_lead``'s last resort) the passage's first sentence may open a quote even when it
    points back ("This can be disabled per page…"): the closing line names the section
    it points to (``_section``).
    """
    units_ = read.units
    # Nothing may match word for word (an English question over a Spanish page found by
    # meaning): the first clean quote stands then.
    best: tuple[float, list[int]] = (-1.0, [])
    for start, unit in enumerate(units_):
        first = pointing and start == 0 and not continues_cut(unit.text)
        if not unit.prose or not (first or _opens(units_, start)):
            continue
        chosen = _quote_from(read, start)
        said = weight(read.says(chosen))
        if said > best[0]:
            best = (said, chosen)
    return _without_dangling_lead_ins(units_, best[1])


def _quote_from(read: _Read, start: int) -> list[int]:
    """The units a quote opening at ``start`` runs on through (see ``_window``)."""
    units_ = read.units
    chosen: list[int] = []
    pending: list[int] = []  # code seen since the last quoted sentence
    length = 0
    for i in range(start, len(units_)):
        here = units_[i]
        if not here.prose:
            pending.append(i)
            continue
        if here.aside and not read.matched[i] and i != start:
            continue
        if chosen and length + len(here.text) > MAX_LEAD_CHARS:
            break
        chosen += [*pending, i]
        pending = []
        length += len(here.text)
    if pending and units_[chosen[-1]].text.endswith(":"):
        chosen.append(pending[0])  # the code a lead-in introduces
    return chosen


def _definition(page: Sequence[_Read]) -> tuple[_Read, list[int]] | None:
    """For a definition question: the quote opening on the first sentence of the page's
    first paragraph that names a word of the question (the passage at the page's top,
    outside asides), or None when the passages lack the page's top or it names none."""
    for read in page:
        if read.passage.heading not in ("", read.passage.title):
            continue  # a section's passage: the page's opening is under its title only
        prose = [i for i, u in enumerate(read.units) if u.prose and not u.aside]
        first = [i for i in prose if read.units[i].block == read.units[prose[0]].block]
        for i in first if prose else []:
            if read.matched[i] and _opens(read.units, i):
                return read, _without_dangling_lead_ins(read.units, _quote_from(read, i))
    return None


def _introduced(units_: Sequence[Unit], window: Sequence[int], how: bool) -> list[int]:
    """The units of ``window`` to show, each lead-in (a sentence ending in ':') followed by
    what it introduces: the code or example right after it, or its list (MAX_ITEMS items
    at most); a lead-in the page follows with neither is not shown. Code elsewhere in the
    window is shown only when the question asks how."""
    shown = [i for i in window if how or units_[i].prose]
    out: list[int] = []
    for n, i in enumerate(shown):
        unit = units_[i]
        if not (unit.prose and unit.text.endswith(":")):
            out.append(i)
            continue
        following = i + 1
        if following >= len(units_) or units_[following].kind == "sentence":
            continue  # it introduces nothing a reader would be shown
        if units_[following].kind != "item":
            out += [i, following]  # its code, or the example it names
            continue
        if n + 1 < len(shown) and shown[n + 1] == following:
            out.append(i)  # its list is quoted already
            continue
        items = [following]
        while (
            len(items) < MAX_ITEMS
            and items[-1] + 1 < len(units_)
            and units_[items[-1] + 1].kind == "item"
            and units_[items[-1] + 1].block == units_[following].block
        ):
            items.append(items[-1] + 1)
        out += [i, *items]
    return sorted(set(out))


def _actionable(unit: Unit) -> bool:
    """Whether a unit holds what a reader acts on: code, an included example, or a
    sentence naming an identifier, option or command (an inline code span)."""
    return not unit.prose or CODE_SPAN.search(unit.text) is not None


def _what_to_do(lead: _Read, window: Sequence[int], *, on_topic: bool = False) -> list[Unit]:
    """For a 'how' question: the first sentence after the quote, in the lead passage (which
    runs on into the page's next sections), that names an identifier, option or command
    (an inline code span) and can be quoted on its own, with the code it introduces when
    it ends in ':'. Nothing when there is none within MAX_ACTION_UNITS units.

    When the quote names identifiers of its own (``on_topic``), the sentence must also
    hold a word of the question, one the quote lacks if any such sentence does: the
    quote's names are often the ones it sets the scene with ("FastAPI puts it in a
    `JSONResponse`") and the step asked for comes after ("to return HTML, use
    `HTMLResponse`"), but a sentence on another subject adds nothing. Facts in the
    answers, tuning questions: fastapi-es 0.685 → 0.740, no corpus lower
    (bench/README.md)."""
    steps = list(_steps(lead, window))
    if on_topic:
        said = lead.says(window)
        steps = [s for s in steps if lead.matched[s[0]] - said] or [
            s for s in steps if lead.matched[s[0]]
        ]
    return steps[0][1] if steps else []


def _steps(lead: _Read, window: Sequence[int]) -> Iterator[tuple[int, list[Unit]]]:
    """The sentences within MAX_ACTION_UNITS past the quote that name an identifier and
    stand alone, each with the code it introduces when it ends in ':' (``_what_to_do``)."""
    units_ = lead.units
    after = (window[-1] + 1) if window else 0
    for i in range(after, min(len(units_), after + MAX_ACTION_UNITS)):
        unit = units_[i]
        if not unit.prose or unit.aside or not _actionable(unit):
            continue
        if continues_cut(unit.text) or dangles(unit.text) or len(unit.text) > MAX_EXTRA_CHARS:
            continue
        if not unit.text.endswith(":"):
            yield i, [unit]
            continue
        following = units_[i + 1] if i + 1 < len(units_) else None
        if following is not None and not following.prose:
            yield i, [unit, following]


def _without_dangling_lead_ins(units_: Sequence[Unit], chosen: list[int]) -> list[int]:
    """``chosen`` without a last sentence that introduces (':') something not quoted."""
    while chosen and units_[chosen[-1]].text.endswith(":") and len(chosen) > 1:
        following = chosen[-1] + 1
        if following < len(units_) and units_[following].kind == "item":
            break  # its list was cut by the budget, not left out
        chosen = chosen[:-1]
    return chosen


def _opens(units_: Sequence[Unit], i: int) -> bool:
    """Whether a quote can start at unit ``i``."""
    unit = units_[i]
    if continues_cut(unit.text) or dangles(unit.text):
        return False
    if unit.kind == "item" and i > 0:
        before = units_[i - 1]
        lead_in = before.prose and (before.block == unit.block or before.text.endswith(":"))
        # A list opens at its lead-in, unless that one cannot open a quote itself.
        if lead_in and _opens(units_, i - 1):
            return False
    return True


def _cite(text: str, number: int) -> str:
    """``text`` followed by its citation; after a code block, on a line of its own (a
    fence's closing line cannot carry text)."""
    return f"{text}\n\n[{number}]" if text.endswith(("```", "~~~")) else f"{text} [{number}]"


def _render(shown: Sequence[Unit], lang: str) -> str:
    """Quoted units as Markdown: a block's sentences as a paragraph, blocks apart, items
    as a list, code as its fenced block, an included example as its path."""
    text = ""
    previous: Unit | None = None
    for unit in shown:
        if unit.kind == "code":
            piece, glue = _trim_code(unit.text), "\n\n"
        elif unit.kind == "example":
            piece, glue = f"{_EXAMPLE[lang]} `{unit.text}`", "\n\n"
        elif unit.kind == "item":
            piece = f"- {unit.text}"
            glue = "\n" if previous is not None and previous.kind == "item" else "\n\n"
        else:
            piece = unit.text
            same = previous is not None and (previous.kind, previous.block) == (
                "sentence",
                unit.block,
            )
            glue = " " if same else "\n\n"
        text = piece if previous is None else text + glue + piece
        previous = unit
    return text


def _code(
    lead: _Read, window: Sequence[int], reads: Sequence[_Read], shown: Sequence[Unit]
) -> tuple[Unit, int] | None:
    """The code to show for a 'how' question when the quote holds none (or only an
    aside's, such as an install command): the lead passage's, after the quote first;
    else that of another passage of the same page and section; an aside's last."""
    start = window[0] if window else 0
    page = [r for r in reads if r is not lead and r.passage.slug == lead.passage.slug]
    same_section = [r for r in page if r.passage.heading == lead.passage.heading]
    candidates = [
        *((u, lead) for i, u in enumerate(lead.units) if i >= start),
        *((u, lead) for i, u in enumerate(lead.units) if i < start),
        *((u, r) for r in same_section for u in r.units),
        *((u, r) for r in page if r not in same_section for u in r.units),
    ]
    code = [(u, r) for u, r in candidates if not u.prose and u not in shown]
    for unit, read in sorted(code, key=lambda c: c[0].aside):  # stable: asides last
        return unit, read.passage.number
    return None


def _trim_code(block: str) -> str:
    lines = block.splitlines()
    if len(lines) <= MAX_CODE_LINES:
        return block
    return "\n".join([*lines[: MAX_CODE_LINES - 2], "…", lines[-1]])


def _extras(
    reads: Sequence[_Read],
    lead: _Read,
    quoted: Sequence[Unit],
    covered: frozenset[int],
    weight: _Weights,
) -> list[tuple[str, int]]:
    """At most MAX_EXTRA sentences, one per other page, that hold a good share of the
    question (EXTRA_SHARE of its weight), bring some of it the quote lacks, stand alone,
    and repeat nothing already said."""
    said = [set(tokens(u.text)) for u in quoted]
    whole = weight(frozenset(range(len(weight.of))))
    out: list[tuple[str, int]] = []
    pages = {lead.passage.slug}
    for read in reads:
        if read.passage.slug in pages or len(out) == MAX_EXTRA:
            continue
        best: tuple[float, int] | None = None
        for i, unit in enumerate(read.units):
            matched = read.matched[i]
            if not unit.prose or unit.aside or not matched - covered:
                continue
            if weight(matched) < EXTRA_SHARE * whole:
                continue
            if not stands_alone(unit.text) or continues(unit.text):
                continue
            if len(unit.text) > MAX_EXTRA_CHARS:
                continue
            words = set(tokens(unit.text))
            if any(len(words & s) / max(len(words | s), 1) >= NEAR_DUPLICATE for s in said):
                continue
            if best is None or weight(matched) > best[0]:
                best = (weight(matched), i)
        if best is not None:
            unit = read.units[best[1]]
            out.append((unit.text, read.passage.number))
            said.append(set(tokens(unit.text)))
            covered = covered | read.matched[best[1]]
            pages.add(read.passage.slug)
    return out


def _by_page(passages: Sequence[Passage], cited: Sequence[int]) -> dict[str, list[int]]:
    """Cited source numbers grouped under their page's title, in order."""
    out: dict[str, list[int]] = {}
    for p in passages:
        if p.number in cited:
            out.setdefault(p.title, []).append(p.number)
    return out
