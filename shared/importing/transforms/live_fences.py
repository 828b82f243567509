"""Fences whose content is rendered, not shown: Docusaurus's ```` ```mdx-code-block ````.

Docusaurus documents ``mdx-code-block`` as MDX wrapped in a fence so that other Markdown
tools leave it alone; Docusaurus itself renders what is inside. In a file read for
components the fence lines go and the content is read as the page's own MDX (its
components mapped, its imports dropped) by the transforms after this one.
"""

from __future__ import annotations

from shared.importing.source import Source
from shared.importing.tree import Context

LIVE = frozenset({"mdx-code-block"})


def run(source: Source, context: Context) -> str:
    if not context.mdx_file or "mdx-code-block" not in source.text:
        return source.text
    lines = source.lines
    dropped: set[int] = set()
    for first, last, info in source.fences:
        if info.strip() not in LIVE:
            continue
        context.constructs.count("fence:mdx-code-block", "mapped")
        dropped.add(first)
        closing = lines[last - 1].strip() if last - 1 > first else ""
        if closing and set(closing) <= set("`~"):
            dropped.add(last - 1)
    if not dropped:
        return source.text
    return "\n".join(line for n, line in enumerate(lines) if n not in dropped)
