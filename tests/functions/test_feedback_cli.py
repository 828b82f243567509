"""``biblioteca feedback`` on both stores: ask → 👎 → the curator sees the vote with its
trace, grouped by page; ``--since`` and ``--json``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from shared.bootstrap import open_store, reset_limits
from shared.cli import main
from shared.config import get_settings
from shared.records import FeedbackRecord
from tests.fixtures.server import Api
from tests.functions.test_ask import PAGES

QUESTION = "¿Qué controla DB_POOL_SIZE?"


@pytest.fixture
def voted(store_env: str) -> dict[str, Any]:
    """ask's pages, one answer with a 👎 (outdated) and one report on another page."""
    del store_env
    reset_limits()
    api = Api("client")
    for page in PAGES:
        assert api.post("wiki_create", page).status == 201
    answer = api.post("ask", {"question": QUESTION}, token=None).json
    vote = {
        "answer_id": answer["answer_id"],
        "rating": "down",
        "reason": "outdated",
        "comment": "el valor por defecto ya es 20",
    }
    assert api.post("feedback", vote, token=None).status == 200
    report = {"slug": "guide—vacaciones", "rating": "down", "reason": "unclear"}
    assert api.post("feedback", report, token=None).status == 200
    return answer


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["feedback", *args])
    return status, capsys.readouterr().out


def test_the_curator_sees_each_vote_under_its_page_with_the_trace(
    voted: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """--json: groups by page, the answer's vote under the page it ranked first, with the
    page version that produced it."""
    status, out = run(capsys, "--json")
    assert status == 0
    payload = json.loads(out)
    assert payload["count"] == 2
    groups = {g["slug"]: g for g in payload["pages"]}
    assert set(groups) == {"runbook—pool", "guide—vacaciones"}
    [item] = groups["runbook—pool"]["items"]
    assert (item["rating"], item["reason"]) == ("down", "outdated")
    assert item["trace"]["answer_id"] == voted["answer_id"]
    assert item["trace"]["sources"][0] == {
        "slug": "runbook—pool",
        "score": voted["sources"][0]["score"],
        "version": 1,
    }
    assert groups["guide—vacaciones"]["items"][0]["trace"] is None


def test_the_human_listing_names_page_version_question_and_comment(
    voted: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The terminal lines say which page version produced the wrong answer."""
    status, out = run(capsys, "--since", "1d")
    assert status == 0
    assert "runbook—pool  — 1 down, 0 up" in out
    assert "[outdated]" in out
    assert f"question: {QUESTION}" in out
    assert "runbook—pool v1 (" in out
    assert "comment: el valor por defecto ya es 20" in out
    assert out.strip().endswith("2 item(s) on 2 page(s) in the last 1d")


def test_since_leaves_older_votes_out_and_a_bad_value_is_a_usage_error(
    voted: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """A vote older than --since is not listed; --since 7x exits 2 naming the option."""
    store = open_store(get_settings())
    old = FeedbackRecord(
        id="old",
        rating="down",
        reason="other",
        comment="viejo",
        answer_id=None,
        slug="runbook—pool",
        question=None,
        origin="http",
        at=datetime.now(UTC) - timedelta(days=10),
    )
    store.feedback.record(old)
    assert json.loads(run(capsys, "--json")[1])["count"] == 2
    assert json.loads(run(capsys, "--json", "--since", "2w")[1])["count"] == 3
    status = main(["feedback", "--since", "7x"])
    assert status == 2
    assert "--since" in capsys.readouterr().err


def test_since_takes_an_iso_date_as_gaps_does(
    voted: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """``feedback --since 2026-11-01`` lists the votes since that day (it used to be
    refused: only ``gaps`` read dates)."""
    day = (datetime.now(UTC) - timedelta(days=3)).date().isoformat()
    status, out = run(capsys, "--json", "--since", day)
    assert status == 0
    assert json.loads(out)["count"] == 2
    assert json.loads(out)["since"].startswith(day)
    assert run(capsys, "--since", day)[1].strip().endswith(f"page(s) since {day}")


def test_the_curator_report_lists_the_feedback_with_its_trace(
    voted: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """biblioteca rebuild writes the report's feedback section: page, vote, page version."""
    assert main(["rebuild"]) == 0
    capsys.readouterr()
    report = Path(get_settings().report_location)
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    html = (report / "index.html").read_text(encoding="utf-8")

    # One 👎 each: the latest vote's page first.
    assert [g["slug"] for g in data["feedback"]] == ["guide—vacaciones", "runbook—pool"]
    assert data["feedback"][1]["items"][0]["trace"]["answer_id"] == voted["answer_id"]
    assert "Feedback, last 30 days (2 down, 0 up)" in html
    assert "<code>runbook—pool</code> v1" in html
    assert "el valor por defecto ya es 20" in html


def test_feedback_on_a_follow_up_names_its_thread(
    store_env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 👎 on "¿y su valor por defecto?" shows the question it followed and how it was read,
    on either store."""
    del store_env
    reset_limits()
    api = Api("client")
    for page in PAGES:
        assert api.post("wiki_create", page).status == 201
    history = [{"question": QUESTION, "answer": "Fija el tamaño del pool [1]."}]
    body = {"question": "¿y su valor por defecto?", "history": history}
    answer = api.post("ask", body, token=None).json
    vote = {"answer_id": answer["answer_id"], "rating": "down"}
    assert api.post("feedback", vote, token=None).status == 200
    capsys.readouterr()  # the requests' own log lines
    status, out = run(capsys, "--json")
    assert status == 0
    [trace] = [i["trace"] for g in json.loads(out)["pages"] for i in g["items"]]
    assert trace["question"] == "¿y su valor por defecto?"
    assert trace["thread"] == [QUESTION]
    assert trace["standalone"] == answer["standalone_question"]
    status, out = run(capsys)
    assert f"thread 1: {QUESTION}" in out
    assert f"read as:  {answer['standalone_question']}" in out


ESCAPES = "\x1b[2J\x1b]0;owned\x07\r\u202e"  # clear, retitle, bell, carriage return, RTL


def test_escape_sequences_from_anonymous_text_never_reach_the_terminal(
    store_env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A comment, a question and a reason holding terminal escapes print as visible text;
    --json escapes them as JSON does."""
    del store_env
    reset_limits()
    api = Api("client")
    for page in PAGES:
        assert api.post("wiki_create", page).status == 201
    vote = {
        "slug": "guide—vacaciones",
        "rating": "down",
        "reason": "other",
        "comment": f"borra{ESCAPES}la pantalla",
        "question": f"¿y{ESCAPES}esto?\nforged: line",
    }
    assert api.post("feedback", vote, token=None).status == 200
    status, out = run(capsys)
    assert status == 0
    assert not any(c in out for c in "\x1b\x07\r\u202e")
    assert "\\x1b[2J" in out
    assert not any(line.startswith("forged") for line in out.splitlines())
    status, out = run(capsys, "--json")
    assert "\x1b" not in out
    assert "\\u001b" in out
