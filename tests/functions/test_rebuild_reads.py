"""An incremental rebuild reads what changed, not the wiki: counted on both stores.

Pages are written as a wiki built earlier has them (``updated_at`` a day ago), then one
is edited through the store as the API does (new version, ``updated_at`` now). Reads
are counted twice: page records returned through the ``PageStore`` port (both stores)
and, on Firestore, documents returned by the client (what Firestore bills as reads).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from google.cloud.firestore_v1.client import Client as FirestoreClient
from google.cloud.firestore_v1.document import DocumentReference
from google.cloud.firestore_v1.query import Query

from shared.config import get_settings
from shared.records import PageRecord
from shared.services.site_build import BuildReport
from tests.fixtures.wiring import rebuild
from tests.functions.test_rebuild import edit  # a write as the API makes it

DAY_AGO = datetime.now(UTC) - timedelta(days=1)


@dataclasses.dataclass
class Reads:
    records: int = 0  # page records returned by PageStore.list/get
    documents: int = 0  # Firestore documents returned (a query answering nothing costs 1)

    def reset(self) -> None:
        self.records = self.documents = 0


@pytest.fixture
def reads(store: Any, monkeypatch: pytest.MonkeyPatch) -> Reads:
    counter = Reads()
    pages = type(store.pages)
    real_list, real_get = pages.list, pages.get

    def counted_list(self: Any, **kwargs: Any) -> list[PageRecord]:
        out = real_list(self, **kwargs)
        counter.records += len(out)
        return out

    def counted_get(self: Any, slug: str) -> PageRecord | None:
        out = real_get(self, slug)
        counter.records += out is not None
        return out

    monkeypatch.setattr(pages, "list", counted_list)
    monkeypatch.setattr(pages, "get", counted_get)
    _count_firestore_documents(monkeypatch, counter)
    return counter


def _count_firestore_documents(monkeypatch: pytest.MonkeyPatch, counter: Reads) -> None:
    real_stream, real_get = Query.stream, DocumentReference.get
    real_get_all = FirestoreClient.get_all

    def streamed(results: Iterator[Any]) -> Iterator[Any]:
        n = 0
        for snapshot in results:
            n += 1
            yield snapshot
        counter.documents += max(n, 1)

    def stream(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        return streamed(real_stream(self, *args, **kwargs))

    def get(self: Any, *args: Any, **kwargs: Any) -> Any:
        counter.documents += 1
        return real_get(self, *args, **kwargs)

    def get_all(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        return streamed(real_get_all(self, *args, **kwargs))

    for owner, name, function in (
        (Query, "stream", stream),  # a collection's stream is its query's
        (DocumentReference, "get", get),
        (FirestoreClient, "get_all", get_all),
    ):
        monkeypatch.setattr(owner, name, function)


def put(store: Any, slug: str, content: str, *, at: datetime = DAY_AGO, **fm: Any) -> None:
    front_matter = {"title": slug.split("—")[-1].title(), "type": "concept", **fm}
    store.pages.create(PageRecord(slug, front_matter, content, 1, at, at), [])


def wiki(store: Any, n: int) -> list[str]:
    """``n`` pages; each links to the next two; every tenth is also a draft's neighbour."""
    slugs = [f"concept—p{i:04d}" for i in range(n)]
    for i, slug in enumerate(slugs):
        links = f"[[{slugs[(i + 1) % n]}]] y [[{slugs[(i + 2) % n]}]]"
        put(store, slug, f"Página {i}. Ver {links}.", tags=["t"])
    put(store, "concept—borrador", "Un borrador.", status="draft")
    return slugs


def build() -> BuildReport:
    report = rebuild(get_settings())
    assert report.status == "ok", report.response().body()
    return report


def site() -> Path:
    return Path(get_settings().site_location)


def curator() -> dict[str, Any]:
    path = Path(get_settings().report_location) / "report.json"
    return dict(json.loads(path.read_text()))


def edit_reads(store: Any, reads: Reads, n: int) -> tuple[Reads, BuildReport]:
    slugs = wiki(store, n)
    assert build().built == n
    edit(store, slugs[n // 2], content=f"Texto nuevo. Ver [[{slugs[0]}]] y [[{slugs[1]}]].")
    reads.reset()
    report = build()
    return dataclasses.replace(reads), report


@pytest.mark.parametrize("n", [50, 500])
def test_one_body_edit_reads_the_edited_page_not_the_wiki(
    store: Any, store_env: str, reads: Reads, n: int
) -> None:
    """reads <= 11 + pages touched, the same count at 50 and at 500 pages (the constant
    part: the manifest, the nav, what imports said of their trees, the drafts...)."""
    counted, report = edit_reads(store, reads, n)
    touched = report.built
    print(f"{store_env} n={n}: touched {touched}, {counted}")
    assert not report.full
    assert touched == 5  # the page, the two links it lost, the two it gained
    assert counted.records <= 1 + touched
    if store_env == "firestore":
        assert counted.documents <= 11 + touched, counted
    page = (site() / f"concept—p{n // 2:04d}" / "index.html").read_text()
    assert "Texto nuevo." in page
    backlink = quote(f"concept—p{n // 2:04d}") + "/index.html"
    assert backlink in (site() / "concept—p0000" / "index.html").read_text()
    assert report.unchanged == n - touched
    assert [d["slug"] for d in curator()["drafts"]] == ["concept—borrador"]


def test_the_reads_do_not_grow_with_the_wiki(store: Any, reads: Reads) -> None:
    """Ratio, not absolute: ten times the pages, the same reads for one edit."""
    small, _ = edit_reads(store, reads, 50)
    more = [f"concept—q{i:04d}" for i in range(450)]
    for i, slug in enumerate(more):
        put(store, slug, f"Q {i}. Ver [[{more[(i + 1) % 450]}]] y [[{more[(i + 2) % 450]}]].")
    assert rebuild(get_settings(), full=True).built == 500
    edit(store, more[200], content=f"Nuevo. [[{more[0]}]] y [[{more[1]}]].")
    reads.reset()
    report = build()
    assert report.built == 5
    # The same reads, plus the first edit: still within the margin, so read again.
    assert reads.records <= small.records + 1
    assert reads.documents <= small.documents + 1


def test_a_title_edit_reads_and_renders_the_pages_that_show_it(store: Any, reads: Reads) -> None:
    slugs = wiki(store, 40)
    build()
    edit(store, slugs[10], title="Renombrada")
    reads.reset()
    report = build()
    # The page, the two linking to it (link text), the two it links to (backlinks), and
    # the page that becomes its previous one in the reading order (it sorts last now).
    assert report.built == 6
    assert reads.records == 1 + 5
    assert "Renombrada" in (site() / slugs[8] / "index.html").read_text()
    assert "Renombrada" in (site() / slugs[9] / "index.html").read_text()
    assert "Renombrada" in (site() / "index.html").read_text()
    assert "Renombrada" in (site() / "search-index.json").read_text()


def test_archiving_a_page_is_noticed_without_reading_the_wiki(store: Any, reads: Reads) -> None:
    slugs = wiki(store, 40)
    build()
    edit(store, slugs[5], status="archived")
    reads.reset()
    report = build()
    # The two pages linking to it, the two it linked to (their backlinks).
    assert (report.removed, report.built) == (1, 4)
    assert reads.records == 1 + 4
    assert not (site() / slugs[5]).exists()
    assert {"slug": slugs[4], "target": slugs[5], "kind": "page"} in report.broken_links
    assert quote(slugs[5]) not in (site() / "index.html").read_text()
    # Archived pages are remembered and stay out (read again only within the margin).
    reads.reset()
    assert build().built == 0
    assert reads.records <= 1


def test_a_new_page_and_a_new_draft_appear(store: Any, reads: Reads) -> None:
    slugs = wiki(store, 20)
    build()
    put(store, "concept—nueva", f"Ver [[{slugs[3]}]].", at=datetime.now(UTC))
    put(store, "concept—otro-borrador", "B.", at=datetime.now(UTC), status="draft")
    reads.reset()
    report = build()
    # The new page, the backlink it gives, and its neighbour in the reading order (whose
    # previous/next now names it).
    assert report.built == 3
    assert reads.records == 2 + 2
    assert (site() / "concept—nueva" / "index.html").is_file()
    assert quote("concept—nueva") in (site() / slugs[3] / "index.html").read_text()
    drafts = {d["slug"] for d in curator()["drafts"]}
    assert drafts == {"concept—borrador", "concept—otro-borrador"}


def test_a_failing_page_stays_failed_without_being_read(store: Any, reads: Reads) -> None:
    """The report answers as a full read would: the invalid page is named every build."""
    wiki(store, 10)
    put(store, "concept—mala", "x", type="novela")
    first = rebuild(get_settings())
    assert [f.slug for f in first.failed] == ["concept—mala"]
    reads.reset()
    again = rebuild(get_settings())
    assert (again.status, [f.field for f in again.failed]) == ("failed", ["type"])
    assert reads.records == 0  # written a day ago: remembered, not read
    edit(store, "concept—mala", type="concept")
    fixed = rebuild(get_settings())
    assert (fixed.status, fixed.built) == ("ok", 2)  # the page and its new neighbour


def test_a_write_dated_before_the_last_read_is_still_seen(store: Any) -> None:
    """A writer's clock behind ours (or a slow commit) within the margin is not missed."""
    slugs = wiki(store, 10)
    build()
    record = store.pages.get(slugs[2])
    late = datetime.now(UTC) - timedelta(minutes=2)
    store.pages.update(
        dataclasses.replace(record, content="Escrito tarde.", version=2, updated_at=late),
        None,
        expected_version=1,
    )
    assert build().built >= 1
    assert "Escrito tarde." in (site() / slugs[2] / "index.html").read_text()


def test_full_still_reads_everything(store: Any, reads: Reads) -> None:
    wiki(store, 12)
    build()
    reads.reset()
    report = rebuild(get_settings(), full=True)
    assert report.full
    assert report.built == 12
    assert reads.records == 13  # and the draft


def test_a_manifest_missing_what_a_page_shows_makes_the_build_read_every_page(
    store: Any, reads: Reads
) -> None:
    """A manifest written before the site showed one more field of each page still works."""
    wiki(store, 6)
    build()
    manifest = store.site.load_manifest()
    for state in manifest["pages"].values():
        del state["e"]["tags"]
    store.site.save_manifest(manifest)
    edit(store, "concept—p0002", content="Cambiado.")
    reads.reset()
    report = build()
    assert not report.full
    assert reads.records >= 7  # every page read again
    assert "Cambiado." in (site() / "concept—p0002" / "index.html").read_text()
    reads.reset()
    edit(store, "concept—p0003", content="Otra vez.")
    again = build()
    # The manifest is whole again: the two edited pages (within the margin) and the
    # pages the edit touches, not the wiki.
    assert reads.records <= 2 + again.built < 7


def test_a_page_written_while_the_build_reads_makes_it_read_everything(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page to render again that changed after the build's read is not rendered from an
    old plan: the build reads every page and publishes what is stored."""
    slugs = wiki(store, 10)
    build()
    edit(store, slugs[3], title="Renombrada")
    pages = type(store.pages)
    real_get = pages.get
    raced: list[str] = []

    def racing_get(self: Any, slug: str) -> PageRecord | None:
        if slug == slugs[1] and not raced:
            raced.append(slug)
            edit(store, slug, content=f"Escrito durante la build. [[{slugs[3]}]]")
        return real_get(self, slug)

    monkeypatch.setattr(pages, "get", racing_get)
    report = build()
    assert raced == [slugs[1]]
    assert not report.full
    page = (site() / slugs[1] / "index.html").read_text()
    assert "Escrito durante la build." in page
    assert "Renombrada" in page
    assert "Renombrada" in (site() / slugs[2] / "index.html").read_text()
