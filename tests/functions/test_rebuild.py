"""POST /rebuild per the contract, through functions-framework's test client, on both stores."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from shared.config import get_settings
from shared.records import PageRecord

Client = Callable[[str], Any]


def put(store: Any, slug: str, content: str = "Texto de prueba.", **front_matter: Any) -> None:
    """Write a page record straight to the store (as a manual edit would: no validation)."""
    fm = {"title": slug.split("—")[-1].title(), "type": "concept", **front_matter}
    now = datetime.now(UTC)
    store.pages.create(PageRecord(slug, fm, content, 1, now, now), [])


def edit(store: Any, slug: str, content: str | None = None, **front_matter: Any) -> None:
    """Change a stored page behind the API's back: new version, new updated_at."""
    record = store.pages.get(slug)
    changed = dataclasses.replace(
        record,
        front_matter={**record.front_matter, **front_matter},
        content=record.content if content is None else content,
        version=record.version + 1,
        updated_at=datetime.now(UTC),
    )
    store.pages.update(changed, None, expected_version=record.version)


def rebuild(client: Client, auth: dict[str, str], body: Any = None) -> Any:
    return client("rebuild").post("/", json={} if body is None else body, headers=auth)


def site() -> Path:
    return Path(get_settings().site_location)


def site_files() -> list[Path]:
    """Every file of the published site (page folders are links into a pool: follow them)."""
    return [
        Path(folder) / name
        for folder, _, names in os.walk(site(), followlinks=True)
        for name in names
    ]


def report_body(reply: Any) -> dict[str, Any]:
    body = reply.get_json()
    assert set(body) >= {
        "status",
        "built",
        "unchanged",
        "removed",
        "failed",
        "broken_links",
        "duration_ms",
    }
    return dict(body)


def test_a_full_build_publishes_every_active_page(client: Client, auth: Any, store: Any) -> None:
    """200 ok; index.html and <slug>/index.html for active pages only; drafts in the report."""
    put(store, "concept—uno")
    put(store, "guide—dos", type="guide")
    put(store, "concept—borrador", status="draft")
    put(store, "concept—viejo", status="archived")
    reply = rebuild(client, auth, {"full": True})
    assert reply.status_code == 200, reply.get_data(as_text=True)
    body = report_body(reply)
    assert body["status"] == "ok"
    assert (body["built"], body["unchanged"], body["removed"]) == (2, 0, 0)
    assert body["failed"] == []
    assert isinstance(body["duration_ms"], int)
    index = (site() / "index.html").read_text()
    assert "concept%E2%80%94uno/index.html" in index
    assert (site() / "concept—uno" / "index.html").is_file()
    assert (site() / "type" / "guide" / "index.html").is_file()
    assert (site() / "sitemap.xml").is_file()
    assert json.loads((site() / "search-index.json").read_text())["pages"][0]["slug"]
    assert not (site() / "concept—borrador").exists()
    assert not (site() / "concept—viejo").exists()
    report = json.loads((Path(get_settings().report_location) / "report.json").read_text())
    assert [d["slug"] for d in report["drafts"]] == ["concept—borrador"]
    assert not [p for p in site_files() if p.name == "report.json"]


def test_every_page_carries_the_widget(client: Client, auth: Any, store: Any) -> None:
    """Index, listings and pages include static/widget.* with the configured ask URL
    (not the section files, which only the pages' frames show without script)."""
    put(store, "concept—uno")
    assert rebuild(client, auth).status_code == 200
    html = [p for p in site_files() if p.suffix == ".html"]
    pages = [p for p in html if p.parent.name != "sections"]
    assert len(pages) == 4  # index, 404.html, the concept listing, the page
    assert len(html) == 6  # and the files of the top level and of the section
    for page in pages:
        text = page.read_text()
        depth = len(page.relative_to(site()).parts) - 1
        # 404.html is served at any depth, so its links start at the site's root
        root = "/" if page.name == "404.html" else "../" * depth
        assert f'<link rel="stylesheet" href="{root}static/widget.css">' in text
        assert re.search(
            rf'<script src="{re.escape(root)}static/widget\.js" defer data-ask-url="/ask" '
            r'data-lang="(es|en)"></script>',
            text,
        )
    static = Path(__file__).resolve().parents[2] / "shared" / "site" / "static"
    for file in static.iterdir():
        assert (site() / "static" / file.name).read_bytes() == file.read_bytes()


def test_an_incremental_build_renders_only_what_changed(
    client: Client, auth: Any, store: Any
) -> None:
    """A body edit re-renders one page; a title edit also the pages that link to it and
    its neighbours in the reading order (their previous/next show the title)."""
    put(store, "concept—a", content="Ver [[concept—b]].")
    put(store, "concept—b")
    put(store, "concept—c")
    put(store, "concept—d")
    assert report_body(rebuild(client, auth))["built"] == 4
    assert report_body(rebuild(client, auth))["built"] == 0

    edit(store, "concept—c", content="Otro texto.")
    body = report_body(rebuild(client, auth))
    assert (body["built"], body["unchanged"], body["full"]) == (1, 3, False)
    assert "Otro texto." in (site() / "concept—c" / "index.html").read_text()

    edit(store, "concept—b", title="Be renombrada")
    body = report_body(rebuild(client, auth))
    assert (body["built"], body["unchanged"]) == (3, 1)  # b, a (links to it and before it), c
    assert "Be renombrada" in (site() / "concept—c" / "index.html").read_text()
    assert "Be renombrada" in (site() / "concept—a" / "index.html").read_text()
    assert "Be renombrada" in (site() / "index.html").read_text()


def test_an_unpublished_page_leaves_the_site(client: Client, auth: Any, store: Any) -> None:
    """status archived removes the page's files, counts in removed, breaks links to it."""
    put(store, "concept—a", content="Ver [[concept—b]].")
    put(store, "concept—b")
    assert rebuild(client, auth).status_code == 200
    edit(store, "concept—b", status="archived")
    body = report_body(rebuild(client, auth))
    assert (body["removed"], body["built"]) == (1, 1)
    assert body["broken_links"] == [{"slug": "concept—a", "target": "concept—b", "kind": "page"}]
    assert not (site() / "concept—b").exists()
    assert "wikilink broken" in (site() / "concept—a" / "index.html").read_text()
    assert "concept%E2%80%94b/" not in (site() / "index.html").read_text()


@pytest.mark.parametrize(
    ("front_matter", "field"),
    [
        ({"sources": [True]}, "sources[0]"),
        (
            {"sources": [{"type": "code", "ref": "a.py", "last_seen": "ayer"}]},
            "sources[0]",  # the contract: a bad last_seen is an error at its index
        ),
        ({"type": "novela"}, "type"),
        ({"title": ""}, "title"),
        ({"color": "rojo"}, "color"),
        ({"related": ["No Es Slug"]}, "related[0]"),
    ],
    ids=["source", "last_seen", "type", "title", "unknown-key", "related"],
)
def test_a_page_failing_the_schema_is_left_out_and_named(
    client: Client,
    auth: Any,
    store: Any,
    caplog: pytest.LogCaptureFixture,
    front_matter: dict[str, Any],
    field: str,
) -> None:
    """500 with status failed, the page named with its front-matter field, the rest published."""
    put(store, "concept—buena")
    put(store, "concept—mala", **front_matter)
    with caplog.at_level(logging.ERROR, logger="biblioteca"):
        reply = rebuild(client, auth)
    assert reply.status_code == 500, reply.get_data(as_text=True)
    body = report_body(reply)
    assert body["status"] == "failed"
    assert [(f["slug"], f["field"]) for f in body["failed"]] == [("concept—mala", field)]
    assert body["failed"][0]["error"]
    assert body["built"] == 1
    assert (site() / "concept—buena" / "index.html").is_file()
    assert not (site() / "concept—mala").exists()
    assert any(
        r.levelno == logging.ERROR and "concept—mala" in r.getMessage() for r in caplog.records
    )


def test_a_page_that_starts_failing_is_taken_down(client: Client, auth: Any, store: Any) -> None:
    """A published page edited into an invalid state leaves the site and is named in failed."""
    put(store, "concept—a")
    assert rebuild(client, auth).status_code == 200
    edit(store, "concept—a", tags=[{"no": "texto"}])
    reply = rebuild(client, auth)
    assert reply.status_code == 500
    assert report_body(reply)["failed"][0]["field"] == "tags[0]"
    assert not (site() / "concept—a").exists()


def test_hostile_pages_never_reach_the_output_as_markup(
    client: Client, auth: Any, store: Any
) -> None:
    """Script tags, handlers and script URLs in any field are inert in every output file."""
    evil = "<script>alert(1)</script><img src=x onerror=alert(1)>"
    put(
        store,
        "concept—hostil",
        content=f"{evil}\n\n[x](javascript:alert(1)) ![y](data:image/png;base64,AA==) "
        '[[x" onmouseover="alert(1)]]',
        title=evil,
        tags=[evil],
        category=evil,
        sources=[evil, {"type": "doc", "ref": evil}],
    )
    assert rebuild(client, auth).status_code == 200
    for path in site_files():
        if path.suffix in {".html", ".json", ".xml"}:
            text = path.read_text()
            assert "<script>alert" not in text, path
            assert "<img src=x" not in text, path
            assert re.search(r"<[^>]*\son\w+\s*=", text) is None, path
            urls = re.findall(r'(?:href|src)="([^"]*)"', text)
            assert not [u for u in urls if u.lower().startswith(("javascript:", "data:"))], path


def test_a_slug_written_behind_the_api_cannot_escape_the_site(
    client: Client, auth: Any, store: Any, store_env: str
) -> None:
    """A stored slug that is not a slug fails with field slug; nothing lands outside the root."""
    # Firestore document ids cannot hold '/', so there the bad slug is merely malformed.
    bad = "../../escapado" if store_env == "sqlite" else "Escapado Mal"
    put(store, "concept—ok")
    put(store, bad)
    reply = rebuild(client, auth)
    assert reply.status_code == 500
    failed = report_body(reply)["failed"]
    assert [(f["slug"], f["field"]) for f in failed] == [(bad, "slug")]
    data_dir = get_settings().data_dir
    assert not [p for p in data_dir.parent.rglob("*") if "scapado" in p.name]


def test_a_second_run_gets_409_while_the_lease_is_held(
    client: Client, auth: Any, store: Any
) -> None:
    """409 with the report body (status rebuild_in_progress); free again once released."""
    put(store, "concept—a")
    assert store.site.acquire_lease("another-run", 60)
    reply = rebuild(client, auth)
    assert reply.status_code == 409
    body = report_body(reply)
    assert body["status"] == "rebuild_in_progress"
    assert body["built"] == 0
    assert not (site() / "index.html").exists()
    store.site.release_lease("another-run")
    assert rebuild(client, auth).status_code == 200


def test_a_lease_its_build_could_not_give_back_is_taken_over_with_a_report(
    client: Client, auth: Any, store: Any
) -> None:
    """A lease left behind (a full disk, a dead store) blocks only until it expires: the next
    run waits it out, builds, and its report names the lease it took over (was: 409)."""
    put(store, "concept—a")
    assert store.site.acquire_lease("stuck-run", 1)  # its build failed and never released it
    started = time.monotonic()
    reply = rebuild(client, auth)
    assert reply.status_code == 200, reply.text[:300]
    assert time.monotonic() - started < 10
    body = report_body(reply)
    assert body["stale_lease"]["owner"] == "stuck-run"
    assert (site() / "concept—a" / "index.html").is_file()
    assert store.site.read_lease() is None  # given back this time


def test_a_rerun_after_a_crash_converges(client: Client, auth: Any, store: Any) -> None:
    """An expired lease and a half-written generation left by a crash do not block a rerun."""
    put(store, "concept—a")
    assert rebuild(client, auth).status_code == 200
    an_hour_ago = type(store.site)(store.db, clock=lambda: time.time() - 3600)
    assert an_hour_ago.acquire_lease("crashed-run", 60)  # expired 59 minutes ago
    leftover = site().parent / f".{site().name}.builds" / "20990101-000000-deadbeef"
    (leftover / "concept—a").mkdir(parents=True)
    (leftover / "concept—a" / "index.html").write_text("half")
    put(store, "concept—b")
    body = report_body(rebuild(client, auth))
    assert body["status"] == "ok"
    assert (site() / "concept—b" / "index.html").is_file()
    assert not leftover.exists()


def test_a_crash_between_publishing_and_the_manifest_converges(
    client: Client, auth: Any, store: Any
) -> None:
    """If the manifest is older than the published site, the next run rebuilds in full."""
    put(store, "concept—a")
    assert rebuild(client, auth).status_code == 200
    old_manifest = store.site.load_manifest()
    edit(store, "concept—a", content="Segunda versión.")
    assert rebuild(client, auth).status_code == 200
    store.site.save_manifest(old_manifest)  # as if the run died before saving it
    body = report_body(rebuild(client, auth))
    assert (body["status"], body["full"], body["built"]) == ("ok", True, 1)
    assert "Segunda versión." in (site() / "concept—a" / "index.html").read_text()


def test_a_deleted_site_folder_is_rebuilt_in_full(client: Client, auth: Any, store: Any) -> None:
    """The manifest alone never fools the build: a missing site means a full build."""
    put(store, "concept—a")
    assert rebuild(client, auth).status_code == 200
    site().unlink()  # the link; its generation stays but is no longer the site
    body = report_body(rebuild(client, auth))
    assert (body["full"], body["built"]) == (True, 1)
    assert (site() / "concept—a" / "index.html").is_file()
