"""Publishing the site to gs://bucket/prefix, against gcp-storage-emulator (a real HTTP server)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from shared.bootstrap import open_store
from shared.config import get_settings
from shared.errors import Unavailable
from shared.publish.gcs import GcsPublisher, upload
from shared.records import Output, PageRecord
from shared.services.importer import import_directory
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.files import write
from tests.fixtures.gcs import objects
from tests.fixtures.wiring import rebuild


def put(slug: str, content: str = "Texto.", **front_matter: Any) -> None:
    fm = {"title": slug.title(), "type": "concept", **front_matter}
    now = datetime.now(UTC)
    open_store(get_settings()).pages.create(PageRecord(slug, fm, content, 1, now, now), [])


def archive(slug: str) -> None:
    pages = open_store(get_settings()).pages
    record = pages.get(slug)
    changed = PageRecord(
        slug,
        {**record.front_matter, "status": "archived"},
        record.content,
        record.version + 1,
        record.created_at,
        datetime.now(UTC),
    )
    pages.update(changed, None, expected_version=record.version)


class RecordingPublisher(GcsPublisher):
    """The real GCS publisher, noting the order of its uploads and deletes."""

    def __init__(self, location: str, fail_on: str | None = None) -> None:
        super().__init__(location)
        self.events: list[tuple[str, str]] = []
        self.fail_on = fail_on

    def _upload(self, output: Output) -> None:
        if output.path == self.fail_on:
            raise Unavailable("simulated crash while uploading")
        super()._upload(output)
        self.events.append(("upload", output.path))

    def _delete(self, name: str) -> None:
        super()._delete(name)
        self.events.append(("delete", name.removeprefix(self.prefix)))


def test_a_full_build_uploads_the_site(
    client: Callable[[str], Any], auth: Any, gcs_site: str
) -> None:
    """POST /rebuild to gs://: every page, listing, static file and index as objects."""
    put("concept—uno")
    put("guide—dos", type="guide")
    reply = client("rebuild").post("/", json={"full": True}, headers=auth)
    assert reply.status_code == 200, reply.get_data(as_text=True)
    names = set(objects(gcs_site))
    assert {
        "index.html",
        "concept—uno/index.html",
        "guide—dos/index.html",
        "type/concept/index.html",
        "sitemap.xml",
        "search-index.json",
        ".biblioteca-build.json",
    } <= names
    assert "static/widget.js" in names
    blob = objects(gcs_site)["index.html"]
    assert blob.content_type.startswith("text/html")
    sitemap = blob.bucket.blob(f"{GcsPublisher(gcs_site).prefix}sitemap.xml").download_as_text()
    assert (
        f"https://storage.googleapis.com/{gcs_site.removeprefix('gs://')}/concept%E2%80%94uno/"
        in sitemap
    )


def test_uploads_go_pages_first_index_last_deletes_after(gcs_site: str) -> None:
    """Pages before listings, index.html after them, the marker next, deletions last."""
    put("concept—a", content="[[concept—b]]")
    put("concept—b")
    put("concept—c")
    settings = get_settings()
    assert rebuild(settings).status == "ok"
    archive("concept—c")
    put("concept—d")
    recorder = RecordingPublisher(gcs_site)
    report = rebuild(settings, publisher=recorder)
    assert (report.status, report.removed) == ("ok", 1)
    order = [path for _, path in recorder.events]
    assert order.index("concept—d/index.html") < order.index("type/concept/index.html")
    assert order.index("type/concept/index.html") < order.index("index.html")
    assert order.index("index.html") < order.index(".biblioteca-build.json")
    assert set(recorder.events[-3:]) == {
        ("delete", "concept—c/index.html"),
        ("delete", "concept—c/index.md"),
        ("delete", "concept—c/search.js"),  # the page's search passages
    }
    assert "concept—a/index.html" not in order  # unchanged objects are not uploaded again


def test_an_incremental_build_rewrites_only_changed_objects(gcs_site: str) -> None:
    """An unchanged page's object keeps its generation; a removed page's object is deleted.

    (``concept—m`` is re-rendered: its next page was ``concept—b``; ``concept—a`` shows
    nothing of it.)"""
    put("concept—a")
    put("concept—m")
    put("concept—b", title="Z")
    settings = get_settings()
    assert rebuild(settings).status == "ok"
    before = {name: blob.generation for name, blob in objects(gcs_site).items()}
    archive("concept—b")
    assert rebuild(settings).removed == 1
    after = {name: blob.generation for name, blob in objects(gcs_site).items()}
    assert after["concept—a/index.html"] == before["concept—a/index.html"]
    assert "concept—b/index.html" not in after
    assert after["index.html"] != before["index.html"]


def test_a_crash_mid_upload_converges_on_the_next_run(gcs_site: str) -> None:
    """A run that dies before index.html leaves the old index; the next run completes it."""
    put("concept—a")
    settings = get_settings()
    assert rebuild(settings).status == "ok"
    put("concept—nueva", title="Nueva")
    crashed = rebuild(settings, publisher=RecordingPublisher(gcs_site, fail_on="index.html"))
    assert crashed.http_status == 503
    index = objects(gcs_site)["index.html"].download_as_text()
    assert "Nueva" not in index  # readers still see the old, consistent index
    assert rebuild(settings).status == "ok"
    assert "Nueva" in objects(gcs_site)["index.html"].download_as_text()


def test_a_full_build_removes_strays_under_its_prefix_only(gcs_site: str) -> None:
    """Objects under the prefix that the site no longer has are deleted; others are not."""
    put("concept—a")
    publisher = GcsPublisher(gcs_site)
    bucket = publisher.bucket()
    bucket.blob(f"{publisher.prefix}viejo/index.html").upload_from_string(b"old")
    bucket.blob("otra-cosa/keep.txt").upload_from_string(b"keep")
    assert rebuild(get_settings(), full=True).status == "ok"
    assert "viejo/index.html" not in objects(gcs_site)
    assert bucket.blob("otra-cosa/keep.txt").exists()


def test_marker_names_the_published_build(gcs_site: str) -> None:
    """The marker object holds the build id the store's manifest records."""
    put("concept—a")
    assert rebuild(get_settings()).status == "ok"
    marker = json.loads(objects(gcs_site)[".biblioteca-build.json"].download_as_text())
    manifest = open_store(get_settings()).site.load_manifest()
    assert marker["build_id"] == manifest["build_id"]


def test_one_body_edit_uploads_the_page_and_what_lists_it_whatever_the_size(
    gcs_site: str,
) -> None:
    """Uploads follow the change: one edit of a 10-page or a 60-page site, the same count."""
    settings = get_settings()
    counts = []
    for start, end in ((0, 10), (10, 60)):
        for i in range(start, end):
            put(f"concept—p{i:03d}", f"Página {i}.")
        assert rebuild(settings, full=True).status == "ok"
        pages = open_store(settings).pages
        record = pages.get(f"concept—p{start:03d}")
        edited = PageRecord(
            record.slug,
            record.front_matter,
            "Otro texto.",
            record.version + 1,
            record.created_at,
            datetime.now(UTC),
        )
        pages.update(edited, None, expected_version=record.version)
        recorder = RecordingPublisher(gcs_site)
        report = rebuild(settings, publisher=recorder)
        assert (report.status, report.built) == ("ok", 1)
        uploaded = [path for kind, path in recorder.events if kind == "upload"]
        assert f"concept—p{start:03d}/index.html" in uploaded
        counts.append(len(uploaded))
    # The page (HTML, Markdown, search passages), the search shards of the words the edit
    # changed and their index, what quotes its summary (llms.txt) and the build marker;
    # the same at either size, nothing else changed.
    assert counts[0] == counts[1] <= 10


def test_pages_an_incremental_build_did_not_read_stay_in_the_bucket(gcs_site: str) -> None:
    """Pages written before the last build are not read again, and never deleted for it."""
    pages = open_store(get_settings()).pages
    day_ago = datetime.now(UTC) - timedelta(days=1)
    for i in range(8):
        fm = {"title": f"P{i}", "type": "concept"}
        pages.create(PageRecord(f"concept—p{i}", fm, f"Página {i}.", 1, day_ago, day_ago), [])
    settings = get_settings()
    assert rebuild(settings).status == "ok"
    record = pages.get("concept—p3")
    edited = PageRecord(
        record.slug, record.front_matter, "Otro.", 2, record.created_at, datetime.now(UTC)
    )
    pages.update(edited, None, expected_version=1)
    recorder = RecordingPublisher(gcs_site)
    report = rebuild(settings, publisher=recorder)
    assert (report.status, report.built, report.unchanged) == ("ok", 1, 7)
    assert [e for e in recorder.events if e[0] == "delete"] == []
    names = set(objects(gcs_site))
    assert {f"concept—p{i}/index.html" for i in range(8)} <= names


def test_linked_files_go_to_the_bucket_once_and_leave_with_the_last_link(
    gcs_site: str, tmp_path: Any
) -> None:
    """An imported page's image is uploaded under its content's address with its type;
    a rebuild after an edit that keeps the image does not upload it again; an image no
    page links any more is deleted."""
    docs = Path(tmp_path) / "docs"
    write(docs, "img/logo.png", b"\x89PNG\r\n\x1a\nfake")
    write(docs, "guia.md", "# Guía\n\n![logo](img/logo.png)\n")
    store = open_store(get_settings())
    assert import_directory(docs, store, HashingEmbedder(), default_type="guide").assets == 1
    publisher = RecordingPublisher(gcs_site)
    assert rebuild(get_settings(), publisher=publisher).status == "ok"
    uploaded = [p for kind, p in publisher.events if kind == "upload" and p.startswith("_assets/")]
    assert len(uploaded) == 1
    blob = objects(gcs_site)[uploaded[0]]
    assert blob.content_type == "image/png"
    assert blob.download_as_bytes() == b"\x89PNG\r\n\x1a\nfake"

    write(docs, "guia.md", "# Guía\n\n![logo](img/logo.png)\n\nMás.\n")
    import_directory(docs, store, HashingEmbedder())
    publisher.events.clear()
    assert rebuild(get_settings(), publisher=publisher).status == "ok"
    assert ("upload", "guia/index.html") in publisher.events
    assert not [p for _, p in publisher.events if p.startswith("_assets/")]

    write(docs, "guia.md", "# Guía\n\nSin imagen.\n")
    import_directory(docs, store, HashingEmbedder())
    publisher.events.clear()
    assert rebuild(get_settings(), publisher=publisher).status == "ok"
    assert ("delete", uploaded[0]) in publisher.events


def test_document_assets_are_uploaded_as_plain_text_attachments(gcs_site: str) -> None:
    """An HTML file a page links is a text/plain attachment in the bucket, never a page of
    the site's origin; an image keeps its type and is shown inline."""
    publisher = GcsPublisher(gcs_site)
    upload(
        publisher.bucket(),
        publisher.name("_assets/ab/page.html"),
        b"<script>1</script>",
        "no-cache",
        asset=True,
    )
    upload(
        publisher.bucket(), publisher.name("_assets/ab/x.png"), b"\x89PNG", "no-cache", asset=True
    )
    found = objects(gcs_site)
    html, png = found["_assets/ab/page.html"], found["_assets/ab/x.png"]
    assert html.content_type.startswith("text/plain")
    assert html.content_disposition == "attachment"
    assert (png.content_type, png.content_disposition) == ("image/png", None)
