"""rebuild's edges: its request checks, overlapping runs, the CLI and a real serve process."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from shared.bootstrap import open_store
from shared.cli import main
from shared.config import get_settings
from shared.publish.local import LocalPublisher
from shared.records import PageRecord, Publication
from shared.services.site_build import IN_PROGRESS, OK
from tests.fixtures.wiring import rebuild

Client = Callable[[str], Any]


def put(store: Any, slug: str, **front_matter: Any) -> None:
    fm = {"title": slug.title(), "type": "concept", **front_matter}
    now = datetime.now(UTC)
    store.pages.create(PageRecord(slug, fm, "Texto.", 1, now, now), [])


@pytest.mark.parametrize(
    ("body", "field"),
    [({"full": "yes"}, "full"), ({"full": 1}, "full"), ({"ful": True}, "ful")],
)
def test_a_bad_body_is_a_400_naming_the_field(
    client: Client, auth: Any, body: dict[str, Any], field: str
) -> None:
    """full must be a boolean; unknown fields are refused."""
    reply = client("rebuild").post("/", json=body, headers=auth)
    assert reply.status_code == 400
    assert reply.get_json()["code"] == "validation_error"
    assert reply.get_json()["field"] == field


def test_rebuild_needs_write_credentials(client: Client) -> None:
    """Without the bearer token: 401, nothing built."""
    reply = client("rebuild").post("/", json={})
    assert reply.status_code == 401
    assert not (Path(get_settings().site_location) / "index.html").exists()


def test_rebuild_is_post_only(client: Client, auth: Any) -> None:
    """GET is a 405 with Allow: POST."""
    reply = client("rebuild").get("/", headers=auth)
    assert reply.status_code == 405
    assert reply.headers["Allow"] == "POST"


def test_a_report_folder_inside_the_site_is_refused(
    client: Client, auth: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A private report inside the public site is a configuration error, still in report form."""
    monkeypatch.setenv("BIBLIOTECA_REPORT_DIR", str(Path(get_settings().site_location) / "private"))
    get_settings.cache_clear()
    reply = client("rebuild").post("/", json={}, headers=auth)
    assert reply.status_code == 503
    body = reply.get_json()
    assert (body["status"], body["code"]) == ("failed", "not_configured")
    assert "BIBLIOTECA_REPORT_DIR" in body["error"]
    assert body["built"] == 0


class GatedPublisher(LocalPublisher):
    """A real local publisher that waits at a gate before publishing (to overlap two runs)."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.entered = threading.Event()
        self.release = threading.Event()

    def publish(self, publication: Publication) -> None:
        self.entered.set()
        assert self.release.wait(30)
        super().publish(publication)


def test_overlapping_runs_never_interleave(store: Any) -> None:
    """While one run is building, a second gets rebuild_in_progress and publishes nothing."""
    put(store, "concept—a")
    settings = get_settings()
    gated = GatedPublisher(settings.site_location)
    results: dict[str, Any] = {}
    first = threading.Thread(
        target=lambda: results.update(first=rebuild(settings, publisher=gated))
    )
    first.start()
    assert gated.entered.wait(30)
    second = rebuild(settings, full=True)
    gated.release.set()
    first.join(30)
    assert second.status == IN_PROGRESS
    assert second.http_status == 409
    assert results["first"].status == OK
    assert rebuild(settings).status == OK  # the lease was released


def test_cli_prints_the_report_and_exits_by_outcome(
    env: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """biblioteca rebuild --json: 0 when ok; 1 when a page failed or the lease was held."""
    store = open_store(get_settings())
    put(store, "concept—a")
    assert main(["rebuild", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "ok"

    put(store, "concept—b", type="novela")
    assert main(["rebuild"]) == 1
    out = capsys.readouterr().out
    assert "failed  concept—b" in out
    assert "(type)" in out

    assert store.site.acquire_lease("someone", 60)
    assert main(["rebuild", "--full", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == "rebuild_in_progress"


def test_the_cli_refuses_unknown_options(capsys: pytest.CaptureFixture[str]) -> None:
    """A usage error exits 2."""
    with pytest.raises(SystemExit) as exc:
        main(["rebuild", "--fast"])
    assert exc.value.code == 2


def fetch(url: str, body: dict[str, Any] | None = None, token: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read().decode()


def test_serve_demo_builds_the_site_and_rebuild_updates_it(env: Any, serve: Any) -> None:
    """A real `biblioteca serve --demo` serves the built site at /; POST /rebuild refreshes it."""
    store = open_store(get_settings())
    put(store, "concept—servida", title="Página servida")
    url = serve(args=["--demo"])
    status, index = fetch(f"{url}/")
    assert status == 200
    assert "Página servida" in index
    assert 'src="static/widget.js"' in index
    assert fetch(f"{url}/concept%E2%80%94servida/")[0] == 200
    assert fetch(f"{url}/static/widget.js")[0] == 200

    put(store, "concept—nueva", title="Página nueva")
    status, text = fetch(f"{url}/rebuild", {}, env["BIBLIOTECA_API_TOKEN"])
    assert status == 200
    assert json.loads(text)["built"] >= 1
    assert "Página nueva" in fetch(f"{url}/")[1]
