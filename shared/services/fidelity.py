"""How faithfully an import kept each page: the words a reader loses, the syntax they see.

Measured by the import itself on the outcome, whatever the pipeline that produced it:
each file's prose words (``shared.text.prose``: markup removed, folded) are compared with
the words of the page as the site renders it (``shared.site.markdown.render_body``, then
the text a reader sees, code blocks included). A page keeping less than ``LOSSY_BELOW`` of
its source's words is *lossy*; a page whose visible text holds source syntax
(``shared.site.raw_syntax``, the patterns the test crawler uses too) is *raw*; the
constructs the dialects met and did not understand (``Constructs``) are *unknown*. The
import report carries all three, the stderr summary names them and ``--strict`` fails on
the first two: text is never dropped without a line saying so.
"""

from __future__ import annotations

import re
from collections import Counter
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass, field
from html import escape
from types import TracebackType
from typing import TypedDict

from shared.dialects.constructs import Constructs
from shared.services.site_build.bodies import RENDER_BUDGET_SECONDS
from shared.site.markdown import MARKER_RE, Body, RenderTimeout, render_body
from shared.site.raw_syntax import findings, visible
from shared.text.prose import source_words, words_of
from shared.workers import cpus, forked

LOSSY_BELOW = 0.98  # the share of a page's source words it must keep not to be listed
SUMMARY_FILES = 20  # lossy and raw pages the status keeps by name (the report has all)
# Construct kinds that name a component the dialects did not map: it kept its children and
# lost its tags (``mdx-component:Foo`` today; ``component:Foo`` and ``unknown:…`` too).
_COMPONENT_KINDS = ("component:", "mdx-component:")
_UNKNOWN_KIND = "unknown:"
_NOT_COMPONENTS = frozenset({"Fragment"})  # ``<>…</>`` groups children: nothing to map
# A lower-case name without a dash is an HTML element (``<div>``, ``<script>``), not a
# component: JSX components are PascalCase, Vue's may be kebab-case.
_HTML_ELEMENT = re.compile(r"[a-z][a-z0-9]*")
# Files in a tree before the measure goes to worker processes: a fork and its first page
# cost tens of milliseconds, paid back after a few dozen pages.
POOL_FROM_FILES = 48


class LossyEntry(TypedDict):
    file: str
    kept: float


class RawEntry(TypedDict):
    file: str
    construct: str
    sample: str


class FidelitySummary(TypedDict):
    """What ``biblioteca status`` keeps of an import's fidelity: counts, and the files."""

    pages: int
    lossy: int
    raw: int  # pages showing source syntax
    unknown: int
    files: list[str]  # the lossy and raw pages, the first ``SUMMARY_FILES``


class FidelityDict(TypedDict):
    pages: int
    lossy: list[LossyEntry]
    raw: list[RawEntry]
    unknown: dict[str, int]


@dataclass(frozen=True, slots=True)
class PageFidelity:
    """One page's measure: the share of its source words kept, and the raw syntax shown
    (one sample per family)."""

    kept: float
    raw: tuple[tuple[str, str], ...] = ()  # (construct family, sample)

    @property
    def lossy(self) -> bool:
        return self.kept < LOSSY_BELOW


@dataclass
class Fidelity:
    """An import's fidelity: pages measured, the lossy and raw ones, unknown constructs."""

    pages: int = 0
    lossy: list[LossyEntry] = field(default_factory=list)
    raw: list[RawEntry] = field(default_factory=list)
    unknown: dict[str, int] = field(default_factory=dict)
    # While a ``Measuring`` block runs: the pool pages are measured in, and the pages sent
    # to it, in order (added in that order once measured: the report is the same).
    pool: Executor | None = field(default=None, repr=False, compare=False)
    _pending: list[tuple[PageText, Future[PageFidelity]]] = field(
        default_factory=list, repr=False, compare=False
    )

    def page(self, page: PageText) -> None:
        """Measure one page as it is stored, and add it (in the pool, when there is one:
        ``settle`` adds it)."""
        if self.pool is not None:
            self._pending.append((page, self.pool.submit(_measure_page, page)))
            return
        self.add(page.file, _measure_page(page))

    def settle(self) -> None:
        """Add the pages sent to the pool, in the order they were sent; a page whose
        worker died is measured here."""
        pending, self._pending = self._pending, []
        for page, future in pending:
            try:
                measured = future.result()
            except BrokenProcessPool:
                measured = _measure_page(page)
            self.add(page.file, measured)

    def discard(self, file: str) -> None:
        """Take back a page measured before its write was refused: a failed file is in
        the report's ``failed``, not among the pages imported."""
        kept = [(page, future) for page, future in self._pending if page.file != file]
        if len(kept) < len(self._pending):
            self._pending = kept  # not added yet: nothing else to take back
            return
        self.lossy = [e for e in self.lossy if e["file"] != file]
        self.raw = [e for e in self.raw if e["file"] != file]
        self.pages -= 1

    def add(self, file: str, page: PageFidelity) -> None:
        self.pages += 1
        if page.lossy:
            self.lossy.append({"file": file, "kept": round(page.kept, 3)})
        self.raw += [{"file": file, "construct": kind, "sample": s} for kind, s in page.raw]

    @property
    def faithful(self) -> bool:
        """No page lost words, no page shows source syntax (``--strict`` passes)."""
        return not self.lossy and not self.raw

    def raw_files(self) -> list[str]:
        return list(dict.fromkeys(entry["file"] for entry in self.raw))

    def summary(self) -> FidelitySummary:
        lossy = [entry["file"] for entry in self.lossy]
        raw = self.raw_files()
        return {
            "pages": self.pages,
            "lossy": len(lossy),
            "raw": len(raw),
            "unknown": sum(self.unknown.values()),
            "files": list(dict.fromkeys(lossy + raw))[:SUMMARY_FILES],
        }

    def as_dict(self) -> FidelityDict:
        return {
            "pages": self.pages,
            "lossy": list(self.lossy),
            "raw": list(self.raw),
            "unknown": dict(self.unknown),
        }


@dataclass(frozen=True, slots=True)
class PageText:
    """What one page's measure needs: the file's body as written and as stored."""

    file: str
    source: str
    stored: str
    slug: str = ""
    title: str = ""


def _measure_page(page: PageText) -> PageFidelity:
    """``measure`` of one page (a module-level function: the worker processes run it)."""
    return measure(page.source, page.stored, slug=page.slug, title=page.title)


def workers() -> int:
    """Worker processes the measure gets: the CPUs this process may run on but one, which
    the import itself keeps busy reading, converting and writing pages."""
    return cpus() - 1


class Measuring:
    """A block during which ``fidelity``'s pages are measured in worker processes
    (``shared.workers``), when the tree is big enough to pay for them and the machine
    has a CPU to spare. It is entered before the import starts its embedding thread;
    the workers only ever run the measure, a pure function of the page's text. Leaving
    the block adds every page measured, in order, and ends the workers.
    """

    def __init__(self, fidelity: Fidelity, files: int, processes: int | None = None) -> None:
        self.fidelity = fidelity
        self.files = files
        self.processes = processes  # None: ``workers()``
        self._stack = ExitStack()

    def __enter__(self) -> Fidelity:
        count = workers() if self.processes is None else self.processes
        if self.files >= POOL_FROM_FILES:
            self.fidelity.pool = self._stack.enter_context(forked(count))
        return self.fidelity

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.fidelity.pool = None
        try:
            if kind is None:
                self.fidelity.settle()
        finally:
            self._stack.__exit__(kind, error, trace)  # on an error, the work not started dropped


def measure(source_body: str, stored: str, *, slug: str = "", title: str = "") -> PageFidelity:
    """How much of ``source_body``'s prose the page stored as ``stored`` shows, and the
    source syntax its reader would see (in its body or its ``title``)."""
    wanted = source_words(source_body)
    try:
        # Words, not colours: Pygments' spans hold the same text, so fences stay plain.
        body = render_body(stored, slug, RENDER_BUDGET_SECONDS, colour=False)
    except (RenderTimeout, RecursionError):
        return PageFidelity(0.0 if wanted else 1.0)  # the site leaves the page out
    seen = visible(_with_link_texts(body))
    kept = kept_share(wanted, words_of(f"{title}\n{seen.prose}\n{seen.code}"))
    shown: dict[str, str] = {}
    for finding in [*findings(seen.prose), *findings(title)]:
        shown.setdefault(finding.kind, finding.excerpt)
    return PageFidelity(kept, tuple(shown.items()))


def kept_share(wanted: Counter[str], seen: Counter[str]) -> float:
    """The share of ``wanted``'s words (with their counts) that ``seen`` holds: a
    paragraph dropped lowers it even when its words occur elsewhere on the page."""
    total = sum(wanted.values())
    if not total:
        return 1.0
    return sum(min(n, seen[word]) for word, n in wanted.items()) / total


def unknown(constructs: Constructs) -> dict[str, int]:
    """``{"component:ScrimbaLink": 9}``: the components (and constructs counted as
    ``unknown:…``) the dialects did not understand, by name, with how often they met them."""
    out: Counter[str] = Counter()
    for kind, outcomes in constructs.as_dict().items():
        if kind.startswith(_UNKNOWN_KIND):
            out[kind.removeprefix(_UNKNOWN_KIND)] += sum(outcomes.values())
            continue
        for prefix in _COMPONENT_KINDS:
            name = kind.removeprefix(prefix)
            if (
                kind.startswith(prefix)
                and outcomes["dropped"]
                and name not in _NOT_COMPONENTS
                and not _HTML_ELEMENT.fullmatch(name)
            ):
                out[f"component:{name}"] += outcomes["dropped"]
    return dict(sorted(out.items()))


def _with_link_texts(body: Body) -> str:
    """The body's HTML with each link marker written as the text the site shows for it
    (its own text, else its target: the built page shows the target page's title)."""

    def text(match: re.Match[str]) -> str:
        link = body.links[int(match.group(1))]
        return escape(link.text or link.target.replace("-", " "))

    return MARKER_RE.sub(text, body.html)
