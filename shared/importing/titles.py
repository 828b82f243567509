"""A page's title as a reader sees it: components in it mapped, tags gone.

Generators let a title hold what a heading holds (VitePress's
``# MPA Mode <Badge text="experimental" />``, an MDX ``{/*id*/}``); the stored title is
the text those render, read by the same component reader as the body.
"""

from __future__ import annotations

from shared.dialects import mdx
from shared.dialects.constructs import Constructs


def readable(title: str, constructs: Constructs | None = None) -> str:
    """``title`` with its components as their text and no tag left; what was mapped or
    dropped (a ``<script>`` with its content) is counted in ``constructs``."""
    if "<" not in title and "{" not in title:
        return title
    text = mdx.to_stored(
        title, Constructs() if constructs is None else constructs, mdx=True, vue=True
    )
    shown = " ".join(text.split())
    return shown or title
