"""A reader of the literal part of a JavaScript or TypeScript config, never executed.

Generators keep their sidebars, rewrites and titles in code (``sidebars.ts``,
``astro.config.mjs``, ``.vitepress/config.ts``), mostly as object literals. ``value_at``
finds a key (``rewrites:``, ``sidebar:``) and reads the value after it when it is pure
data: objects, arrays, strings (quoted, or back-quoted without ``${}``), numbers,
``true``/``false``/``null``/``undefined``, comments and trailing commas, ``as const``
and ``satisfies X`` after a value. Anything else (a call, a variable, a spread, a
template with ``${}``) is ``NotLiteral``: the caller falls back and says so. Bounded:
at most ``MAX_DEPTH`` levels and ``MAX_ITEMS`` values, so a hostile file costs nothing.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 32
MAX_ITEMS = 50_000
MAX_TEXT = 2 * 1024 * 1024  # characters of a config read at all


class NotLiteral(ValueError):
    """The value is code, not data (the message says what was met, and where)."""


_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)")
_TRAILERS = re.compile(r"\s*(?:as\s+const\b|satisfies\s+[A-Za-z_$][\w$.<>\[\], ]*)")
_KEYWORDS = {"true": True, "false": False, "null": None, "undefined": None}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def value_at(text: str, key: str, start: int = 0) -> Any:
    """The literal value of the first ``key:`` (or ``"key":``) in ``text`` outside strings
    and comments, from ``start``; ``KeyError`` when there is none, ``NotLiteral`` when its
    value is code."""
    text = text[:MAX_TEXT]
    position = _find_key(text, key, start)
    if position is None:
        raise KeyError(key)
    return _Reader(text, position).read_value()


def read(text: str) -> Any:
    """The literal value that ``text`` is (a whole JSON-like document)."""
    return _Reader(text[:MAX_TEXT], 0).read_value()


def _find_key(text: str, key: str, start: int) -> int | None:
    """Where the value of ``key:`` begins, skipping strings and comments."""
    pattern = re.compile(rf"""(?:(?<![\w$.])({re.escape(key)})|(["'])({re.escape(key)})\2)\s*:""")
    i = start
    while i < len(text):
        char = text[i]
        if char in "\"'`":
            i = _skip_string(text, i)
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        match = pattern.match(text, i)
        if match:
            return match.end()
        i += 1
    return None


def _skip_string(text: str, i: int) -> int:
    quote = text[i]
    i += 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


class _Reader:
    def __init__(self, text: str, position: int) -> None:
        self.text = text
        self.i = position
        self.items = 0

    def fail(self, what: str) -> NotLiteral:
        line = self.text.count("\n", 0, self.i) + 1
        return NotLiteral(f"{what} at line {line}")

    def space(self) -> None:
        text = self.text
        while self.i < len(text):
            if text[self.i].isspace():
                self.i += 1
            elif text.startswith("//", self.i):
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            elif text.startswith("/*", self.i):
                end = text.find("*/", self.i + 2)
                self.i = len(text) if end < 0 else end + 2
            else:
                return

    def read_value(self, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail("nested too deep")
        self.items += 1
        if self.items > MAX_ITEMS:
            raise self.fail("too many values")
        self.space()
        if self.i >= len(self.text):
            raise self.fail("the text ends")
        char = self.text[self.i]
        if char == "{":
            value: Any = self.read_object(depth)
        elif char == "[":
            value = self.read_array(depth)
        elif char in "\"'`":
            value = self.read_string()
        else:
            number = _NUMBER.match(self.text, self.i)
            ident = _IDENT.match(self.text, self.i)
            if number and not ident:
                self.i = number.end()
                raw = number.group(0)
                value = int(raw, 16) if raw.lower().startswith(("0x", "-0x")) else float(raw)
                if isinstance(value, float) and value.is_integer() and "." not in raw:
                    value = int(value)
            elif ident and ident.group(0) in _KEYWORDS:
                self.i = ident.end()
                value = _KEYWORDS[ident.group(0)]
            else:
                raise self.fail(f"code ({self.text[self.i : self.i + 30].split()[0]!r})")
        trailer = _TRAILERS.match(self.text, self.i)
        if trailer:
            self.i = trailer.end()
        return value

    def read_object(self, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self.i += 1
        while True:
            self.space()
            if self.text.startswith("}", self.i):
                self.i += 1
                return out
            if self.text.startswith("...", self.i):
                raise self.fail("a spread")
            char = self.text[self.i : self.i + 1]
            if char in ("'", '"'):
                key = self.read_string()
            elif char == "[":
                raise self.fail("a computed key")
            else:
                ident = _IDENT.match(self.text, self.i) or _NUMBER.match(self.text, self.i)
                if ident is None:
                    raise self.fail("no key")
                key = ident.group(0)
                self.i = ident.end()
            self.space()
            if self.text.startswith(":", self.i):
                self.i += 1
                out[key] = self.read_value(depth + 1)
            elif self.text.startswith("(", self.i):
                raise self.fail("a method")
            else:
                raise self.fail(f"a shorthand property ({key})")
            self.space()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("}", self.i):
                raise self.fail("code after a value")

    def read_array(self, depth: int) -> list[Any]:
        out: list[Any] = []
        self.i += 1
        while True:
            self.space()
            if self.text.startswith("]", self.i):
                self.i += 1
                return out
            if self.text.startswith("...", self.i):
                raise self.fail("a spread")
            out.append(self.read_value(depth + 1))
            self.space()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("]", self.i):
                raise self.fail("code after a value")

    def read_string(self) -> str:
        quote = self.text[self.i]
        self.i += 1
        parts: list[str] = []
        while self.i < len(self.text):
            char = self.text[self.i]
            if char == quote:
                self.i += 1
                return "".join(parts)
            if char == "\\" and self.i + 1 < len(self.text):
                nxt = self.text[self.i + 1]
                parts.append(_ESCAPES.get(nxt, nxt))
                self.i += 2
                continue
            if quote == "`" and self.text.startswith("${", self.i):
                raise self.fail("a template with an expression")
            if char == "\n" and quote != "`":
                raise self.fail("a string that does not end")
            parts.append(char)
            self.i += 1
        raise self.fail("a string that does not end")
