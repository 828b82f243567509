"""The wiring owns the process's state between requests: the search index (and the
snapshot saves it starts), the citations index and the rate limits; closing it ends
the saves and forgets the rest, and a new wiring starts from nothing."""

from __future__ import annotations

import threading

import pytest

from shared import bootstrap
from shared.api.models import AskRequest
from shared.bootstrap import Wiring
from shared.config import get_settings
from shared.errors import RateLimited
from shared.store.sqlite import SqliteStore
from tests.fixtures.embedder import HashingEmbedder
from tests.service.conftest import Call

PAGE = {
    "slug": "runbook—pool",
    "content": "# Pool de conexiones\n\nLa variable `DB_POOL_SIZE` fija cuántas conexiones "
    "abiertas mantiene el servicio con la base de datos.\n\nVer `shared/db/pool.py`.",
    "front_matter": {"title": "Pool de conexiones", "type": "runbook", "status": "active"},
}
QUESTION = AskRequest.parse({"question": "¿Cuántas conexiones mantiene el pool?"})


def saving() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "index-snapshot" and t.is_alive()]


def test_a_question_warms_the_wirings_index_and_reset_closes_it(
    call: Call, store: SqliteStore
) -> None:
    """The first question reads every chunk and starts a snapshot save; the wiring holds
    the index (a second question reuses it) and reset() waits for the save."""
    assert call("wiki_create", PAGE)[0] == 201
    w = bootstrap.wiring()
    first = w.ask(QUESTION, authorized=False)
    warm = w.index.snapshot(store.chunks)
    second = w.ask(QUESTION, authorized=False)
    assert first.sources == second.sources
    assert w.index.snapshot(store.chunks) is warm  # nothing written: the same index
    assert w.pages_citing("shared/db/pool.py").pages[0].slug == "runbook—pool"

    bootstrap.reset()

    assert saving() == []
    assert bootstrap.wiring() is not w


def test_the_rate_limits_are_the_wirings_and_a_new_wiring_counts_afresh(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_RATE_LIMIT counts per wiring: closing it (or another wiring) forgets."""
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "1/minute")
    get_settings.cache_clear()
    w = Wiring(get_settings(), store=store, embedder=HashingEmbedder())
    w.limiter("ask").check("203.0.113.7")
    with pytest.raises(RateLimited):
        w.limiter("ask").check("203.0.113.7")
    w.limiter("feedback").check("203.0.113.7")  # each purpose counts apart
    other = Wiring(get_settings(), store=store, embedder=HashingEmbedder())
    other.limiter("ask").check("203.0.113.7")
    w.close()
    w.limiter("ask").check("203.0.113.7")
    get_settings.cache_clear()


def test_two_wirings_keep_two_indexes(call: Call, store: SqliteStore) -> None:
    """Nothing is shared through a module: each wiring builds and holds its own index."""
    assert call("wiki_create", PAGE)[0] == 201
    one = Wiring(get_settings(), store=store, embedder=HashingEmbedder())
    two = Wiring(get_settings(), store=store, embedder=HashingEmbedder())
    assert one.index.snapshot(store.chunks) is not two.index.snapshot(store.chunks)
    one.close()
    two.close()
    assert saving() == []


def test_writers_of_one_page_take_turns_in_the_wirings_page_turns(
    call: Call, store: SqliteStore
) -> None:
    """wiki_update takes its page's turn among the wiring's ``turns`` (one per wiring, not
    a module's): while the test holds that turn the update waits, then lands."""
    assert call("wiki_create", PAGE)[0] == 201
    w = bootstrap.wiring()
    assert w.turns is w.turns
    assert Wiring(get_settings(), store=store, embedder=HashingEmbedder()).turns is not w.turns
    done: list[tuple[int, dict[str, object]]] = []
    update = {"slug": PAGE["slug"], "update_metadata": {"tags": ["turno"]}}
    with w.turns.of(str(PAGE["slug"])):
        writer = threading.Thread(target=lambda: done.append(call("wiki_update", update)))
        writer.start()
        writer.join(timeout=0.5)
        assert writer.is_alive()  # waiting for the turn the test holds
        assert done == []
    writer.join(timeout=30)
    assert done[0][0] == 200
    assert done[0][1]["version"] == 2
