"""The named transforms of a dialect run over one body, in the table's order.

Each transform takes the body as a ``Source`` (parsed once by markdown-it, so it knows
where code is) and the ``Context`` of the file and the tree, and returns the new body;
the next transform gets it reparsed only when its text changed where a block could see
it. What a transform meets is counted in ``context.constructs``; what it cannot keep is
a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shared.importing.source import Source
from shared.importing.tree import Context

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
        # Most transforms write the body anew whether or not they changed it: an equal
        # text keeps its parse (the parse depends on the text alone), and so does one
        # changed only where no block can see it (``Source.edited``).
        if text != source.text:
            source = source.edited(text)
    return source.text
