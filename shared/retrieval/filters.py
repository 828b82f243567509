"""The ``ask`` filters over an in-memory list of chunks or pages, as one boolean mask (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from shared.records import SearchFilter


class PageFieldsOf(Protocol):
    """Anything carrying a page's filterable fields: a chunk row, a page."""

    @property
    def page_type(self) -> str | None: ...
    @property
    def category(self) -> str | None: ...
    @property
    def tags(self) -> tuple[str, ...]: ...


class FilterColumns:
    """The page fields of indexed rows as columns, for vectorized filtering."""

    def __init__(self, rows: Sequence[PageFieldsOf]) -> None:
        self._rows = rows
        self._types = np.array([r.page_type or "" for r in rows], dtype=object)
        self._categories = np.array([r.category or "" for r in rows], dtype=object)

    def mask(self, filters: SearchFilter) -> npt.NDArray[np.bool_]:
        """Which chunks pass the filters; an unknown value passes none."""
        keep = np.ones(len(self._rows), dtype=bool)
        if filters.page_type is not None:
            keep &= self._types == filters.page_type
        if filters.category is not None:
            keep &= self._categories == filters.category
        if filters.tag is not None:
            keep &= np.array([filters.tag in r.tags for r in self._rows], dtype=bool)
        return keep
