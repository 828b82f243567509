"""Server-sent events (pure), both ways: read a model's stream, write ``ask``'s.

The format is the WHATWG one: ``event:`` and ``data:`` fields, one event per blank line,
several ``data:`` lines joined by newlines, ``:`` lines are comments. Our own events'
data is one line of JSON, so no text of an answer can end an event early.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def events(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(event name, data)`` for each event of a stream read line by line."""
    name, data = "message", list[str]()
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield name, "\n".join(data)
            name, data = "message", list[str]()
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value or "message"
        elif field == "data":
            data.append(value)
    if data:  # a stream that ends without the last blank line still said it
        yield name, "\n".join(data)


def encode(event: str, data: Any) -> str:
    """One event of ``ask``'s stream: its name and its data as one line of JSON."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event}\ndata: {text}\n\n"
