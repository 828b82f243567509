"""Gate 1: an answer's cited code paths must mostly exist in the code index.

Entry point: ``check_grounding(text, index) -> Grounding`` (``.refused``, ``.body()``),
used by ``archive`` and by every ``ask`` answer. Pure extraction (``code_paths``), then
exactly one ``CodeIndex.lookup``; an unreadable or empty index passes, unchecked (fail-open:
triage still stands), with a WARNING saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from shared.errors import BibliotecaError
from shared.logs import get_logger
from shared.ports import CodeIndex
from shared.text.code_paths import cited_paths

REASON = "grounding:unresolved_code_refs"
MAX_LISTED = 50  # unresolved paths named in a response; the counts stay exact

_log = get_logger("gates.grounding")


class GroundingJson(TypedDict):
    """The ``grounding`` object of the contract's responses."""

    checked: bool
    cited: int
    resolved: int
    unresolved: list[str]


@dataclass(frozen=True, slots=True)
class Grounding:
    """What the check found: ``checked`` is False when the index could not be used."""

    checked: bool
    cited: int
    resolved: int
    unresolved: tuple[str, ...]
    why: str | None = None  # why it was not checked (also logged)

    @property
    def refused(self) -> bool:
        """Fewer than half of the distinct cited paths resolve."""
        return self.checked and self.resolved * 2 < self.cited

    @property
    def reason(self) -> str | None:
        return REASON if self.refused else None

    def body(self) -> GroundingJson:
        """The ``grounding`` object of the contract's responses."""
        return {
            "checked": self.checked,
            "cited": self.cited,
            "resolved": self.resolved,
            "unresolved": list(self.unresolved[:MAX_LISTED]),
        }


def resolve(cited: list[str], found: frozenset[str]) -> Grounding:
    """Pure: which cited paths resolve, given the keys the index holds."""
    unresolved = tuple(p for p in cited if p.casefold() not in found)
    return Grounding(
        checked=True,
        cited=len(cited),
        resolved=len(cited) - len(unresolved),
        unresolved=unresolved,
    )


def check_grounding(text: str, index: CodeIndex) -> Grounding:
    """Extract the paths ``text`` cites and resolve them with one read of ``index``."""
    cited = cited_paths(text)
    if not cited:
        return Grounding(checked=True, cited=0, resolved=0, unresolved=())
    try:
        lookup = index.lookup([p.casefold() for p in cited])
    except BibliotecaError as exc:
        return _unchecked(len(cited), f"the code index cannot be read: {exc.message}")
    if lookup.indexed_paths == 0:
        return _unchecked(
            len(cited), "the code index is empty: run `biblioteca index-code` or POST /index_code"
        )
    return resolve(cited, lookup.found)


def _unchecked(cited: int, why: str) -> Grounding:
    _log.warning("grounding not checked (passing, fail-open): %s", why, extra={"cited": cited})
    return Grounding(checked=False, cited=cited, resolved=0, unresolved=(), why=why)
