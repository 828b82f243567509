"""Embedding a batch of writes ahead of them, in one thread, while the next pages parse.

``import`` used to embed page by page, inside each write: the model waited for the
parser and the store, and they for the model. ``EmbedAhead`` is an ``Embedder`` the
write path uses as it always does (``build_chunks`` asks for the texts it lacks); the
importer tells it beforehand which texts the coming pages will ask for, and a worker
thread embeds them in batches across pages (the model's matrix work releases the GIL,
so it runs while the main thread parses and writes). A text the importer did not
foresee (its page's validated title differs, say) is embedded when asked, as before.

Nothing about a write changes: the same chunks, hashes and vectors reach the store
through the same path; only when the vectors were computed moves.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from shared.ports import Embedder
from shared.records import Vector

BATCH_TEXTS = 256  # texts per batch: several pages' worth, a few seconds of model work
T = TypeVar("T")


class EmbedAhead:
    """An ``Embedder`` whose documents may have been embedded before they are asked for."""

    def __init__(self, inner: Embedder) -> None:
        self.name = inner.name
        self._inner = inner
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-ahead")
        self._lock = threading.Lock()
        # text -> (its batch's future, its row); an entry leaves once it was asked for.
        self._ahead: dict[str, tuple[Future[npt.NDArray[np.float32]], int]] = {}

    def foresee(self, texts: Sequence[str]) -> None:
        """Start embedding ``texts`` (those not already on their way) in the worker."""
        with self._lock:
            new = [t for t in dict.fromkeys(texts) if t not in self._ahead]
            if not new:
                return
            future = self._worker.submit(self._inner.embed_documents, new)
            for row, text in enumerate(new):
                self._ahead[text] = (future, row)

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        with self._lock:
            found = {t: self._ahead.pop(t) for t in texts if t in self._ahead}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        now = (
            dict(zip(missing, self._inner.embed_documents(missing), strict=True)) if missing else {}
        )
        rows = [now[t] if t in now else found[t][0].result()[found[t][1]] for t in texts]
        if not rows:
            return self._inner.embed_documents([])
        return np.vstack(rows).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> Vector:
        return self._inner.embed_query(text)

    def close(self) -> None:
        self._worker.shutdown(wait=True, cancel_futures=True)
        self._ahead.clear()


def ahead(
    items: Iterable[T],
    texts_of: Callable[[T], Sequence[str]],
    embedder: EmbedAhead,
    batch: int = BATCH_TEXTS,
) -> Iterator[T]:
    """``items`` in order, each handed out once the batch after its own was foreseen:
    while the caller writes one batch's items, the worker embeds the next one's."""
    ready: deque[T] = deque()  # foreseen: their vectors are on their way
    current: deque[T] = deque()
    texts: list[str] = []
    for item in items:
        current.append(item)
        texts.extend(texts_of(item))
        if len(texts) >= batch:
            embedder.foresee(texts)
            texts = []
            yield from _drain(ready)
            ready, current = current, deque()
    embedder.foresee(texts)
    yield from _drain(ready)
    yield from _drain(current)


def _drain(queue: deque[T]) -> Iterator[T]:
    while queue:
        yield queue.popleft()
