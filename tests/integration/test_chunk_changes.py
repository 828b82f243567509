"""A warm lexical index follows the change log: it reads only what was written, misses nothing.

Run on both stores. "Another process" is another store object on the same file or
emulator project (its own connection or client, its own caches). After every scenario
the warm index must equal an index built from scratch from every active chunk.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from shared.bootstrap import open_store, reset
from shared.config import get_settings
from shared.records import SearchFilter
from shared.retrieval import hybrid
from shared.retrieval.lexical import LexicalIndex
from shared.store.sqlite import SqliteStore
from tests.integration.test_page_store_contract import chunks_of, page, unit

EVERYTHING = SearchFilter()
# The test process's in-memory indexes, one per store object (as a wiring holds them):
# "another process" is another store object, so it has its own.
INDEX = hybrid.IndexCache()
FIRESTORE_ONLY = pytest.mark.parametrize(
    "store_env", [pytest.param("firestore", marks=pytest.mark.firestore)], indirect=True
)


def other_store() -> Any:
    """A second store on the same backend and data: another process's view of it."""
    reset()
    return open_store(get_settings())


def write(store: Any, slug: str, text: str, **fields: Any) -> None:
    """Create ``slug`` or replace its content and two chunks (their text is ``text``)."""
    chunks = [replace(c, text=f"{text} {c.ordinal}") for c in chunks_of(slug, unit(1), unit(0, 1))]
    record = replace(page(slug, **fields), content=f"# {slug}\n\n{text}\n")
    current = store.pages.get(slug)
    if current is None:
        store.pages.create(record, chunks)
    else:
        record = replace(record, version=current.version + 1)
        store.pages.update(record, chunks, expected_version=current.version)


def rewrite_fields(store: Any, slug: str, **fields: Any) -> None:
    """A metadata-only update (no chunks given): retag, archive."""
    current = store.pages.get(slug)
    record = replace(page(slug, **fields), content=current.content, version=current.version + 1)
    store.pages.update(record, None, expected_version=current.version)


def keys(index: LexicalIndex) -> list[tuple[str, int, int, tuple[str, ...]]]:
    return [(r.slug, r.ordinal, r.digest, r.tags) for r in index.rows]


def assert_up_to_date(reader: Any) -> None:
    """The warm index holds exactly the store's active chunks, as a full read finds them."""
    warm = INDEX.snapshot(reader.chunks).index
    assert keys(warm) == keys(LexicalIndex(reader.chunks.active_chunks()))


class Spy:
    """Calls of the reader's full read (``active_chunks``) and the chunk rows it read."""

    def __init__(self, chunks: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full_reads = 0
        self.rows_in_full = 0
        self.rows_by_slug = 0
        real_all, real_of = chunks.active_chunks, chunks.active_chunks_of

        def all_rows() -> Any:
            self.full_reads += 1
            rows = real_all()
            self.rows_in_full += len(rows)
            return rows

        def rows_of(slugs: Any) -> Any:
            rows = real_of(slugs)
            self.rows_by_slug += len(rows)
            return rows

        monkeypatch.setattr(chunks, "active_chunks", all_rows)
        monkeypatch.setattr(chunks, "active_chunks_of", rows_of)


def test_a_warm_index_applies_creates_updates_retags_and_archivals(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each kind of write by another process reaches the warm index without a full read."""
    reader = store
    write(reader, "uno", "primera versión")
    assert [k[0] for k in keys(INDEX.snapshot(reader.chunks).index)] == ["uno", "uno"]
    writer = other_store()
    spy = Spy(reader.chunks, monkeypatch)

    write(writer, "dos", "zorro ártico")  # create
    index = INDEX.snapshot(reader.chunks).index
    assert {h.key[0] for h in index.search("zorro", EVERYTHING, 5)} == {"dos"}
    write(writer, "uno", "segunda versión con pingüino")  # update
    index = INDEX.snapshot(reader.chunks).index
    assert [h.key[0] for h in index.search("pingüino", EVERYTHING, 5)] == ["uno", "uno"]
    assert not index.search("primera", EVERYTHING, 5)
    rewrite_fields(writer, "dos", tags=("nueva",))  # metadata only
    index = INDEX.snapshot(reader.chunks).index
    assert {h.key[0] for h in index.search("zorro", SearchFilter(tag="nueva"), 5)} == {"dos"}
    rewrite_fields(writer, "uno", status="archived")  # archival
    index = INDEX.snapshot(reader.chunks).index
    assert not index.search("pingüino", EVERYTHING, 5)
    assert spy.full_reads == 0
    assert spy.rows_by_slug == 2 + 2 + 2  # dos, uno, dos again; the archived page has none
    assert_up_to_date(reader)


def test_nothing_written_costs_no_chunk_read(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write(store, "uno", "texto")
    INDEX.snapshot(store.chunks)
    spy = Spy(store.chunks, monkeypatch)
    for _ in range(3):
        INDEX.snapshot(store.chunks)
    assert (spy.full_reads, spy.rows_by_slug) == (0, 0)


def test_concurrent_writers_are_never_missed(store: Any) -> None:
    """Four writer threads (each its own store) while the reader keeps catching up."""
    reader = store
    write(reader, "semilla", "inicio")
    INDEX.snapshot(reader.chunks)
    writers = [other_store() for _ in range(4)]
    done = threading.Event()
    errors: list[BaseException] = []

    def writing(n: int, target: Any) -> None:
        try:
            for i in range(6):
                write(target, f"w{n}-{i % 4}", f"escritor {n} vuelta {i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reading() -> None:
        while not done.is_set():
            INDEX.snapshot(reader.chunks)

    threads = [threading.Thread(target=writing, args=(n, w)) for n, w in enumerate(writers)]
    watcher = threading.Thread(target=reading)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    watcher.join()
    assert not errors
    assert_up_to_date(reader)


@pytest.mark.firestore
@pytest.mark.parametrize("store_env", ["firestore"], indirect=True)
def test_an_entry_committed_late_with_an_earlier_time_is_applied(
    store_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Firestore: a write whose log time is before the reader's mark (a slow transaction
    that committed after a later one, as the emulator or a skewed clock may show it)."""
    from shared.store.firestore import changes

    reader = open_store(get_settings())
    write(reader, "temprana", "antes")
    INDEX.snapshot(reader.chunks)
    write(other_store(), "tardía", "después")
    INDEX.snapshot(reader.chunks)  # the mark is now the later write's commit time
    latest = reader.db.collection(changes.COLLECTION).order_by("at", direction="DESCENDING")
    mark = next(iter(latest.limit(1).stream())).to_dict()["at"]
    early = mark - timedelta(seconds=changes.OVERLAP_S / 2)  # within the look-back
    monkeypatch.setattr(changes, "SERVER_TIMESTAMP", early)
    write(other_store(), "lenta", "confirmada tarde")
    index = INDEX.snapshot(reader.chunks).index
    assert {h.key[0] for h in index.search("confirmada", EVERYTHING, 5)} == {"lenta"}
    assert_up_to_date(reader)


@pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
def test_sqlite_a_slow_transaction_orders_the_writes_after_it(
    store_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite: a writer holding its transaction open makes the next one wait; the reader
    sees the two in commit order, the later one never before the slow one."""
    from shared.store.sqlite import chunks as chunk_rows

    reader = open_store(get_settings())
    assert isinstance(reader, SqliteStore)
    write(reader, "base", "inicio")
    INDEX.snapshot(reader.chunks)
    slow_inside = threading.Event()
    release = threading.Event()
    real_replace = chunk_rows.replace

    def slow_replace(conn: Any, record: Any, chunks: Any) -> None:
        real_replace(conn, record, chunks)
        if record.slug == "lenta":
            slow_inside.set()
            release.wait(10)

    monkeypatch.setattr(chunk_rows, "replace", slow_replace)
    slow = threading.Thread(target=write, args=(other_store(), "lenta", "primera en empezar"))
    slow.start()
    assert slow_inside.wait(10)
    fast = threading.Thread(target=write, args=(other_store(), "rápida", "segunda"))
    fast.start()
    time.sleep(0.3)
    assert {r.slug for r in INDEX.snapshot(reader.chunks).index.rows} == {"base"}
    release.set()
    slow.join()
    fast.join()
    assert_up_to_date(reader)
    assert {r.slug for r in INDEX.snapshot(reader.chunks).index.rows} == {
        "base",
        "lenta",
        "rápida",
    }


@pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
def test_sqlite_a_log_that_cannot_say_makes_a_full_read(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cursor older than the kept log: everything is read again rather than guessed."""
    from shared.store.sqlite import changes as log

    write(store, "uno", "texto")
    INDEX.snapshot(store.chunks)
    monkeypatch.setattr(log, "KEEP", 1)
    writer = other_store()
    write(writer, "dos", "dos")
    write(writer, "tres", "tres")
    spy = Spy(store.chunks, monkeypatch)
    INDEX.snapshot(store.chunks)
    assert spy.full_reads == 1
    assert_up_to_date(store)


@FIRESTORE_ONLY
def test_firestore_an_idle_reader_reads_the_pages_written_not_everything(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader idle for half the log's retention may have lost entries to the TTL: it
    asks the pages' own commit times instead (creates, updates, re-tags, archivals)."""
    from shared.store.firestore import changes as log

    for slug in ("uno", "dos", "tres", "cuatro"):
        write(store, slug, "texto")
    for n in range(20):
        write(store, f"quieta-{n}", "nadie la toca")
    time.sleep(log.OVERLAP_S + 0.5)  # the reader's look-back will not reach these
    INDEX.snapshot(store.chunks)
    monkeypatch.setattr(log, "RETENTION_S", 0.0)  # every reader now counts as idle
    writer = other_store()
    write(writer, "uno", "reescrita")
    write(writer, "nueva", "nueva")
    rewrite_fields(writer, "dos", tags=("otra",))
    rewrite_fields(writer, "tres", status="archived")
    spy = Spy(store.chunks, monkeypatch)
    INDEX.snapshot(store.chunks)
    assert spy.full_reads == 0
    assert spy.rows_by_slug == 6  # uno, nueva and dos, two chunks each; tres has none
    assert_up_to_date(store)


@FIRESTORE_ONLY
def test_firestore_pages_written_before_their_commit_time_was_kept_force_a_full_read(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page document without ``written_at`` (written by an older version) could hide a
    write from an idle reader: then it reads everything, as before."""
    from google.cloud import firestore

    from shared.store.firestore import changes as log

    write(store, "vieja", "texto")
    store.db.collection("pages").document("vieja").update({log.WRITTEN_AT: firestore.DELETE_FIELD})
    INDEX.snapshot(store.chunks)
    monkeypatch.setattr(log, "RETENTION_S", 0.0)
    write(other_store(), "nueva", "nueva")
    spy = Spy(store.chunks, monkeypatch)
    INDEX.snapshot(store.chunks)
    assert spy.full_reads == 1
    assert_up_to_date(store)


def test_reads_after_a_one_page_write_do_not_grow_with_the_wiki(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same reads to catch up with one written page at 50 pages and at 500: counted at
    the Firestore client (documents billed), or on SQLite as the chunk rows read.

    On Firestore the log entries of the reader's last ``OVERLAP_S`` are read again (here
    the pages just created): the write comes once that has passed, as a later one would."""
    from shared.store.firestore import changes

    monkeypatch.setattr(changes, "OVERLAP_S", 0.5)
    reader = store
    writer = other_store()
    spy = Spy(reader.chunks, monkeypatch)
    firestore_counts = None
    if not isinstance(reader, SqliteStore):
        from tests.fixtures.store_reads import counted

        firestore_counts = counted(reader)

    def reads() -> int:
        if firestore_counts is not None:
            return firestore_counts.reads
        return spy.rows_by_slug + spy.rows_in_full

    costs = []
    written = 0
    for size in (50, 500):
        for i in range(written, size):
            writer.pages.create(page(f"p{i:04d}"), chunks_of(f"p{i:04d}", unit(1), unit(0, 1)))
        written = size
        INDEX.snapshot(reader.chunks)  # warm, up to date
        time.sleep(0.6)
        INDEX.snapshot(reader.chunks)
        write(writer, "p0001", f"editada a {size} páginas")
        before = reads()
        INDEX.snapshot(reader.chunks)
        costs.append(reads() - before)
    assert costs[0] == costs[1], costs
    # The written page's two chunks, the log, the embedders: a constant beside them.
    assert costs[0] <= 2 + 4, costs
    assert_up_to_date(reader)


def test_a_cold_instance_starts_from_the_stored_snapshot_and_the_changes_since(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first full read stores a snapshot; a later cold instance reads it and the pages
    written since, never every chunk (nor the pages written just before the full read:
    the cursor taken first marks the log's last ``OVERLAP_S`` applied)."""
    for slug in ("uno", "dos", "tres"):
        write(store, slug, f"texto de {slug}")
    INDEX.snapshot(store.chunks)  # a full read: it saves the snapshot
    INDEX.settle()
    assert store.chunks.load_snapshot() is not None
    write(other_store(), "cuatro", "escrita después")
    rewrite_fields(other_store(), "dos", status="archived")
    cold = other_store()
    spy = Spy(cold.chunks, monkeypatch)
    index = INDEX.snapshot(cold.chunks).index
    assert spy.full_reads == 0
    assert spy.rows_by_slug == 2  # cuatro's two chunks; dos is archived: none
    assert {r.slug for r in index.rows} == {"uno", "tres", "cuatro"}
    assert_up_to_date(cold)


def test_an_unreadable_snapshot_costs_a_full_read(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged payload (SQLite) or a part gone (Firestore) is read as no snapshot."""
    write(store, "uno", "texto")
    INDEX.snapshot(store.chunks)
    INDEX.settle()
    if isinstance(store, SqliteStore):
        with store.db.write() as conn:
            conn.execute("UPDATE index_snapshot SET payload = x'00ff'")
    else:
        from shared.store.firestore import snapshots

        parts = list(store.db.collection(snapshots.PARTS).stream())
        assert parts
        parts[0].reference.delete()
    cold = other_store()
    spy = Spy(cold.chunks, monkeypatch)
    INDEX.snapshot(cold.chunks)
    assert spy.full_reads == 1
    assert_up_to_date(cold)


def test_a_warm_instance_refreshes_the_stored_snapshot(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After ``REFRESH_PAGES`` applied pages the stored snapshot moves up to the instance."""
    monkeypatch.setattr(hybrid, "REFRESH_PAGES", 2)
    write(store, "uno", "texto")
    INDEX.snapshot(store.chunks)
    INDEX.settle()
    first = store.chunks.load_snapshot()
    writer = other_store()
    write(writer, "dos", "dos")
    INDEX.snapshot(store.chunks)
    INDEX.settle()
    assert store.chunks.load_snapshot() == first  # one page applied: not yet
    write(writer, "tres", "tres")
    INDEX.snapshot(store.chunks)
    INDEX.settle()
    refreshed = store.chunks.load_snapshot()
    assert refreshed is not None
    assert refreshed != first
    cold = other_store()
    spy = Spy(cold.chunks, monkeypatch)
    INDEX.snapshot(cold.chunks)
    assert (spy.full_reads, spy.rows_by_slug) == (0, 0)
    assert_up_to_date(cold)
