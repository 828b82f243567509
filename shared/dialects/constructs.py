"""What an import met of each kind of source syntax, and what became of it.

Every construct a dialect recognises is counted under one kind (``mkdocstrings``,
``autoref``, ``mdx-component:Tabs``, ``html-comment``, ``macro`` …) with one outcome:
``rendered`` (turned into what it shows, e.g. an API reference from the source),
``mapped`` (rewritten into the stored form, e.g. an aside as an admonition) or
``dropped`` (removed: nothing a reader should see). The import report carries the
totals, so a dialect nobody mapped yet is visible at once.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

Outcome = Literal["rendered", "mapped", "dropped"]
OUTCOMES: tuple[Outcome, ...] = ("rendered", "mapped", "dropped")


class Constructs:
    """Counts by kind and outcome; one per import (or per file, merged into the import's)."""

    def __init__(self) -> None:
        self._counts: dict[str, Counter[Outcome]] = {}

    def count(self, kind: str, outcome: Outcome, n: int = 1) -> None:
        if n:
            self._counts.setdefault(kind, Counter())[outcome] += n

    def merge(self, other: Constructs) -> None:
        for kind, counts in other._counts.items():
            for outcome, n in counts.items():
                self.count(kind, outcome, n)

    def __bool__(self) -> bool:
        return bool(self._counts)

    def as_dict(self) -> dict[str, dict[str, int]]:
        """``{kind: {"rendered": n, "mapped": n, "dropped": n}}``, kinds sorted."""
        return {
            kind: {outcome: self._counts[kind][outcome] for outcome in OUTCOMES}
            for kind in sorted(self._counts)
        }
