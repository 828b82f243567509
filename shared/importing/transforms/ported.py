"""The import's earlier passes as named transforms, each the family it has always handled.

These read code with ``shared.mkdocs.fenced`` (fences at any indentation), which agrees
with ``Source`` for fenced code; they keep their own modules in ``shared.dialects`` and
``shared.importing.tree`` and are listed here so the dialect table can order
them with the rest.
"""

from __future__ import annotations

from shared import mkdocs
from shared.dialects import autorefs, markup, mdx
from shared.importing import tree as im
from shared.importing.source import Source
from shared.importing.tree import Context


def snippets(source: Source, context: Context) -> str:
    """pymdownx.snippets' ``--8<-- "file"`` (``tree.snippets``)."""
    return im.snippets(source.text, context.page, context.tree, context.constructs, context)


def comments(source: Source, context: Context) -> str:
    return markup.without_comments(source.text, context.constructs)


def block_count(source: Source, context: Context) -> str:
    markup.count_blocks(source.text, context.constructs)
    return source.text


def components(source: Source, context: Context) -> str:
    """JSX/Vue components and the rest of MDX (``shared.dialects.mdx``)."""
    text = source.text
    dialect = context.dialect
    as_mdx = context.mdx_file or mdx.is_mdx(context.page, text)
    vue = dialect.name == "vitepress" or (as_mdx and not dialect.expressions)
    return mdx.to_stored(
        text, context.constructs, mdx=as_mdx, vue=vue, components=dialect.components
    )


def termy(source: Source, context: Context) -> str:
    if "termy" not in source.text:
        return source.text
    return "\n".join(im.without_termy(source.text.split("\n")))


def mkdocs_blocks(source: Source, context: Context) -> str:
    return mkdocs.canonical(source.text)


def dialect_lines(source: Source, context: Context) -> str:
    """Fence attributes, custom fences, API references, macros, attribute lists."""
    budget = [context.room - im.MAX_API_BYTES_HELD_BACK]
    before = budget[0]
    lines = im.dialect_lines(source.text.split("\n"), context.tree, context.constructs, budget)
    context.room -= before - budget[0]
    return "\n".join(lines)


def html(source: Source, context: Context) -> str:
    return "\n".join(markup.html_to_markdown(source.text.split("\n"), context.constructs))


def inline(source: Source, context: Context) -> str:
    """Autorefs, ``{* includes *}``, keys and links, line by line outside code."""
    tree = context.tree
    labels = autorefs.defined_labels(source.text)
    canonical = tree.library.canonical if tree.library is not None else None
    out = context.prepared
    result: list[str] = []
    for line, code in source.marked():
        if code:
            result.append(line)
            continue
        line = autorefs.resolve(line, tree.refs, labels, context.constructs, canonical)
        include = mkdocs.parse_include(line)
        if include is not None:
            block = im.included(include, line, tree, context.room)
            context.constructs.count("include", "mapped" if block is None else "rendered")
            if block is None:
                ref = include.ref()
                if ref and ref not in out.code_refs:
                    out.code_refs.append(ref)
                result.append(line)
            else:
                context.room -= len(block.encode()) - len(line.encode())
                result.append(block)
            continue
        line = markup.keys(line, context.constructs)
        result.append(tree.links.rewrite(tree.assets.rewrite(line, context.page), context.page))
    return "\n".join(result)
