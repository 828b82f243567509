"""``Embedder`` on gemini-embedding-001 over REST: 768 dimensions, re-normalized, batches of 100."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.errors import UpstreamError
from shared.json_value import JsonObject
from shared.providers.gemini_client import GeminiClient
from shared.records import Vector

DIMENSIONS = 768  # Firestore vectors hold at most 2048; 768 keeps most of the quality
BATCH = 100  # batchEmbedContents takes at most 100 requests
# gemini-embedding-001 reads at most 2,048 tokens of a text. A token is 3-4 characters of
# Spanish prose or code, so a text is cut at 3 characters a token: every request stays
# within what the model reads (a 512 KiB code block no longer travels whole, 100 a batch).
MAX_INPUT_TOKENS = 2048
MAX_INPUT_CHARS = 3 * MAX_INPUT_TOKENS


class GeminiEmbedder:
    """Documents as ``RETRIEVAL_DOCUMENT``, questions as ``RETRIEVAL_QUERY``."""

    def __init__(self, client: GeminiClient, model: str, dimensions: int = DIMENSIONS) -> None:
        self._client = client
        self._model = model.removeprefix("models/")
        self._dims = dimensions
        self.name = f"gemini:{self._model}@{dimensions}"

    def _request(self, text: str, task: str) -> JsonObject:
        return {
            "model": f"models/{self._model}",
            "content": {"parts": [{"text": text[:MAX_INPUT_CHARS]}]},
            "taskType": task,
            "outputDimensionality": self._dims,
        }

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dims), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            batch = list(texts[start : start + BATCH])
            body = {"requests": [self._request(t, "RETRIEVAL_DOCUMENT") for t in batch]}
            answer = self._client.post(f"models/{self._model}:batchEmbedContents", body)
            embeddings = answer.get("embeddings")
            if not isinstance(embeddings, list) or len(embeddings) != len(batch):
                raise UpstreamError("the Gemini API answered a batch with the wrong embeddings")
            rows.extend(self._values(e) for e in embeddings)
        return _unit(np.asarray(rows, dtype=np.float32))

    def embed_query(self, text: str) -> Vector:
        answer = self._client.post(
            f"models/{self._model}:embedContent", self._request(text, "RETRIEVAL_QUERY")
        )
        vector: Vector = _unit(np.asarray([self._values(answer.get("embedding"))]))[0]
        return vector

    def _values(self, embedding: Any) -> list[float]:
        values = embedding.get("values") if isinstance(embedding, dict) else None
        if (
            not isinstance(values, list)
            or len(values) != self._dims
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        ):
            raise UpstreamError(
                f"the Gemini API answered an embedding that is not {self._dims} numbers"
            )
        return [float(v) for v in values]


def _unit(matrix: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    # Truncated (Matryoshka) outputs below 3072 dimensions are not unit length: re-normalize.
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(np.isfinite(norms)) or np.any(norms == 0):
        raise UpstreamError("the Gemini API answered a zero or non-finite embedding")
    unit: npt.NDArray[np.float32] = matrix / norms
    return unit
