"""Request logs: one JSON line per request on stdout, in Cloud Logging's shape, never a token."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures.secrets import TOKEN

WRONG = "wrong-token-9876543210"


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_each_request_logs_one_json_line_on_stdout(
    client: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    """severity, message, httpRequest {method, url, status, latency}; code on errors."""
    app = client("wiki_create")
    headers = {"Authorization": f"Bearer {TOKEN}"}
    app.post(
        "/",
        json={"content": "x", "front_matter": {"title": "Log", "type": "concept"}},
        headers=headers,
    )
    app.post(
        "/",
        json={"content": "x", "front_matter": {"title": "Log", "type": "blog"}},
        headers=headers,
    )
    app.get("/")
    out, _ = capfd.readouterr()
    lines = [line for line in json_lines(out) if "httpRequest" in line]
    assert [line["httpRequest"]["status"] for line in lines] == [201, 400, 405]
    assert [line["severity"] for line in lines] == ["INFO", "WARNING", "WARNING"]
    assert [line.get("code") for line in lines] == [None, "validation_error", "method_not_allowed"]
    for line in lines:
        assert line["message"].startswith("wiki_create ")
        assert line["function"] == "wiki_create"
        request = line["httpRequest"]
        assert request["requestMethod"] in ("POST", "GET")
        assert request["latency"].endswith("s")
        float(request["latency"][:-1])
        assert "time" in line


def test_no_token_appears_in_any_output(client: Any, capfd: pytest.CaptureFixture[str]) -> None:
    """Neither the configured token nor a presented wrong one is ever printed or logged."""
    for name in ("wiki_create", "wiki_update"):
        app = client(name)
        for token in (TOKEN, WRONG):
            app.post("/", json={"slug": "x"}, headers={"Authorization": f"Bearer {token}"})
            app.post(
                "/",
                data="{",
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            )
            app.get("/", headers={"Authorization": f"Bearer {token}"})
    out, err = capfd.readouterr()
    assert json_lines(out)  # something was logged
    for text in (out, err):
        assert TOKEN not in text
        assert WRONG not in text
