"""``biblioteca status`` on both stores: pages by status, the last rebuild (a failure
loudly, exit 1), the feedback waiting."""

from __future__ import annotations

import json

import pytest

from shared.bootstrap import reset, reset_limits
from shared.cli import main
from shared.config import get_settings
from tests.fixtures.server import Api
from tests.functions.test_ask import PAGES


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["status", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def api(store_env: str) -> Api:
    del store_env
    reset_limits()
    return Api("client")


def test_an_empty_store_says_so(api: Api, capsys: pytest.CaptureFixture[str]) -> None:
    """No pages, no rebuild yet, no feedback: exit 0."""
    del api
    status, out, _ = run(capsys)
    assert status == 0
    assert "pages:     0 (none)" in out
    assert "rebuild:   never run (biblioteca rebuild)" in out
    assert "feedback:  0 in the last 7 days" in out


def test_pages_rebuild_and_feedback_at_a_glance(
    api: Api, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pages by status, the last rebuild's outcome and publication, feedback waiting."""
    for page in PAGES:
        assert api.post("wiki_create", page).status == 201
    draft = {**PAGES[0], "slug": "runbook—pool-2"}
    draft["front_matter"] = {**PAGES[0]["front_matter"], "status": "draft"}
    assert api.post("wiki_create", draft).status == 201
    report = {"slug": "guide—vacaciones", "rating": "down", "reason": "unclear"}
    assert api.post("feedback", report, token=None).status == 200
    assert main(["rebuild"]) == 0
    capsys.readouterr()

    status, out, _ = run(capsys, "--json")

    assert status == 0
    state = json.loads(out)
    assert state["store"]["kind"] == get_settings().store
    assert state["pages"] == {"total": 4, "by_status": {"active": 3, "draft": 1}, "stale": []}
    assert state["rebuild"]["last"]["status"] == "ok"
    assert state["rebuild"]["last"]["built"] == 3
    assert state["rebuild"]["failed"] is False
    assert state["rebuild"]["published"]["build_id"]
    assert state["feedback"] == {"days": 7, "count": 1, "down": 1, "up": 0}
    human = run(capsys)[1]
    assert "pages:     4 (3 active, 1 draft)" in human
    assert "rebuild:   ok at " in human
    assert "!!" not in human


def test_stale_pages_and_open_gaps_at_a_glance(
    api: Api, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page citing a path the code index lost is counted stale and named; a question the
    wiki could not answer is an open gap."""
    lost = {"repo": "app", "paths": ["src/app/main.py", "src/app/viejo.py"]}
    assert api.post("index_code", lost).status == 200
    kept = {"repo": "app", "paths": ["src/app/main.py"], "replace": True}
    assert api.post("index_code", kept).status == 200
    page = {
        "content": "# Arranque\n\nEl servidor arranca en `src/app/viejo.py`.",
        "front_matter": {"title": "Arranque", "type": "guide", "sources": ["src/app/viejo.py"]},
    }
    assert api.post("wiki_create", page).status == 201
    assert (
        api.post("ask", {"question": "¿Cuál es la receta de la paella?"}, token=None).status == 200
    )
    capsys.readouterr()

    state = json.loads(run(capsys, "--json")[1])
    human = run(capsys)[1]

    assert state["pages"]["stale"] == ["guide—arranque"]
    assert state["gaps"]["open"] == 1
    assert "stale:     1 (guide—arranque) · biblioteca freshness" in human
    assert "gaps:      1 open, 0 closed in the last 7 days · biblioteca gaps" in human


def test_a_failed_last_rebuild_is_the_first_line_and_exit_1(
    api: Api, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild that could not run (its report would land inside the public site) is
    recorded; status opens with it, names the error and the publication still served."""
    assert api.post("wiki_create", PAGES[0]).status == 201
    assert main(["rebuild"]) == 0
    site = get_settings().site_location
    monkeypatch.setenv("BIBLIOTECA_REPORT_DIR", f"{site}/private")
    get_settings.cache_clear()
    reset()
    assert main(["rebuild"]) != 0
    capsys.readouterr()

    status, out, _ = run(capsys)
    json_status, json_out, err = run(capsys, "--json")

    assert status == 1
    first = out.splitlines()[0]
    assert first.startswith("!! THE LAST REBUILD FAILED at ")
    assert "the site is the one published " in first
    assert "rebuild:   failed at " in out
    assert json_status == 1
    assert json.loads(json_out)["rebuild"]["failed"] is True
    # stderr: the line naming the store every command prints, then the failure, loudly.
    banner, alarm = err.splitlines()[:2]
    assert banner.startswith("biblioteca: store: ")
    assert alarm.startswith("!! THE LAST REBUILD FAILED")
