"""Duplicates on both stores: a first run finds the pairs, a later run signs only what
the change log says changed, and its reads do not grow with the wiki."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from shared.dedup import codec
from shared.schema import parse_front_matter
from shared.services import duplicates
from shared.services.wiki import create_validated, update_validated
from shared.store.firestore import changes as firestore_changes
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.store_reads import counted

EMBEDDER = HashingEmbedder()
VOCABULARY = [f"palabra{i}" for i in range(3000)]


def _text(seed: int, words: int = 80) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(VOCABULARY) for _ in range(words)) + "."


def _page(store: Any, slug: str, content: str) -> None:
    front = parse_front_matter({"title": slug.title(), "type": "guide"})
    create_validated(slug, front, content, store, EMBEDDER, actor="ana")


def _pairs(store: Any) -> set[tuple[str, str, str]]:
    return {(g.kind, g.pages[0].slug, g.pages[1].slug) for g in duplicates.listing(store).groups}


def test_a_first_run_finds_the_copy_and_a_later_run_signs_only_the_changed_page(
    store: Any,
) -> None:
    """Eight distinct pages and one lightly edited copy: the first run signs all nine
    and finds the copy; after one page becomes a copy of another, the next run signs that
    page alone and finds both pairs."""
    for i in range(8):
        _page(store, f"p{i}", _text(i))
    _page(store, "p0-copia", _text(0).replace("palabra", "palabra ", 1))

    first = duplicates.refresh(store)
    assert (first.full, first.signed) == (True, 9)
    assert _pairs(store) == {("copy", "p0", "p0-copia")}

    update_validated("p5", {}, _text(3), 1, store, EMBEDDER, actor="ana")
    second = duplicates.refresh(store)
    assert (second.full, second.signed) == (False, 1)
    assert _pairs(store) == {("copy", "p0", "p0-copia"), ("copy", "p3", "p5")}

    assert duplicates.refresh(store).signed == 0  # nothing changed: nothing signed


def test_signatures_of_an_older_rule_make_the_next_run_sign_every_page_again(
    store: Any,
) -> None:
    """After an upgrade that changes the signing rule, the stored signatures read as
    absent: the next run after one change is a full one, and finds the same pairs."""
    for i in range(4):
        _page(store, f"p{i}", _text(i))
    _page(store, "p0-copia", _text(0).replace("palabra", "palabra ", 1))
    duplicates.refresh(store)
    index = store.duplicates
    older = [
        replace(s, data=json.dumps({**json.loads(s.data), "format": 1}).encode())
        for s in index.signatures(None)
    ]
    index.save(signatures=older, removed=set(), findings=[], touched=set(), cursor=index.cursor())

    update_validated("p2", {}, _text(3), 1, store, EMBEDDER, actor="ana")
    run = duplicates.refresh(store)
    assert (run.full, run.signed) == (True, 5)
    assert _pairs(store) == {("copy", "p0", "p0-copia"), ("copy", "p2", "p3")}
    assert all(codec.signature_from(s) is not None for s in index.signatures(None))


def test_a_run_after_an_upgrade_of_the_rule_signs_every_page_even_with_nothing_changed(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cursor a run keeps names its rule: after an upgrade, the next run is a full
    one though no page changed (its findings were made by the old rule)."""
    for i in range(3):
        _page(store, f"p{i}", _text(i))
    assert duplicates.refresh(store).full
    assert duplicates.refresh(store).signed == 0  # nothing changed, the same rule
    monkeypatch.setattr(codec, "FORMAT", codec.FORMAT + 1)
    run = duplicates.refresh(store)
    assert (run.full, run.signed) == (True, 3)
    assert duplicates.refresh(store).signed == 0


def test_an_archived_page_leaves_the_groups_at_the_next_run(store: Any) -> None:
    """A copy archived: its signature and its pair are gone after the next run."""
    _page(store, "a", _text(1))
    _page(store, "b", _text(1))
    duplicates.refresh(store)
    assert _pairs(store) == {("copy", "a", "b")}
    update_validated("b", {"status": "archived"}, None, 1, store, EMBEDDER, actor="ana")
    run = duplicates.refresh(store)
    assert run.removed == 1
    assert _pairs(store) == set()


def test_a_dismissed_pair_is_not_listed_again(store: Any) -> None:
    """After a curator dismisses a pair, neither the listing nor a full run shows it."""
    _page(store, "a", _text(1))
    _page(store, "b", _text(1))
    duplicates.refresh(store)
    store.duplicates.dismiss("b", "a", by="cli:ana", reason="distintas versiones")
    assert _pairs(store) == set()
    duplicates.refresh(store, full=True)
    assert _pairs(store) == set()


def test_a_run_after_one_change_costs_the_same_on_a_wiki_three_times_larger(
    store: Any, store_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run after one page changed, on 14 pages then on 42, signs one page and compares
    it with a bounded set of candidates; on Firestore its reads stay the same, far under a
    full run's (SQLite bills no reads: there the run's counts are the measure)."""
    firestore = store_env == "firestore"
    # The change log re-reads the writes of its last OVERLAP_S as insurance: the pages
    # this test just created would count, which a wiki's quiet hours never see.
    monkeypatch.setattr(firestore_changes, "OVERLAP_S", 0.0)

    def one_change(version: int) -> tuple[duplicates.Run, int]:
        update_validated("p0", {}, _text(100 + version), version, store, EMBEDDER, actor="ana")
        counts = counted(store) if firestore else None
        run = duplicates.refresh(store)
        return run, counts.reads if counts else 0

    for i in range(14):
        _page(store, f"p{i}", _text(i))
    duplicates.refresh(store)
    small_run, small = one_change(1)
    for i in range(14, 42):
        _page(store, f"p{i}", _text(i))
    counts = counted(store) if firestore else None
    duplicates.refresh(store, full=True)
    full = counts.reads if counts else 0
    large_run, large = one_change(2)

    for run in (small_run, large_run):
        assert (run.full, run.signed) == (False, 1)
        assert len(run.candidates) <= duplicates.NEIGHBOURS
    if firestore:
        assert large <= small + 5, (small, large)
        assert large < full / 3, (large, full)
