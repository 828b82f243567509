"""The raw HTML a stored page may hold: the tags the site renders as markup (everything
else is shown as text), one list for the importer that writes pages and the site that
renders them."""

from __future__ import annotations

# ``title`` is the only attribute kept on them.
INLINE_TAGS = frozenset({"abbr", "dfn", "kbd", "sup", "sub", "mark"})
BLOCK_TAGS = frozenset({"details", "summary"})
VOID_TAGS = frozenset({"br"})
ALLOWED_TAGS = INLINE_TAGS | BLOCK_TAGS | VOID_TAGS
