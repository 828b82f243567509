"""The raw HTML a stored page may hold: the tags the site renders as markup (everything
else is shown as text), one list for the importer that writes pages and the site that
renders them."""

from __future__ import annotations

# ``title`` is the only attribute kept on them.
INLINE_TAGS = frozenset({"abbr", "dfn", "kbd", "sup", "sub", "mark"})
BLOCK_TAGS = frozenset({"details", "summary"})
VOID_TAGS = frozenset({"br"})
ALLOWED_TAGS = INLINE_TAGS | BLOCK_TAGS | VOID_TAGS

# Every element of the HTML standard (obsolete ones a page may still hold included): a
# bare ``<color>`` or ``<text-align>`` that is none of these is a placeholder the author
# wrote as text (a grammar's ``<percentage>``), not a tag left unrendered.
HTML_ELEMENTS = frozenset(
    """a abbr acronym address area article aside audio b base bdi bdo big blink blockquote
    body br button canvas caption center cite code col colgroup data datalist dd del
    details dfn dialog dir div dl dt em embed fieldset figcaption figure font footer form
    frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd
    label legend li link main map mark marquee menu meta meter nav noscript object ol
    optgroup option output p param picture pre progress q rp rt ruby s samp script search
    section select slot small source span strike strong style sub summary sup svg table
    tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr
    math""".split()  # noqa: SIM905 - a word list reads as words
)
