"""The alert on a failed rebuild counts what a failed rebuild really logs: the outcome
line, matched by the log-based metric's filter of cloudbuild.yaml's rebuild-alert step."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from shared.api.models import WikiCreateRequest
from shared.bootstrap import build_embedder, reset
from shared.cli import main
from shared.config import get_settings
from shared.services.wiki import create_page
from tests.unit.test_cloudbuild import CLOUDBUILD, alert_commands

PAGE = {"content": "# Uno\n\nTexto.", "front_matter": {"title": "Uno", "type": "guide"}}


def _payload_clauses(log_filter: str) -> dict[str, str]:
    """The filter's ``jsonPayload.<key>="<value>"`` clauses (all ANDed)."""
    return dict(re.findall(r'jsonPayload\.(\w+)="([^"]*)"', log_filter))


def _outcome_lines(err: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == "rebuild_outcome"]


@pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
def test_the_metric_matches_a_failed_rebuild_and_not_a_good_one(
    store_env: str,
    store: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A good rebuild's outcome line does not match the metric's filter; one that could not
    run (its report would land inside the public site) logs an ERROR line that does."""
    build = yaml.safe_load(CLOUDBUILD.read_text(encoding="utf-8"))
    metric = next(
        c
        for c in alert_commands(build, email="", existing=False)
        if c[1:4] == ["logging", "metrics", "create"]
    )
    [log_filter] = [a.split("=", 1)[1] for a in metric if a.startswith("--log-filter=")]
    wanted = _payload_clauses(log_filter)
    assert set(wanted) == {"event", "outcome"}

    create_page(WikiCreateRequest.parse(PAGE), store, build_embedder(get_settings()), actor="t")
    assert main(["rebuild"]) == 0
    [good] = _outcome_lines(capsys.readouterr().err)
    assert any(good.get(k) != v for k, v in wanted.items())

    monkeypatch.setenv("BIBLIOTECA_REPORT_DIR", f"{get_settings().site_location}/private")
    get_settings.cache_clear()
    reset()
    assert main(["rebuild"]) != 0
    [bad] = _outcome_lines(capsys.readouterr().err)
    assert all(bad.get(k) == v for k, v in wanted.items()), bad
    assert bad["severity"] == "ERROR"
