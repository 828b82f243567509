"""The values a page states for code references: a flag, option or variable and the value
it gives it (pure). Two pages stating different values for one reference conflict.

Read from two shapes that documentation in both languages uses:

- an assignment in code or a code span: ``--port=8000``, ``PORT=8000``, and ``port: 8000``
  inside a configuration fence (YAML, TOML, INI, dotenv: in JavaScript or Python
  ``key: value`` is an example's object literal, not the setting the page documents);
- a sentence that names a default: "`--port` defaults to `8000`", "el valor por defecto
  de `workers` es `4`" (the first code span is the reference, the code span or number
  after the default word its value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from shared.text.fold import fold

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_CONFIG_FENCES = frozenset({"yaml", "yml", "toml", "ini", "cfg", "conf", "env", "dotenv"})
_ASSIGN = re.compile(
    r"(?<![\w-])(--[a-z][a-z0-9-]{1,40}|[A-Z][A-Z0-9_]{2,40})=(\"[^\"\s]{1,80}\"|'[^'\s]{1,80}'|[^\s,;`'\")]{1,80})"
)
_YAML = re.compile(r"^\s*([a-z_][a-z0-9_.-]{1,40}):\s+([^\s#]{1,80})\s*$", re.I)
_SPAN = re.compile(r"`([^`\n]{1,80})`")
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])")
_DEFAULT = re.compile(
    r"\b(defaults? to|by default|default(?: value)? is|por defecto|predeterminad[oa]|"
    r"valor predeterminado)\b"
)
_REF = re.compile(r"^(--?[a-z][\w-]*|[A-Za-z_][\w.]*)$")


def _clean(value: str) -> str:
    return value.strip().rstrip(",;").strip("\"'").rstrip(".")


def claims_of(markdown: str) -> Mapping[str, tuple[str, ...]]:
    """Reference (lower-cased) -> the distinct values the page gives it, in order."""
    found: dict[str, list[str]] = {}

    def add(ref: str, value: str) -> None:
        ref, value = ref.strip().lower(), _clean(value)
        if ref and value and value.lower() != ref:
            values = found.setdefault(ref, [])
            if value not in values:
                values.append(value)

    fence: str | None = None
    config = False  # the open fence is a configuration file's
    lines = markdown.splitlines()
    folded = fold(markdown).splitlines()  # one fold of the page, not one a line
    if len(folded) != len(lines):  # a fold made or took a line break: fold line by line
        folded = [fold(line) for line in lines]
    for line, low in zip(lines, folded, strict=True):
        opening = _FENCE.match(line)
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
                continue
            for ref, value in _ASSIGN.findall(line):
                add(ref, value)
            yaml = _YAML.match(line) if config else None
            if yaml:
                add(*yaml.groups())
            continue
        if opening:
            fence, config = opening.group(1), opening.group(2).lower() in _CONFIG_FENCES
            continue
        for span in _SPAN.findall(line):
            for ref, value in _ASSIGN.findall(span):
                add(ref, value)
        _default_claim(line, low, add)
    return {ref: tuple(values) for ref, values in found.items()}


def _default_claim(line: str, folded: str, add: Callable[[str, str], None]) -> None:
    match = _DEFAULT.search(folded)
    if not match:
        return
    spans = [(m.start(), m.group(1)) for m in _SPAN.finditer(line)]
    before = [s for at, s in spans if at < match.start() and _REF.match(s.strip())]
    after = [s for at, s in spans if at > match.start()]
    if not before and after and _REF.match(after[0].strip()):
        before, after = [after[0]], after[1:]  # "el valor por defecto de `x` es `4`"
    if not before:
        return
    if after:
        add(before[-1], after[0])
        return
    number = _NUMBER.search(line, match.end())
    if number:
        add(before[-1], number.group(1))
