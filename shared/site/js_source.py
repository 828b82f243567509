"""The names a piece of the widget's JavaScript uses and declares, for the join's import
check: its code read with strings, comments and regular expressions blanked out.

Not a parser: it knows the widget's style (no template literal with `${…}`, declarations
spelled out), and errs towards seeing a name as declared. A name used as ``x.name`` or as
an object key ``name:`` is not a use.
"""

from __future__ import annotations

import re

# After one of these (or a keyword below), a ``/`` opens a regular expression; after a
# name, a number or ``)``/``]``, it divides.
_BEFORE_REGEX = frozenset("(,=:[!&|?{};+-*%<>~^")
_KEYWORD_BEFORE_REGEX = re.compile(r"\b(?:return|typeof|case|in|of|delete|void)$")
_NAME = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\b(?!\s*:)")
_DECLARATION = re.compile(r"\b(?:const|let|var|function|class)\s+([A-Za-z_$][\w$]*)")
_DESTRUCTURED = re.compile(r"\b(?:const|let|var)\s*\{([^}]*)\}")
_PARAMETERS = re.compile(r"\bfunction\s*[\w$]*\s*\(([^)]*)\)|\(([^()]*)\)\s*=>|([\w$]+)\s*=>")
_CATCH = re.compile(r"\bcatch\s*\(\s*([\w$]+)\s*\)")


def _skip_quoted(text: str, i: int) -> int:
    """The index after the string that starts at ``text[i]`` (its own quote ends it)."""
    quote = text[i]
    i += 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _skip_regex(text: str, i: int) -> int:
    """The index after the regular expression literal (and its flags) at ``text[i]``."""
    i += 1
    in_class = False
    while i < len(text) and (in_class or text[i] != "/"):
        if text[i] == "\\":
            i += 1
        elif text[i] == "[":
            in_class = True
        elif text[i] == "]":
            in_class = False
        i += 1
    i += 1
    while i < len(text) and text[i].isalpha():
        i += 1
    return i


def _opens_regex(code: str) -> bool:
    """Whether a ``/`` after ``code`` (what was kept so far) starts a regular expression."""
    tail = code.rstrip()
    return not tail or tail[-1] in _BEFORE_REGEX or bool(_KEYWORD_BEFORE_REGEX.search(tail))


def code_only(text: str) -> str:
    """``text`` with every comment, string and regular expression literal a space."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            out.append(" ")
        elif text[i] in "\"'`":
            i = _skip_quoted(text, i)
            out.append(' "" ')  # a value: a ``/`` after it divides
        elif text[i] == "/" and _opens_regex("".join(out[-40:])):
            i = _skip_regex(text, i)
            out.append(" /re/ ")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def used_names(code: str) -> set[str]:
    """The names ``code`` (already ``code_only``) reads, declared there or not."""
    return set(_NAME.findall(code))


def declared_names(code: str) -> set[str]:
    """Every name ``code`` (already ``code_only``) declares at any depth: variables,
    functions, classes, parameters, destructured names, a ``catch``'s error."""
    names = set(_DECLARATION.findall(code)) | set(_CATCH.findall(code))
    for group in _DESTRUCTURED.findall(code):
        names |= {n.split(":")[-1].strip() for n in group.split(",") if n.strip()}
    for groups in _PARAMETERS.findall(code):
        for part in ",".join(groups).split(","):
            name = part.split("=")[0].strip()
            if name:
                names.add(name)
    return names
