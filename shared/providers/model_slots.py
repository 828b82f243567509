"""A bounded number of language-model calls at once per process, so a slow model cannot
hold every request thread.

Each call (an answer, streamed or whole; the archive's triage; a follow-up's rewrite)
takes a slot for as long as it runs. With every slot taken a new call waits at most
``WAIT_S`` and is then a fast 503 ``upstream_unavailable`` saying to retry: the threads
left over keep serving everything that needs no model (writes, the site, MCP reads).
"""

from __future__ import annotations

import os
import threading

from shared.errors import Unavailable
from shared.ports import Generator, StreamingGenerator
from shared.records import Generation, TextStream

# A burst of questions against a fast model waits its turn this long, not longer: a
# refused call must give its thread back at once, or the refused ones hold them instead.
WAIT_S = 0.25


def default_slots() -> int:
    """Half the server's request threads (``THREADS``, as ``serve`` and functions-framework
    size them: 4 per core by default), at least one."""
    threads = int(os.environ.get("THREADS") or (os.cpu_count() or 1) * 4)
    return max(1, threads // 2)


class ModelSlots:
    """The slots of one process (``shared_slots``); ``take`` one for a call."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = threading.BoundedSemaphore(size)

    def acquire(self, vendor: str) -> None:
        if not self._free.acquire(timeout=WAIT_S):
            raise Unavailable(
                f"{vendor} is answering {self.size} questions already (the most this "
                "server sends it at once): retry in a few seconds"
            )

    def release(self) -> None:
        self._free.release()


_slots_lock = threading.Lock()
_shared: ModelSlots | None = None


def shared_slots() -> ModelSlots:
    """This process's slots, sized on first use (``default_slots``)."""
    global _shared
    with _slots_lock:
        if _shared is None:
            _shared = ModelSlots(default_slots())
        return _shared


class Bounded:
    """A ``StreamingGenerator`` whose every call holds one of ``slots`` while it runs."""

    def __init__(self, inner: Generator, slots: ModelSlots, vendor: str) -> None:
        self._inner = inner
        self._slots = slots
        self._vendor = vendor
        self.name = inner.name

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation:
        self._slots.acquire(self._vendor)
        try:
            return self._inner.generate(system, prompt, max_tokens=max_tokens)
        finally:
            self._slots.release()

    def stream(self, system: str, prompt: str, *, max_tokens: int = 1024) -> TextStream:
        # Taken when the first piece is asked for and given back when the stream ends,
        # fails or is closed (a client that hangs up closes it).
        self._slots.acquire(self._vendor)
        try:
            if isinstance(self._inner, StreamingGenerator):
                return (yield from self._inner.stream(system, prompt, max_tokens=max_tokens))
            whole = self._inner.generate(system, prompt, max_tokens=max_tokens)
            if whole.text:
                yield whole.text
            return whole
        finally:
            self._slots.release()
