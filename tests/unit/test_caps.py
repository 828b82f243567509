"""The contract's per-page caps in the pure core: 200 tags, sources and related; linear cost."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from shared.errors import PayloadTooLarge
from shared.normalize import normalize_related, normalize_sources, normalize_tags
from shared.schema import parse_front_matter

CAP = 200  # the contract: "at most 200 tags, 200 sources, 200 related" per page

Normalizer = Callable[[object, str], list[Any]]
LISTS: list[tuple[str, Normalizer, Callable[[int], object]]] = [
    ("tags", normalize_tags, lambda i: f"Etiqueta-{i}"),
    ("related", normalize_related, lambda i: f"concept—pagina-{i}"),
    ("sources", normalize_sources, lambda i: f"src/modulo_{i}.py"),
]


@pytest.mark.parametrize(("name", "normalize", "entry"), LISTS)
def test_the_cap_is_inclusive_and_one_more_is_a_413_at_the_list(
    name: str, normalize: Normalizer, entry: Callable[[int], object]
) -> None:
    """200 distinct entries pass; 201 are a PayloadTooLarge naming the list's field."""
    field = f"front_matter.{name}"
    assert len(normalize([entry(i) for i in range(CAP)], field)) == CAP
    with pytest.raises(PayloadTooLarge) as caught:
        normalize([entry(i) for i in range(CAP + 1)], field)
    assert caught.value.field == field
    assert (caught.value.status, caught.value.code) == (413, "payload_too_large")


@pytest.mark.parametrize(("name", "normalize", "entry"), LISTS)
def test_duplicates_and_blanks_do_not_count_towards_the_cap(
    name: str, normalize: Normalizer, entry: Callable[[int], object]
) -> None:
    """The cap is on what the page keeps: 600 entries that are 150 distinct ones pass."""
    given = [entry(i % 150) for i in range(600)] + ["", "  "]
    assert len(normalize(given, f"front_matter.{name}")) == 150


@pytest.mark.parametrize(("name", "normalize", "entry"), LISTS)
def test_a_huge_list_is_refused_at_the_cap_without_reading_the_rest(
    name: str, normalize: Normalizer, entry: Callable[[int], object]
) -> None:
    """100,000 distinct entries cost what 1,000 do (both stop at entry 201), not 100x more."""

    def cost(n: int) -> float:
        given = [entry(i) for i in range(n)]
        best = float("inf")
        for _ in range(5):
            started = time.process_time()
            with pytest.raises(PayloadTooLarge):
                normalize(given, f"front_matter.{name}")
            best = min(best, time.process_time() - started)
        return max(best, 1e-6)

    small, big = cost(1_000), cost(100_000)
    assert big / small < 10, (small, big)


def test_a_huge_list_is_refused_without_building_the_page_model() -> None:
    """The schema refuses 100,000 tags with the cap's 413, its peak memory that of 1,000."""

    def peak(n: int) -> int:
        data = {"title": "T", "type": "concept", "tags": [f"t{i}" for i in range(n)]}
        tracemalloc.start()
        try:
            with pytest.raises(PayloadTooLarge) as caught:
                parse_front_matter(data)
            assert caught.value.field == "front_matter.tags"
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(100_000) < 2 * peak(1_000)
