"""Embedding ahead of the writes: same vectors, each text embedded once, order kept."""

from __future__ import annotations

import numpy as np

from shared.services.embed_ahead import EmbedAhead, ahead
from tests.fixtures.embedder import HashingEmbedder


def test_foreseen_texts_are_embedded_once_and_as_the_inner_embedder_does() -> None:
    """A batch foreseen is one call; asking for its texts later costs nothing more."""
    inner = HashingEmbedder()
    batched = EmbedAhead(inner)
    texts = [f"página {i} sobre el pool" for i in range(10)]
    batched.foresee(texts)
    got = batched.embed_documents([*texts[3:7], "un texto no previsto"])
    batched.close()
    assert inner.calls == 11  # ten ahead, one when asked
    expected = HashingEmbedder().embed_documents([*texts[3:7], "un texto no previsto"])
    assert np.array_equal(got, expected)


def test_ahead_keeps_the_order_and_foresees_the_next_batch_first() -> None:
    """Items come out in order; when one is handed out, the batch after it is foreseen."""
    inner = HashingEmbedder()
    batched = EmbedAhead(inner)
    seen_when: list[int] = []
    items = [[f"texto {i}-{j}" for j in range(3)] for i in range(9)]
    out = []
    for item in ahead(items, lambda texts: texts, batched, batch=6):
        seen_when.append(len(batched._ahead))
        out.append(item)
        batched.embed_documents(item)
    batched.close()
    assert out == items
    assert inner.calls == 27  # every text once
    assert seen_when[0] > 3  # the first item went out with the next batch already foreseen
