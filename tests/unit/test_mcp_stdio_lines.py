"""``biblioteca mcp`` over stdio bounds a line: a huge one is refused, never held whole."""

from __future__ import annotations

import io
import json
import tracemalloc
from typing import Any

from shared.mcp import stdio
from shared.mcp.tools import Caller

MIB = 1024 * 1024


class Lines(io.TextIOBase):
    """A stdin whose first line is ``size`` characters long, produced as it is read."""

    def __init__(self, size: int, then: str) -> None:
        self.left = size
        self.then = io.StringIO(then)

    def readline(self, limit: int = -1) -> str:  # type: ignore[override]
        if self.left:
            n = self.left if limit < 0 else min(limit, self.left)
            self.left -= n
            return "x" * n + ("\n" if not self.left and n < limit else "")
        return self.then.readline(limit)


def test_a_line_past_the_cap_is_a_json_rpc_error_and_the_next_is_answered(
    monkeypatch: Any,
) -> None:
    """A 40 MiB line: an INVALID_REQUEST error, under 8 MiB held; the next line answered."""
    answered: list[Any] = []
    monkeypatch.setattr(
        stdio,
        "handle",
        lambda message, wiring, caller: (
            answered.append(message) or {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        ),
    )
    out = io.StringIO()
    stdin = Lines(40 * MIB, '{"jsonrpc": "2.0", "id": 7, "method": "ping"}\n')
    tracemalloc.start()
    try:
        stdio.serve(stdin, out, wiring=None, caller=Caller(may_write=False))  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["error"]["code"] == stdio.INVALID_REQUEST
    assert second["id"] == 7
    assert peak < 8 * MIB
