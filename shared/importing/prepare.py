"""A file's body in the stored form: the tree's dialect's named transforms, run in its
table's order. Above the pipeline, the transforms and the tree, which know nothing of
each other's running: the transforms use the tree's helpers, the pipeline the tree's types.
"""

from __future__ import annotations

from shared.importing import pipeline
from shared.importing.transforms import REGISTRY
from shared.importing.tree import Context, Prepared, Tree


def prepare(body: str, page: str, tree: Tree, room: int) -> Prepared:
    """``body`` of the file at ``page`` (relative to the root) in the stored form: the
    tree's dialect's transforms, in its table's order (``shared.importing``).

    ``room`` is how many bytes the body may still grow by (included files count).
    """
    out = Prepared(content="")
    context = Context(page, tree, out, room, tree.dialect.dialect)
    out.content = pipeline.run(body, context, REGISTRY)
    return out
