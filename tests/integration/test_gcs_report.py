"""The private curator report in gs://bucket/prefix, against gcp-storage-emulator."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from shared.bootstrap import open_store, reset
from shared.config import get_settings
from shared.publish.gcs import GcsPublisher
from shared.records import PageRecord
from tests.fixtures.gcs import BUCKET, objects
from tests.fixtures.wiring import rebuild

PRIVATE_BUCKET = "biblioteca-private"


def put(slug: str, content: str = "Texto.", **front_matter: Any) -> None:
    fm = {"title": slug.title(), "type": "concept", **front_matter}
    now = datetime.now(UTC)
    open_store(get_settings()).pages.create(PageRecord(slug, fm, content, 1, now, now), [])


def use_report(location: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("BIBLIOTECA_REPORT_DIR", location)
    get_settings.cache_clear()
    reset()
    return location


def test_a_rebuild_uploads_the_report_beside_the_site_never_into_it(
    client: Callable[[str], Any], auth: Any, gcs_site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sibling prefix of the site's bucket gets index.html and report.json; the site none."""
    report = use_report(f"gs://{BUCKET}/private-{uuid.uuid4().hex[:10]}", monkeypatch)
    put("concept—uno", content="[[concept—falta]]")
    put("concept—borrador", status="draft")
    reply = client("rebuild").post("/", json={"full": True}, headers=auth)
    assert reply.status_code == 200, reply.get_data(as_text=True)
    written = objects(report)
    assert set(written) == {"index.html", "report.json"}
    assert written["index.html"].content_type.startswith("text/html")
    assert written["report.json"].content_type.startswith("application/json")
    assert written["report.json"].cache_control == "private, no-store"
    data = json.loads(written["report.json"].download_as_bytes())
    assert data["site"] == gcs_site
    assert [d["slug"] for d in data["drafts"]] == ["concept—borrador"]
    assert [b["target"] for b in data["broken_links"]] == ["concept—falta"]
    site = objects(gcs_site)
    assert "report.json" not in site
    assert "concept—borrador" not in site["index.html"].download_as_text()
    report_html = written["index.html"].download_as_bytes()
    assert all(blob.download_as_bytes() != report_html for blob in site.values())


def test_a_report_inside_the_site_prefix_is_refused(
    client: Callable[[str], Any], auth: Any, gcs_site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Report prefix under the site's prefix: 503 naming BIBLIOTECA_REPORT_DIR, nothing built."""
    use_report(f"{gcs_site}/private", monkeypatch)
    put("concept—uno")
    reply = client("rebuild").post("/", json={"full": True}, headers=auth)
    assert reply.status_code == 503
    body = reply.get_json()
    assert body["code"] == "not_configured"
    assert "BIBLIOTECA_REPORT_DIR" in body["error"]
    assert objects(gcs_site) == {}


def test_a_local_site_may_report_to_a_private_bucket(
    gcs_emulator: str, store_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder site and a gs:// report in another bucket: the report lands there."""
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs_emulator)
    bucket = GcsPublisher(f"gs://{PRIVATE_BUCKET}").bucket()
    if not bucket.exists():
        bucket.client.create_bucket(PRIVATE_BUCKET)
    report = use_report(f"gs://{PRIVATE_BUCKET}/r-{uuid.uuid4().hex[:10]}", monkeypatch)
    put("concept—uno")
    assert rebuild(get_settings(), full=True).status == "ok"
    data = json.loads(objects(report)["report.json"].download_as_bytes())
    assert (data["status"], data["built"]) == ("ok", 1)
    assert data["site"] == get_settings().site_location


def test_a_missing_report_bucket_is_logged_not_fatal(
    gcs_site: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bucket that does not exist: the site is published, the report failure is an ERROR."""
    use_report(f"gs://no-such-bucket-{uuid.uuid4().hex[:8]}/r", monkeypatch)
    put("concept—uno")
    with caplog.at_level(logging.ERROR):
        report = rebuild(get_settings(), full=True)
    assert report.status == "ok"
    assert "concept—uno/index.html" in objects(gcs_site)
    failures = [m for m in caplog.messages if "curator report could not be written" in m]
    assert len(failures) == 1
    assert "bucket does not exist" in failures[0]
