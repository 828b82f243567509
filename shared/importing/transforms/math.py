"""TeX math (``$$ … $$`` blocks, ``$…$`` inline: VitePress, remark-math, arithmatex) as code.

The site does not typeset math, so a formula is shown as its source in code (a ``math``
fence, a code span), where braces and backslashes are the point, rather than as prose
where ``}}`` reads as template syntax and MDX would take ``{…}`` for an expression.
Inline math is only a ``$…$`` whose text has a TeX command or a brace, so prices
(``$5 and $10``) stay text.
"""

from __future__ import annotations

import re

from shared.dialects import markup
from shared.importing.source import Source
from shared.importing.tree import Context

_BLOCK = re.compile(r"^([ \t]*)\$\$(.*)$")
_INLINE = re.compile(r"(?<![\\$\w])\$(?=[^\s$])([^$\n]{1,500}?)(?<=[^\s\\])\$(?![\w$])")


def run(source: Source, context: Context) -> str:
    if "$" not in source.text:
        return source.text
    lines = source.lines
    code = source.code
    out: list[str] = []
    n = 0
    changed = False
    while n < len(lines):
        line = lines[n]
        block = _BLOCK.match(line) if n not in code else None
        if block:
            indent, rest = block.groups()
            body: list[str] = []
            end = n
            if rest.rstrip().endswith("$$") and rest.strip() != "":
                body = [rest.rstrip()[:-2]]
            else:
                if rest.strip():
                    body.append(rest)
                end = n + 1
                while end < len(lines) and end not in code and "$$" not in lines[end]:
                    body.append(lines[end])
                    end += 1
                if end >= len(lines):
                    out.append(line)  # never closed: not a formula
                    n += 1
                    continue
                tail = lines[end].split("$$", 1)[0]
                if tail.strip():
                    body.append(tail)
            context.constructs.count("math:block", "mapped")
            out += [f"{indent}```math", *(x for x in body if x.strip()), f"{indent}```"]
            changed = True
            n = end + 1
            continue
        if n not in code and "$" in line:
            new = markup.outside_code_spans(line, lambda part: _inline(part, context))
            changed |= new != line
            line = new
        out.append(line)
        n += 1
    return "\n".join(out) if changed else source.text


def _inline(part: str, context: Context) -> str:
    def code(match: re.Match[str]) -> str:
        formula = match.group(1)
        if not re.search(r"\\[A-Za-z]|[{}^_]", formula):
            return match.group(0)
        context.constructs.count("math:inline", "mapped")
        ticks = "``" if "`" in formula else "`"
        return f"{ticks}${formula}${ticks}"

    return _INLINE.sub(code, part)
