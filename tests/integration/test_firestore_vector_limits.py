"""Firestore's vector search limits as the adapter meets them (docs/scale.md).

``find_nearest`` returns at most 1,000 documents (the emulator refuses more, as the
service does); the adapter caps its limit there. The filters are pre-filters of that
query, so chunks a filter keeps are found even when more than 1,000 others are closer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shared.records import SearchFilter
from shared.store.firestore import chunks as chunk_docs
from tests.integration.test_page_store_contract import EMBEDDER, chunks_of, page, unit

pytestmark = pytest.mark.firestore
CLOSE, FAR = unit(1), unit(0, 1)
PER_PAGE = 20


@pytest.mark.parametrize("store_env", ["firestore"], indirect=True)
def test_past_the_nearest_limit_the_filters_still_find_their_chunks(store: Any) -> None:
    close_pages = 60  # 1,200 chunks closer to the probe than any tagged one
    for i in range(close_pages):
        slug = f"cerca-{i:03d}"
        store.pages.create(page(slug, tags=("comun",)), chunks_of(slug, *[CLOSE] * PER_PAGE))
    for i in range(2):
        slug = f"lejos-{i}"
        store.pages.create(page(slug, tags=("rara",)), chunks_of(slug, *[FAR] * PER_PAGE))
    probe = np.asarray(CLOSE, dtype=np.float32)

    everything = store.chunks.nearest(probe, embedder=EMBEDDER, filters=SearchFilter(), limit=5000)
    assert len(everything) == chunk_docs.MAX_NEAREST  # capped, not refused
    assert all(h.slug.startswith("cerca-") for h in everything)

    tagged = store.chunks.nearest(
        probe, embedder=EMBEDDER, filters=SearchFilter(tag="rara"), limit=5000
    )
    assert len(tagged) == 2 * PER_PAGE  # a post-filter of the top 1,000 would find none
    assert {h.slug for h in tagged} == {"lejos-0", "lejos-1"}
