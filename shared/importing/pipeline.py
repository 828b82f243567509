"""The named transforms of a dialect run over one body, in the table's order.

Each transform takes the body as a ``Source`` (parsed once by markdown-it, so it knows
where code is) and the ``Context`` of the file and the tree, and returns the new body;
the next transform gets it reparsed only when it changed. What a transform meets is
counted in ``context.constructs``; what it cannot keep is a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from shared.dialects.constructs import Constructs
from shared.importing.dialects import DIALECTS, Dialect
from shared.importing.source import Source

if TYPE_CHECKING:
    from shared.importing.tree import Prepared, Tree


@dataclass
class Context:
    """One file being imported: where it is, the tree around it, what it has met."""

    page: str  # the file's path relative to the docs folder (posix)
    tree: Tree
    prepared: Prepared  # code paths cited and warnings, filled as transforms run
    room: int  # bytes the body may still grow by (included files count)
    dialect: Dialect = field(default_factory=lambda: DIALECTS["markdown"])

    @property
    def constructs(self) -> Constructs:
        return self.prepared.constructs

    @property
    def mdx_file(self) -> bool:
        """Whether the file is read for components: an ``.mdx`` file, or a ``.md`` one in
        a dialect whose Markdown holds components."""
        return PurePosixPath(self.page).suffix.lower() == ".mdx" or self.dialect.components_in_md

    def page_path(self) -> PurePosixPath:
        return PurePosixPath(self.page)

    def warn(self, message: str) -> None:
        if message not in self.prepared.warnings:
            self.prepared.warnings.append(message)


Run = Callable[[Source, Context], str]


@dataclass(frozen=True, slots=True)
class Transform:
    """One construct family's rewrite into the stored form."""

    name: str
    run: Run


def run(body: str, context: Context, transforms: dict[str, Transform]) -> str:
    """``body`` after each of the dialect's transforms, in its table's order."""
    indented = context.dialect.indented_code and not context.mdx_file
    source = Source(body, indented)
    for name in context.dialect.transforms:
        text = transforms[name].run(source, context)
        if text is not source.text:
            source = Source(text, indented)
    return source.text
