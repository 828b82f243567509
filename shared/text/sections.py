"""How a tree's folders read as the site's sections, one rule for the import's sidebar
and the site's nav: which file names are a folder's index page, how deep sections go,
and a folder's name as a title."""

from __future__ import annotations

INDEX_NAMES = ("index", "readme")
MAX_DEPTH = 10


def humanize(folder: str) -> str:
    """A folder name as a section title: ``how-to`` -> ``How to``."""
    words = folder.replace("_", " ").replace("-", " ").split()
    text = " ".join(words)
    return text[:1].upper() + text[1:] if text else folder
