"""GitHub's alerts, ``> [!NOTE]`` … (NOTE, TIP, IMPORTANT, WARNING, CAUTION), as admonitions.

Read from the parse: only a block quote whose first line is the marker is an alert, so a
quote that merely mentions ``[!NOTE]`` later, or one inside code, stays a quote.
"""

from __future__ import annotations

import re

from shared import mkdocs
from shared.importing.source import Source
from shared.importing.tree import Context

_MARKER = re.compile(
    r"^([ \t]*)>[ \t]?\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(.*?)[ \t]*$", re.I
)
_QUOTED = re.compile(r"^([ \t]*)>[ \t]?")
KINDS = {
    "note": "note",
    "tip": "tip",
    "important": "important",
    "warning": "warning",
    "caution": "caution",
}


def run(source: Source, context: Context) -> str:
    if "[!" not in source.text:
        return source.text
    lines = source.lines
    spans = [(a, b) for a, b in source.blocks("blockquote") if _MARKER.match(lines[a])]
    if not spans:
        return source.text
    out: list[str] = []
    at = 0
    for first, last in spans:
        out += lines[at:first]
        marker = _MARKER.match(lines[first])
        assert marker is not None
        indent, kind, title = marker.group(1), KINDS[marker.group(2).lower()], marker.group(3)
        body = [_QUOTED.sub(r"\1", line, count=1) for line in lines[first + 1 : last]]
        while body and not body[-1].strip():
            body.pop()
        slashes = "/" * (3 + mkdocs.block_depth(body))
        out += [f"{indent}{slashes} {kind}" + (f" | {title}" if title else ""), "", *body]
        out += ["", f"{indent}{slashes}", ""]
        context.constructs.count(f"alert:{kind}", "mapped")
        at = last
    out += lines[at:]
    return "\n".join(out)
