"""One run of the rebuild, holding the lease: read, plan, parse, render, publish, remember.

``shared.site.plan`` decides what to render from the last build's manifest; the steps
around it read (``reading``), parse (``live``), render (``pages``, ``files``), publish
(``publishing``) and report (``report``, ``curator``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shared.config import Settings
from shared.logs import get_logger
from shared.ports import Embedder, ReportWriter, SitePublisher, StalePublication, Store
from shared.records import Output, StoredNav
from shared.services.site_build import curator
from shared.services.site_build.files import reusable_shards, site_config, site_files
from shared.services.site_build.lease import LEASE_SECONDS
from shared.services.site_build.live import Live
from shared.services.site_build.merged import merged_redirects
from shared.services.site_build.pages import (
    PageContext,
    RenderedPages,
    passages,
    render_pages,
    site_view,
)
from shared.services.site_build.publishing import file_changes, publish, read_assets
from shared.services.site_build.reading import (
    ReadAgain,
    Reading,
    read_all,
    read_since,
    read_unchanged,
)
from shared.services.site_build.report import FAILED, IN_PROGRESS, OK, BuildReport, broken_links
from shared.services.site_build.timer import Timer
from shared.site import search
from shared.site.entries import SiteView
from shared.site.manifest import Manifest, PageState
from shared.site.nav import chrome_hash
from shared.site.plan import Plan, SiteNow, changed_pages, plan
from shared.site.redirects import import_redirects, imported_site_name

_log = get_logger("rebuild")


@dataclass(frozen=True, slots=True)
class Settled:
    """A plan whose pages to render are all parsed, and the site view it was made on."""

    plan: Plan
    site: SiteView
    chrome: Mapping[str, str]


class Build:
    """One run, holding the lease."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        publisher: SitePublisher,
        curator_report: ReportWriter,
        owner: str,
        embedder: Embedder | None = None,  # for the report's gaps (None: not shown)
    ) -> None:
        self.embedder = embedder
        self.settings = settings
        self.store = store
        self.publisher = publisher
        self.curator_report = curator_report
        self.owner = owner
        self.lease = LEASE_SECONDS
        self.config = site_config(settings, publisher)
        self.timer = Timer()
        self.stored_nav: StoredNav | None = None
        self.imports: Mapping[str, Any] | None = None  # SiteState.load_imports()

    def run(self, full: bool, lease: float) -> BuildReport:
        self.lease = lease
        with self.timer.phase("load"):
            previous = Manifest.from_json(self.store.site.load_manifest())
            self.stored_nav = self.store.site.load_nav()
            self.imports = self.store.site.load_imports()
            self.config = site_config(
                self.settings, self.publisher, imported_site_name(self.imports)
            )
            render_key = self.config.key()
            is_full = (
                full
                or previous is None
                or previous.render_key != render_key
                or previous.location != self.settings.site_location
                or self.publisher.current_build() != previous.build_id
            )
            since = None if previous is None or is_full else previous.read_since()
            if since is None:
                pages = read_all(self.store)
            else:
                assert previous is not None
                pages = read_since(self.store, since, previous)
        if is_full:
            return self._build(pages, previous, render_key, full=True)
        try:
            try:
                return self._build(pages, previous, render_key, full=False)
            except ReadAgain as exc:  # (never raised when every page was read)
                _log.warning("%s: this build reads every page", exc)
                pages = read_all(self.store)
                return self._build(pages, previous, render_key, full=False)
        except StalePublication as exc:
            _log.warning("the published site is not what the manifest says (%s): full build", exc)
        everything = pages if pages.everything else read_all(self.store)
        return self._build(everything, previous, render_key, full=True)

    def _build(
        self,
        pages: Reading,
        previous: Manifest | None,
        render_key: str,
        *,
        full: bool,
    ) -> BuildReport:
        before: Mapping[str, PageState] = previous.pages if previous else {}
        old_files = previous.files if previous and not full else {}
        live = Live.of(pages, before)
        with self.timer.phase("render"):
            settled = self._settle(live, before, full)
            rendered, terms = self._render_pages(live, settled, before)
            shards = reusable_shards(previous, settled.site, terms, full)
            # Every address that moved, as one list of Redirect: imported pages' routes in
            # their generator, and merged pages' addresses to the page that kept them.
            redirects = [
                *import_redirects(self.imports, settled.site.entries.keys()),
                *merged_redirects(live.merged),
            ]
            others, split = site_files(
                settled.site, terms, shards.split, self.config, self.settings, redirects
            )
            held = {**pages.sorted.held, **live.held()}
        if not self.store.site.acquire_lease(self.owner, self.lease):
            # The lease expired and another run took it: publishing now could interleave.
            return BuildReport(status=IN_PROGRESS)
        with self.timer.phase("assets"):
            assets = read_assets(self.store, rendered.states, old_files)
        files = file_changes(settled.plan, rendered, others, assets, shards.reused, old_files)
        build_id = publish(self.publisher, previous, files, self.timer, full=full)
        built_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        manifest = Manifest(
            build_id,
            built_at,
            render_key,
            self.settings.site_location,
            rendered.states,
            files.files,
            held=held,
            read_at=pages.read_at,
            search={"key": shards.key, "split": split},
        )
        with self.timer.phase("manifest"):
            self.store.site.save_manifest(manifest.to_json())
        report = self._report(pages, live, settled.plan, rendered, others, files.files)
        self._curator_report(report, pages, manifest, published=len(live.slugs))
        return report

    def _settle(self, live: Live, before: Mapping[str, PageState], full: bool) -> Settled:
        """Plan, and parse every page the plan renders. A page that cannot be parsed within
        its budget leaves the site like an invalid one, and the plan is made again without
        it (at most once per such page; only bodies not parsed yet are parsed)."""
        settled = self._attempt(live, before, full)
        while settled is None:
            settled = self._attempt(live, before, full)
        return settled

    def _attempt(self, live: Live, before: Mapping[str, PageState], full: bool) -> Settled | None:
        """One plan; None when a page it needed could not be parsed (it left the site)."""
        hashes = live.live_hashes()
        changed = changed_pages(hashes, before, full=full)
        if not live.parse(changed):
            return None
        site = site_view(
            live.published, live.kept, live.bodies, before, changed, self.stored_nav, live.merged
        )
        chrome = {slug: chrome_hash(site.nav, slug, site.titles) for slug in live.slugs}
        now = SiteNow(hashes, site.links, site.titles, site.inbound, chrome, frozenset(live.kept))
        planned = plan(before, now, full=full)
        live.take(read_unchanged(self.store, planned.read_again, before))
        if not live.parse(planned.render):
            return None
        return Settled(planned, site, chrome)

    def _render_pages(
        self, live: Live, settled: Settled, before: Mapping[str, PageState]
    ) -> tuple[RenderedPages, dict[str, search.PageTerms]]:
        """Every live page's files and state, and its search terms."""
        found = passages(live.bodies)
        terms = {
            slug: search.page_terms(found[slug]) if slug in found else before[slug].terms
            for slug in live.slugs
        }
        site, chrome, full = settled.site, settled.chrome, settled.plan.full
        ctx = PageContext(site, self.config, before, live.hashes, chrome, found, terms, full)
        return render_pages(live.published, live.kept, live.bodies, ctx), terms

    def _curator_report(
        self, report: BuildReport, pages: Reading, manifest: Manifest, *, published: int
    ) -> None:
        data = curator.summary(
            report,
            pages.sorted,
            self.store,
            build_id=manifest.build_id,
            built_at=manifest.built_at,
            site=manifest.location,
            published=published,
        )
        curator.write_report(
            self.curator_report, data, self.store, self.embedder, pages.sorted, self.timer
        )

    def _report(
        self,
        pages: Reading,
        live: Live,
        planned: Plan,
        rendered: RenderedPages,
        others: list[Output],
        files: Mapping[str, str],
    ) -> BuildReport:
        failed = sorted([*pages.sorted.failed, *live.failed.values()], key=lambda f: f.slug)
        failed_slugs = {f.slug for f in failed}
        return BuildReport(
            status=FAILED if failed else OK,
            built=len(planned.render),
            unchanged=len(live.slugs) - len(planned.render),
            removed=len([slug for slug in planned.gone if slug not in failed_slugs]),
            failed=failed,
            broken_links=broken_links(rendered.states, others, files),
            full=planned.full,
            timings_ms=self.timer.phases,
        )
