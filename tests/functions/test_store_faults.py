"""Faults answer what they are: a damaged SQLite file, a full disk, a Firestore that is down."""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.api.models import AskRequest, WikiCreateRequest
from shared.bootstrap import open_store, reset, wiring
from shared.config import get_settings
from shared.errors import Unavailable
from shared.providers.local_embedder import shared_local_embedder
from shared.services.site_build import build_site
from shared.services.wiki import create_page
from shared.store.firestore.db import RETRY_DEADLINE_S
from tests.fixtures.contract import assert_error
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import Reply, ServerFactory, with_file_limit

ROOT = Path(__file__).resolve().parents[2]
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def page(i: int, text: str = "") -> dict[str, Any]:
    body = text or f"La página {i} explica cómo se rota el certificado número {i}. " * 20
    return {
        "content": f"# Página {i}\n\n{body}",
        "front_matter": {"title": f"P{i}", "type": "guide"},
    }


def fill(store: Any, pages: int = 12) -> Path:
    """Pages written the way the API writes them; the SQLite file's path."""
    for i in range(pages):
        create_page(WikiCreateRequest.parse(page(i)), store, shared_local_embedder(), actor="test")
    return Path(store.db.path)


def damage(path: Path, table: str = "chunks") -> None:
    """Overwrite the head of one b-tree page of ``table`` in the real file (a torn write)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rows live in the file itself now
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * size)
        file.write(b"\xff" * 64)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def post(url: str, name: str, body: Any) -> Reply:
    response = httpx.post(f"{url}/{name}", json=body, headers=AUTH, timeout=120)
    return Reply(response.status_code, response.headers, response.text, response.json())


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shared", *args],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )


# -- a damaged SQLite file ------------------------------------------------------------------


def test_a_file_damaged_before_the_process_opens_it_is_a_503_naming_it(
    env: dict[str, str], serve: ServerFactory, tmp_path: Path
) -> None:
    """quick_check on open: ask and writes are 503 naming the file, the CLI says one line."""
    path = fill(open_store(get_settings()))
    reset()
    damage(path)
    before = digest(path)
    url = serve()

    asked = post(url, "ask", {"question": "¿Cómo se rota el certificado?"})
    assert_error(asked, 503, "upstream_unavailable")
    assert str(path) in asked.json["error"]
    assert "damaged" in asked.json["error"]
    created = post(url, "wiki_create", page(99))
    assert_error(created, 503, "upstream_unavailable")
    assert str(path) in created.json["error"]

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "nueva.md").write_text("# Nueva\n\nTexto.", encoding="utf-8")
    for args in (["ask", "¿Cómo se rota el certificado?"], ["import", str(tmp_path / "docs")]):
        done = cli(*args)
        assert done.returncode == 1, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, (done.stderr, done.stdout)
        assert lines[0].startswith("biblioteca: ")
        assert str(path) in lines[0]
        assert "Traceback" not in done.stderr + done.stdout
    assert digest(path) == before  # nothing was written on top of the damage


def test_damage_found_by_a_running_process_stops_its_writes(env: dict[str, str]) -> None:
    """A process that opened a sound file meets the damage on a read: 503, then no writes."""
    store = open_store(get_settings())
    path = fill(store)
    store.db.close()  # drop this thread's connection: its page cache would hide the damage
    damage(path)
    before = digest(path)

    with pytest.raises(Unavailable) as read:
        wiring().ask(
            AskRequest.parse({"question": "¿Cómo se rota el certificado?"}), authorized=False
        )
    assert str(path) in read.value.message
    with pytest.raises(Unavailable) as write:
        create_page(WikiCreateRequest.parse(page(99)), store, shared_local_embedder(), actor="test")
    assert "damaged" in write.value.message
    assert digest(path) == before


# -- a full disk ----------------------------------------------------------------------------

FILE_LIMIT = 3 * 1024 * 1024  # what this server may write to one file: its "disk"


def test_a_full_disk_is_a_503_that_says_so_and_rebuild_still_reports(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """Writes past the room are 503 "full", nothing half-written; reads work; a rebuild
    that finds no room fails saying so."""
    # Without the enrichment worker: its proposals would take the room the writes are
    # measured against, and its log lines the 16 KiB the tight server's stderr may hold.
    url = serve(args=["--no-enrich"], file_limit=FILE_LIMIT)
    big = "Texto largo sobre certificados y su rotación periódica. " * 4000  # ~220 KB
    written: list[str] = []
    refusals: list[Reply] = []
    # Big pages until one finds no room, then small ones until even those find none.
    for text in [big] * 30 + ["x"] * 200:
        if len(refusals) == (1 if text == big else 2):
            continue
        reply = post(url, "wiki_create", page(len(written), text))
        if reply.status == 201:
            written.append(reply.json["slug"])
        else:
            refusals.append(reply)
    assert len(refusals) == 2, "the file-size limit never filled the store"
    assert written
    for reply in refusals:
        assert_error(reply, 503, "upstream_unavailable")
        assert "is full" in reply.json["error"], reply.json
        assert "biblioteca.sqlite3" in reply.json["error"]

    asked = post(url, "ask", {"question": "¿Cómo se rotan los certificados?"})
    assert asked.status == 200, asked.text[:300]
    # A file-size limit is per file, not a disk: the store's log and its file each have
    # their own room. The rebuild runs where no file may grow past 16 KiB (the site's
    # widget script is larger), as the command line: a server under that limit keeps its
    # own log files within it too, and on a busy CI box one exited before its first line.
    tight = subprocess.run(
        with_file_limit([sys.executable, "-m", "shared", "rebuild", "--json"], 16_384),
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tight.returncode == 1, tight.stdout[-300:]
    assert "full" in tight.stdout + tight.stderr, tight.stderr[-300:]

    stored = open_store(get_settings()).pages  # this process has no file-size limit
    assert sorted(r.slug for r in stored.list()) == sorted(written)  # every 201 kept, no other


# -- Firestore down ---------------------------------------------------------------------------


@pytest.fixture
def firestore_down(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The Firestore store configured on a port where nothing listens (connections refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        host = f"127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.setenv("BIBLIOTECA_STORE", "firestore")
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", host)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "test-firestore-down")
    get_settings.cache_clear()
    reset()
    return host


@pytest.mark.firestore
def test_rebuild_with_firestore_down_is_a_prompt_failed_report(firestore_down: str) -> None:
    """503 with the report body (not 409 rebuild_in_progress after ~45 s), within the retry
    deadline: the store's calls carry their own deadline, not the client's 60 s defaults."""
    started = time.monotonic()
    w = wiring()
    report = build_site(
        w.settings, store=w.store, publisher=w.publisher(), curator_report=w.curator_report()
    )
    elapsed = time.monotonic() - started
    assert report.http_status == 503
    body = report.response().body()
    assert (body["status"], body["code"]) == ("failed", "upstream_unavailable")
    assert "did not answer" in body["error"]
    assert elapsed < 2 * RETRY_DEADLINE_S, elapsed


@pytest.mark.firestore
def test_a_request_to_a_store_that_is_down_costs_the_retry_deadline(
    firestore_down: str, serve: ServerFactory
) -> None:
    """Through a real server: wiki_update answers 503 within twice the retry deadline."""
    url = serve()
    post(url, "wiki_update", {"slug": "concept—x", "content": "y"})  # imports the client
    started = time.monotonic()
    reply = post(url, "wiki_update", {"slug": "concept—x", "content": "y"})
    elapsed = time.monotonic() - started
    assert_error(reply, 503, "upstream_unavailable")
    assert elapsed < 2 * RETRY_DEADLINE_S, elapsed
