"""Helpers for the import pipeline's unit tests: a file's context in a tree of its own."""

from __future__ import annotations

from pathlib import Path

from shared.importing.dialects import DIALECTS, Detected
from shared.importing.pipeline import Transform
from shared.importing.prepare import prepare
from shared.importing.source import Source
from shared.importing.tree import Context, Prepared, Tree


def context(
    dialect: str = "markdown", page: str = "a.md", root: Path | None = None, room: int = 1 << 20
) -> Context:
    tree = Tree(root or Path("/nonexistent-docs"), {}, dialect=Detected(DIALECTS[dialect], "test"))
    return Context(page, tree, Prepared(content=""), room, DIALECTS[dialect])


def apply(transform: Transform, body: str, ctx: Context) -> str:
    """One transform over ``body``, read as the pipeline reads it."""
    indented = ctx.dialect.indented_code and not ctx.mdx_file
    return transform.run(Source(body, indented), ctx)


def stored(
    body: str, dialect: str = "markdown", page: str = "a.md", root: Path | None = None
) -> tuple[str, dict[str, dict[str, int]]]:
    """The whole pipeline: ``body`` in the stored form, and the constructs counted."""
    tree = Tree(root or Path("/nonexistent-docs"), {}, dialect=Detected(DIALECTS[dialect], "test"))
    out = prepare(body, page, tree, 1 << 20)
    return out.content, out.constructs.as_dict()
