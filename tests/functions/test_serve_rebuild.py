"""`biblioteca serve` rebuilds its local site after a write it served (debounced)."""

from __future__ import annotations

import json
import threading
import time

import httpx

from shared.cli.site_refresh import Refresher
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import ServerFactory

AUTH = {"Authorization": f"Bearer {TOKEN}"}
TIMEOUT = httpx.Timeout(60)


def _create(http: httpx.Client, title: str) -> str:
    reply = http.post(
        "/wiki_create",
        json={
            "content": f"# {title}\n\nEscrita por la API.",
            "front_matter": {"title": title, "type": "guide"},
        },
        headers=AUTH,
    )
    assert reply.status_code == 201, reply.text
    return str(reply.json()["slug"])


def _wait_for(http: httpx.Client, path: str, seconds: float = 45) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while True:
        reply = http.get(path)
        if reply.status_code == 200 or time.monotonic() > deadline:
            return reply
        time.sleep(0.25)


def test_a_page_written_through_the_api_appears_on_the_local_site(
    env: dict[str, str], serve: ServerFactory
) -> None:
    """No manual rebuild: a burst of writes gives one build, seconds after the last one."""
    url = serve()
    with httpx.Client(base_url=url, timeout=TIMEOUT) as http:
        slugs = [_create(http, f"Página servida {n}") for n in range(3)]
        page = _wait_for(http, f"/{slugs[-1]}/")
        assert page.status_code == 200, page.text
        assert "Página servida 2" in page.text
        for slug in slugs:
            assert http.get(f"/{slug}/").status_code == 200
        http.post("/wiki_update", json={"slug": slugs[0], "content": "Editada."}, headers=AUTH)
        deadline = time.monotonic() + 45
        while "Editada." not in http.get(f"/{slugs[0]}/").text and time.monotonic() < deadline:
            time.sleep(0.25)
        assert "Editada." in http.get(f"/{slugs[0]}/").text
    stdout, _ = serve.output(url)
    builds = [
        json.loads(line)
        for line in stdout.splitlines()
        if line.startswith("{") and "site rebuilt after a write" in line
    ]
    assert len(builds) == 2  # the burst of three creates, then the update


def test_no_rebuild_flag_leaves_the_site_alone(env: dict[str, str], serve: ServerFactory) -> None:
    url = serve(args=("--no-rebuild",))
    with httpx.Client(base_url=url, timeout=TIMEOUT) as http:
        slug = _create(http, "Sin reconstruir")
        time.sleep(4)
        assert http.get(f"/{slug}/").status_code == 404


def test_the_refresher_debounces_and_runs_one_build_at_a_time() -> None:
    running = threading.Semaphore(1)
    calls: list[float] = []
    overlap: list[bool] = []

    def build() -> None:
        overlap.append(not running.acquire(blocking=False))
        calls.append(time.monotonic())
        time.sleep(0.3)
        running.release()

    refresher = Refresher(build, delay=0.2)
    for _ in range(5):
        refresher.poke()
        time.sleep(0.05)
    time.sleep(0.35)  # the build is running now
    refresher.poke()  # asks for one more after it
    time.sleep(1.5)
    assert len(calls) == 2
    assert overlap == [False, False]
