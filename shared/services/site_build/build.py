"""The rebuild use case: validate every page, render what changed, publish, report.

One run at a time (a lease in the store), incremental (the manifest of the last
successful build), published through a ``SitePublisher`` (a folder swapped atomically,
or a bucket in a safe order), and a private curator report beside it (a
``ReportWriter``). The report's status decides the HTTP status.
"""

from __future__ import annotations

import dataclasses
import errno
import gc
import logging
import multiprocessing
import os
import socket
import threading
import time
import uuid
from collections.abc import Collection, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shared.config import Settings
from shared.dialects.assets import ASSET_DIR
from shared.errors import BibliotecaError, NotConfigured, Unavailable
from shared.logs import get_logger
from shared.ports import Embedder, ReportWriter, SitePublisher, StalePublication, Store
from shared.records import STAGE_INDEX, STAGE_LISTINGS, STAGE_PAGES, Lease, Output, Publication
from shared.schema import Page
from shared.services import feedback_digest, review
from shared.services.report_loop import loop_sections
from shared.services.site_build.sorting import Sorted, remember, sort_records
from shared.site import highlight, paths, refs, renderer, search
from shared.site.entries import Entry, SiteView, entry_of
from shared.site.links import outgoing
from shared.site.manifest import UNRENDERED, Held, Manifest, PageState, content_hash, page_hash
from shared.site.markdown import Body, RenderTimeout, render_body
from shared.site.nav import chrome_hash
from shared.site.plan import affected, diff, reframed

# The lease lives LEASE_SECONDS past its holder's last renewal, and a running build renews
# it every RENEW_SECONDS. A build that stopped, or that could not write to give it back (a
# full disk, a dead store), leaves a lease that expires within LEASE_SECONDS: the next build
# waits that long at most for it, takes it over and says so in its report. A holder that
# renews while the next one waits is alive: that one answers 409 at once. The renewal
# interval is well past one store call's retry deadline (5 s), so a slow renewal does not
# lose the lease; losing it anyway is caught before publishing.
LEASE_SECONDS = 15.0
RENEW_SECONDS = 3.0
LEASE_POLL_SECONDS = 0.5
PARALLEL_FROM = 1000  # pages to parse before worker processes pay for their start-up
MAX_WORKERS = 8
# One page's parse may take this long; past it the page fails alone (``failed``, field
# ``content``) instead of holding the whole build past the function's timeout. Ordinary
# pages take milliseconds; a 200 KB page of pathological Markdown about one second.
RENDER_BUDGET_SECONDS = 5.0
STATIC = Path(__file__).resolve().parents[2] / "site" / "static"
OK, FAILED, IN_PROGRESS = "ok", "failed", "rebuild_in_progress"
_NO_ROOM = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}  # no space, file too large, quota
_log = get_logger("rebuild")


@dataclass
class BuildReport:
    """The contract's report; ``error`` is set when the build could not run at all."""

    status: str = OK
    built: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    broken_links: list[dict[str, str]] = field(default_factory=list)
    duration_ms: int = 0
    full: bool = False
    timings_ms: dict[str, float] = field(default_factory=dict)
    error: BibliotecaError | None = None
    stale_lease: Lease | None = None  # the expired, unreleased lease this run took over

    @property
    def http_status(self) -> int:
        if self.status == IN_PROGRESS:
            return 409
        if self.error is not None:
            return self.error.status
        return 500 if self.status == FAILED else 200

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status,
            "built": self.built,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "failed": self.failed,
            "broken_links": self.broken_links,
            "duration_ms": self.duration_ms,
            "full": self.full,
            "timings_ms": self.timings_ms,
        }
        if self.stale_lease is not None:
            expired = datetime.fromtimestamp(self.stale_lease.expires_at, UTC)
            out["stale_lease"] = {
                "owner": self.stale_lease.owner,
                "expired_at": expired.isoformat(timespec="seconds"),
            }
        if self.error is not None:
            out.update(self.error.body())  # error, code (and field) beside the report
        return out


def site_config(settings: Settings, publisher: SitePublisher) -> renderer.SiteConfig:
    logo_file = settings.site_logo_file
    return renderer.SiteConfig(
        ask_url=settings.ask_url,
        code_url=settings.code_url,
        base_url=settings.site_url or publisher.public_url,
        site_name=settings.site_name,
        logo=logo_path(logo_file) if logo_file is not None else settings.site_logo,
    )


def code_stylesheet() -> Output:
    """``static/code.css``: the colours of highlighted code in both themes, generated from
    the Pygments styles the renderer's classes belong to (``shared.site.highlight``)."""
    return Output(f"{paths.STATIC_DIR}/code.css", highlight.stylesheet().encode(), STAGE_PAGES)


def logo_path(file: Path) -> str:
    """Where the site publishes a logo file: ``static/logo.<ext>``."""
    return f"{paths.STATIC_DIR}/logo{file.suffix.lower()}"


def logo_output(settings: Settings) -> list[Output]:
    """The logo file of ``BIBLIOTECA_SITE_LOGO`` as a static file of the site (none for a
    URL). A file that cannot be read is a configuration error, named before anything is
    published, rather than a site whose header shows a broken image."""
    file = settings.site_logo_file
    if file is None:
        return []
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise NotConfigured(
            f"BIBLIOTECA_SITE_LOGO: the logo file {str(file)!r} cannot be read: {exc.strerror}"
        ) from exc
    return [Output(logo_path(file), data, STAGE_PAGES)]


def build_site(
    settings: Settings,
    full: bool = False,
    *,
    store: Store,
    publisher: SitePublisher,
    curator_report: ReportWriter,
    lease_seconds: float = LEASE_SECONDS,
    embedder: Embedder | None = None,
) -> BuildReport:
    """Build the site once (see the module docstring); whatever fails, the answer is a report.

    A store that is down or full, a disk that is full and even a bug give a ``failed``
    report carrying the contract's error (503, or 500 for a bug), never an exception.
    """
    started = time.perf_counter()
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
    try:
        curator_report.check()
        taken, stale = _take_lease(store, owner, lease_seconds)
        if not taken:
            report = BuildReport(status=IN_PROGRESS)
        else:
            try:
                with _collector_paused(), _renewing(store, owner, lease_seconds):
                    build = _Build(settings, store, publisher, curator_report, owner, embedder)
                    report = build.run(full, lease=lease_seconds)
            finally:
                _release(store, owner)
            report.stale_lease = stale
    except BibliotecaError as exc:
        _log.error("rebuild could not run: %s", exc.message, extra={"code": exc.code})
        report = BuildReport(status=FAILED, error=exc)
    except OSError as exc:  # the local site or its staging folder could not be written
        error = _write_failure(exc)
        _log.error("rebuild could not run: %s", error.message, extra={"code": error.code})
        report = BuildReport(status=FAILED, error=error)
    except Exception:
        _log.exception("rebuild failed on a bug")
        bug = BibliotecaError("internal error: the failure was logged")
        report = BuildReport(status=FAILED, error=bug)
    report.duration_ms = round((time.perf_counter() - started) * 1000)
    # The outcome line the deployment's log-based metric counts (``event`` and ``outcome``;
    # deploy/rebuild-alert.sh): at ERROR when the run failed, so it also reads as one.
    _log.log(
        logging.ERROR if report.status == FAILED else logging.INFO,
        "rebuild %s: built %d, unchanged %d, removed %d, failed %d, broken links %d",
        report.status,
        report.built,
        report.unchanged,
        report.removed,
        len(report.failed),
        len(report.broken_links),
        extra={
            "event": "rebuild_outcome",
            "outcome": report.status,
            "duration_ms": report.duration_ms,
            "full": report.full,
        },
    )
    record_outcome(store, report)
    return report


def record_outcome(store: Store, report: BuildReport) -> None:
    """Remember how a run ended, so ``biblioteca status`` shows a failed one loudly (a
    failure that only reaches a log can go unseen for days); a run that found the lease
    taken did not run. Failing to record is logged, never the build's answer."""
    if report.status == IN_PROGRESS:
        return
    outcome = {
        "status": report.status,
        "built": report.built,
        "failed": len(report.failed),
        "broken_links": len(report.broken_links),
        "duration_ms": report.duration_ms,
        "full": report.full,
        "error": report.error.message if report.error is not None else None,
        "code": report.error.code if report.error is not None else None,
    }
    try:
        store.events.record("rebuild_outcome", outcome)
    except Exception:  # the store may be why the build failed
        _log.exception("the rebuild's outcome could not be recorded")


def _open_proposals(store: Store) -> list[dict[str, Any]]:
    """The agents' proposals waiting for a curator, for the report (none if unreadable:
    the report is still worth writing)."""
    try:
        return [review.proposal_row(p) for p in store.proposals.list(status="open")]
    except BibliotecaError as exc:
        _log.warning("the open proposals could not be read for the report: %s", exc.message)
        return []


def _take_lease(store: Store, owner: str, ttl: float) -> tuple[bool, Lease | None]:
    """Take the lease, waiting up to ``ttl`` for one whose holder stopped renewing it.

    Returns whether it was taken and, when it was an expired lease nobody gave back, that
    lease (the report names it). A lease that changes while we wait (renewed, or taken by
    another run) has a live holder, and one that outlives the wait was not ours to wait
    for: both are ``rebuild_in_progress`` at once.
    """
    deadline = time.monotonic() + ttl
    first: Lease | None = None
    while True:
        seen = store.site.read_lease()
        if store.site.acquire_lease(owner, ttl):
            if seen is not None and seen.owner != owner and seen.expires_at <= time.time():
                _log.warning(
                    "the rebuild lease of %s expired without being given back (its build "
                    "stopped, or could not write to the store): this run took it over",
                    seen.owner,
                )
                return True, seen
            return True, None
        if seen is None or (first is not None and seen != first):
            return False, None
        first = seen
        left = time.monotonic() + (seen.expires_at - time.time())
        if left > deadline:
            return False, None
        time.sleep(LEASE_POLL_SECONDS)


@contextmanager
def _renewing(store: Store, owner: str, ttl: float) -> Iterator[None]:
    """Renew the lease every ``RENEW_SECONDS`` while the build runs (see ``LEASE_SECONDS``).

    A renewal that fails is logged once; the lease then expires on its own, and a build
    that lost it to another run finds out before publishing (``_Build.run``).
    """
    stop = threading.Event()

    def beat() -> None:
        failing = False
        while not stop.wait(RENEW_SECONDS):
            try:
                store.site.acquire_lease(owner, ttl)
                failing = False
            except BibliotecaError as exc:
                if not failing:
                    _log.error("the rebuild lease could not be renewed: %s", exc.message)
                failing = True

    thread = threading.Thread(target=beat, name="rebuild-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _release(store: Any, owner: str) -> None:
    """Give the lease back; failing to is logged, not the build's answer (it expires anyway)."""
    try:
        store.site.release_lease(owner)
    except BibliotecaError as exc:
        _log.error(
            "the rebuild lease could not be released (it expires on its own): %s",
            exc.message,
            extra={"code": exc.code},
        )


def _write_failure(exc: OSError) -> Unavailable:
    if exc.errno in _NO_ROOM:
        return Unavailable(f"the disk holding the site is full: {exc}")
    return Unavailable(f"the site could not be written: {exc}")


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = True


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a build.

    A 10,000-page build allocates millions of small objects (records, models, strings)
    that reference counting frees; the collector's repeated full passes over them cost
    more than the incremental render itself (measured: 0.18 s -> 0.03 s for the link
    graph). Nested or concurrent builds in one process restore it once, at the end.
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


@dataclass
class Rendered:
    """Bodies parsed, and the pages that could not be (``{slug, field, error}``)."""

    bodies: dict[str, Body] = field(default_factory=dict)
    failed: dict[str, dict[str, str]] = field(default_factory=dict)


def render_bodies(contents: Mapping[str, str], budget: float | None = None) -> Rendered:
    """Markdown of many pages to HTML, on every core when there is enough to share.

    Parsing is most of a full build's CPU time and each body depends on its own text
    only, so big batches go to a pool of fresh processes (spawned, never forked: the
    caller may be a threaded server holding locks and store connections). A page that
    takes longer than ``budget`` seconds fails alone instead of stalling the build.
    """
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    seconds = RENDER_BUDGET_SECONDS if budget is None else budget
    jobs = [(slug, text, seconds) for slug, text in contents.items()]
    if len(contents) < PARALLEL_FROM or workers < 2:
        results = [_render_one(job) for job in jobs]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            results = list(pool.map(_render_one, jobs, chunksize=64))
    out = Rendered()
    for slug, result in zip(contents, results, strict=True):
        if isinstance(result, Body):
            out.bodies[slug] = result
        else:
            _log.error("page '%s' left out of the site: %s", slug, result, extra={"slug": slug})
            out.failed[slug] = {"slug": slug, "field": "content", "error": result}
    return out


def _render_one(job: tuple[str, str, float]) -> Body | str:
    """One page's body, or why it could not be rendered (a module-level function: the
    worker processes import it)."""
    slug, text, budget = job
    try:
        return render_body(text, slug, budget)
    except RenderTimeout:
        return (
            f"the page took longer than {budget:g} s to render; "
            "split it or simplify its Markdown (deep nesting, very long lines)"
        )
    except RecursionError:
        return "the page nests too deeply to render; simplify its structure"


def _cited(page: Page) -> list[str]:
    """The pages a page shows by title besides its body's links: ``related`` and its
    ``wiki`` sources (an archived answer's), so renaming them re-renders it."""
    wiki = [s.ref for s in page.front_matter.sources if s.type == "wiki"]
    return [*page.front_matter.related, *wiki]


def _passages(bodies: Mapping[str, Body]) -> dict[str, tuple[search.Passage, ...]]:
    """The search passages of the pages parsed in this build (the others' terms come
    from the manifest)."""
    return {slug: search.passages(body.html) for slug, body in bodies.items()}


def static_files(folder: Path = STATIC) -> list[Output]:
    """Every file of the static folder, as ``static/<path>`` (dotfiles and Python skipped)."""
    if not folder.is_dir():
        return []
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        skipped = any(part.startswith((".", "__")) for part in relative.split("/"))
        if path.is_file() and not skipped and path.suffix != ".py":
            files.append(Output(f"{paths.STATIC_DIR}/{relative}", path.read_bytes(), STAGE_PAGES))
    return files


class _Timer:
    def __init__(self) -> None:
        self.phases: dict[str, float] = {}

    def phase(self, name: str) -> _Phase:
        return _Phase(self, name)


class _Phase:
    def __init__(self, timer: _Timer, name: str) -> None:
        self.timer, self.name = timer, name

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        elapsed = (time.perf_counter() - self.started) * 1000
        self.timer.phases[self.name] = round(self.timer.phases.get(self.name, 0) + elapsed, 1)


@dataclass
class _Pages:
    """What one build read: every page, or those written since the last build."""

    sorted: Sorted
    read_at: str  # just before the read, for the next build's ``updated_since``
    everything: bool
    read: set[str] = field(default_factory=set)  # slugs read (when not everything)


class _ReadAgain(Exception):
    """An unchanged page to render again is not what the manifest says."""


def _now() -> str:
    return datetime.now(UTC).isoformat()


_KEPT_APART = {"slug", "title", "lang", "summary"}  # PageState has its own fields for these


def shown_of(entry: Entry) -> dict[str, Any]:
    """The entry's other fields, JSON-ready, for the manifest."""
    return {
        f.name: list(value) if isinstance(value := getattr(entry, f.name), tuple) else value
        for f in dataclasses.fields(entry)
        if f.name not in _KEPT_APART
    }


def remembered_entry(slug: str, state: PageState) -> Entry:
    """A published page's entry as the manifest holds it (the page is not read)."""
    shown: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in state.shown.items()
    }
    try:
        return Entry(slug=slug, title=state.title, lang=state.lang, summary=state.summary, **shown)
    except TypeError as exc:  # a manifest from before a field was added: read every page
        raise _ReadAgain(f"the manifest does not hold all that page '{slug}' shows") from exc


class _Build:
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
        self.timer = _Timer()
        self.stored_nav: Mapping[str, Any] | None = None

    def run(self, full: bool, lease: float) -> BuildReport:
        self.lease = lease
        with self.timer.phase("load"):
            previous = Manifest.from_json(self.store.site.load_manifest())
            self.stored_nav = self.store.site.load_nav()
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
                pages = self._read_all()
            else:
                assert previous is not None
                pages = self._read_since(since, previous)
        if is_full:
            return self._build(pages, previous, render_key, full=True)
        try:
            try:
                return self._build(pages, previous, render_key, full=False)
            except _ReadAgain as exc:  # (never raised when every page was read)
                _log.warning("%s: this build reads every page", exc)
                pages = self._read_all()
                return self._build(pages, previous, render_key, full=False)
        except StalePublication as exc:
            _log.warning("the published site is not what the manifest says (%s): full build", exc)
        everything = pages if pages.everything else self._read_all()
        return self._build(everything, previous, render_key, full=True)

    def _read_all(self) -> _Pages:
        read_at = _now()
        return _Pages(sort_records(self.store.pages.list()), read_at, everything=True)

    def _read_since(self, since: datetime, previous: Manifest) -> _Pages:
        """The pages written since the last build (and those that failed to render), the
        rest as the manifest remembers them."""
        read_at = _now()
        records = {r.slug: r for r in self.store.pages.list(updated_since=since)}
        for slug, held in previous.held.items():
            if held.kind == UNRENDERED and slug not in records:
                record = self.store.pages.get(slug)  # tried again on every build
                if record is not None:
                    records[slug] = record
        pages = sort_records(records.values())
        remember(pages, records.keys(), previous.held)
        return _Pages(pages, read_at, everything=False, read=set(records))

    def _build(
        self,
        pages: _Pages,
        previous: Manifest | None,
        render_key: str,
        *,
        full: bool,
    ) -> BuildReport:
        before: Mapping[str, PageState] = previous.pages if previous else {}
        published = dict(pages.sorted.published)
        # Published pages this run did not read: unchanged since the manifest.
        kept = set() if pages.everything else set(before) - pages.read
        bodies: dict[str, Body] = {}
        render_failed: dict[str, dict[str, str]] = {}
        with self.timer.phase("render"):
            hashes = {slug: page_hash(page) for slug, page in published.items()}
            hashes.update((slug, before[slug].hash) for slug in kept)
            # A page that cannot be rendered within its budget leaves the site like an
            # invalid one; the plan is then made again without it (at most once per
            # such page, and only bodies not parsed yet are parsed).
            while True:
                live = published.keys() | kept
                changed, gone = diff({s: hashes[s] for s in live}, before)
                if full:
                    changed = set(live)
                batch = render_bodies({s: published[s].content for s in changed - bodies.keys()})
                bodies.update(batch.bodies)
                if self._leave_out(batch.failed, published, render_failed):
                    continue
                site = self._site(published, kept, bodies, before, changed)
                to_render = set(changed)
                chrome = {
                    slug: chrome_hash(site.nav, slug, site.titles)
                    for slug in published.keys() | kept
                }
                if not full:
                    to_render |= affected(
                        changed | gone, before, site.links, site.titles, site.inbound
                    )
                    to_render |= reframed(chrome, before)
                self._fetch(to_render & kept, published, kept, before)
                batch = render_bodies({s: published[s].content for s in to_render - bodies.keys()})
                bodies.update(batch.bodies)
                if not self._leave_out(batch.failed, published, render_failed):
                    break
            found = _passages(bodies)
            terms = {
                slug: search.page_terms(found[slug]) if slug in found else before[slug].terms
                for slug in published.keys() | kept
            }
            page_outputs, states, keep = self._pages(
                published, kept, bodies, site, before, hashes, chrome, found, terms, full
            )
            search_key = search.input_key(site.entries.values(), terms)
            reused: dict[str, str] = {}
            split: list[str] | None = None
            if previous is not None and not full and previous.search.get("key") == search_key:
                shards = f"{search.FOLDER}/"
                reused = {p: h for p, h in previous.files.items() if p.startswith(shards)}
                split = [str(k) for k in previous.search.get("split", [])]
            others, split = self._others(site, terms, split)
        if not self.store.site.acquire_lease(self.owner, self.lease):
            # The lease expired and another run took it: publishing now could interleave.
            return BuildReport(status=IN_PROGRESS)
        files = {o.path: content_hash(o.data) for o in others}
        old_files = previous.files if previous and not full else {}
        writes = page_outputs + [o for o in others if old_files.get(o.path) != files[o.path]]
        keep += [o.path for o in others if old_files.get(o.path) == files[o.path]]
        with self.timer.phase("assets"):
            asset_writes, asset_files = self._assets(states, old_files)
        writes += asset_writes
        keep += [path for path in asset_files if path in old_files]
        files.update(asset_files)
        if reused:  # the search shards were not built again: keep the published ones
            files.update(reused)
            keep += list(reused)
        live = published.keys() | kept
        deletes = [] if full else list(self._deletes(before, live, old_files, files))
        if previous is not None and not (full or writes or deletes):
            build_id = previous.build_id  # nothing to publish: the site stays as it is
        else:
            build_id = f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}"
            with self.timer.phase("publish"):
                self.publisher.publish(Publication(build_id, full, writes, keep, deletes))
            with self.timer.phase("cleanup"):
                self.publisher.cleanup()
        built_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        held = dict(pages.sorted.held)
        held.update((slug, Held(UNRENDERED, failure)) for slug, failure in render_failed.items())
        manifest = Manifest(
            build_id,
            built_at,
            render_key,
            self.settings.site_location,
            states,
            files,
            held=held,
            read_at=pages.read_at,
            search={"key": search_key, "split": split},
        )
        with self.timer.phase("manifest"):
            self.store.site.save_manifest(manifest.to_json())
        failed = sorted([*pages.sorted.failed, *render_failed.values()], key=lambda f: f["slug"])
        failed_slugs = {f["slug"] for f in failed}
        report = BuildReport(
            status=FAILED if failed else OK,
            built=len(to_render),
            unchanged=len(published) + len(kept) - len(to_render),
            removed=len([slug for slug in gone if slug not in failed_slugs]),
            failed=failed,
            broken_links=self._broken(states, others, files),
            full=full,
            timings_ms=self.timer.phases,
        )
        self._write_report(report, pages.sorted, build_id, built_at, len(published) + len(kept))
        return report

    @staticmethod
    def _leave_out(
        failures: Mapping[str, dict[str, str]],
        published: dict[str, Page],
        failed: dict[str, dict[str, str]],
    ) -> bool:
        """Take pages that failed to render out of the site; whether there were any."""
        for slug, failure in failures.items():
            published.pop(slug, None)
            failed[slug] = failure
        return bool(failures)

    def _site(
        self,
        published: Mapping[str, Page],
        kept: Collection[str],
        bodies: Mapping[str, Body],
        before: Mapping[str, PageState],
        changed: Collection[str],
    ) -> SiteView:
        """Every published page's entry and links: parsed, read, or from the manifest."""
        links = {
            slug: outgoing(bodies[slug].targets(), _cited(page))
            if slug in bodies
            else before[slug].links
            for slug, page in published.items()
        }
        entries = {
            slug: entry_of(
                page,
                None if slug in changed else (before[slug].lang, before[slug].summary),
            )
            for slug, page in published.items()
        }
        for slug in kept:
            links[slug] = before[slug].links
            entries[slug] = remembered_entry(slug, before[slug])
        anchors = {
            slug: refs.scan(bodies[slug].html).ids if slug in bodies else before[slug].refs.ids
            for slug in entries
            if slug in bodies or slug in before
        }
        return SiteView(entries, links, self.stored_nav, anchors)

    def _fetch(
        self,
        slugs: Collection[str],
        published: dict[str, Page],
        kept: set[str],
        before: Mapping[str, PageState],
    ) -> None:
        """Read the unchanged pages that must be rendered again (they show a changed one).

        One that is not what the manifest says (written after this build's read) makes
        the build read every page: its plan was made on an old picture.
        """
        for slug in sorted(slugs):
            record = self.store.pages.get(slug)
            outcome = sort_records([record]) if record is not None else None
            page = outcome.published.get(slug) if outcome is not None else None
            if page is None or page_hash(page) != before[slug].hash:
                raise _ReadAgain(f"page '{slug}' changed while the build read the store")
            published[slug] = page
            kept.discard(slug)

    def _pages(
        self,
        published: Mapping[str, Page],
        kept: Collection[str],
        bodies: Mapping[str, Body],
        site: SiteView,
        before: Mapping[str, PageState],
        hashes: Mapping[str, str],
        chrome: Mapping[str, str],
        found: Mapping[str, tuple[search.Passage, ...]],
        terms: Mapping[str, search.PageTerms],
        full: bool,
    ) -> tuple[list[Output], dict[str, PageState], list[str]]:
        """Render the pages that need it; the rest are kept as published."""
        outputs: list[Output] = []
        keep: list[str] = []
        states: dict[str, PageState] = {}
        for slug in kept:
            keep.extend(paths.page_files(slug))
            states[slug] = before[slug]
        for slug, page in published.items():
            # A page's folder is written or kept whole: its HTML, Markdown and passages.
            files = paths.page_files(slug)
            old = before.get(slug)
            if slug in bodies:
                text = renderer.render_page(page, bodies[slug], site, self.config)
                html = text.encode()
                markdown = renderer.render_markdown(page).encode()
                passages = search.page_script(slug, page.title, found[slug]).encode()
                out = content_hash(html + b"\0" + markdown + b"\0" + passages)
                if full or old is None or old.out != out:
                    outputs.append(Output(files[0], html, STAGE_PAGES))
                    outputs.append(Output(files[1], markdown, STAGE_PAGES))
                    outputs.append(Output(files[2], passages, STAGE_PAGES))
                else:
                    keep.extend(files)
            else:
                assert old is not None  # not rendered means unchanged since the last build
                keep.extend(files)
                # Same hash, links, title, language, summary, chrome and terms; what it
                # shows is taken from the page read (an older manifest may lack a field).
                states[slug] = dataclasses.replace(old, shown=shown_of(site.entries[slug]))
                continue
            entry: Entry = site.entries[slug]
            states[slug] = PageState(
                version=page.version,
                hash=hashes[slug],
                title=page.title,
                links=tuple(site.links[slug]),
                out=out,
                lang=entry.lang,
                summary=entry.summary,
                shown=shown_of(entry),
                chrome=chrome[slug],
                terms=terms[slug],
                refs=refs.scan(text),
            )
        return outputs, states, keep

    def _assets(
        self, states: Mapping[str, PageState], old_files: Mapping[str, str]
    ) -> tuple[list[Output], dict[str, str]]:
        """The stored files the live pages link (``shared.dialects.assets``): those already
        published are kept unread (their path names their content), the others read from
        the store and written. One a page links that the store lacks is left out, and
        ``broken_links`` reports it."""
        linked = {
            target
            for slug, state in states.items()
            for _attr, url in state.refs.links
            if (target := refs.target_of(paths.page_path(slug), url)[0]).startswith(f"{ASSET_DIR}/")
        }
        files = {path: old_files[path] for path in linked if path in old_files}
        fetched = self.store.site.get_assets(linked - files.keys()) if linked - files.keys() else {}
        outputs = []
        for path, data in sorted(fetched.items()):
            try:
                outputs.append(Output(paths.safe_relative(path), data, STAGE_PAGES))
            except paths.UnsafePath:
                continue  # never written by an import: a tampered row
            files[path] = content_hash(data)
        return outputs, files

    @staticmethod
    def _broken(
        states: Mapping[str, PageState], others: list[Output], files: Mapping[str, str]
    ) -> list[dict[str, str]]:
        """Every dead address of the built HTML (``shared.site.refs``): the pages' scans as
        written (this build or an earlier one), the listings' and index's scanned now."""
        slug_of = {paths.page_path(slug): slug for slug in states}
        scanned = {paths.page_path(slug): state.refs for slug, state in states.items()}
        for output in others:
            if output.path.endswith(".html"):
                scanned[output.path] = refs.scan(output.data.decode())
        published = set(files) | set(slug_of)
        published |= {paths.markdown_path(slug) for slug in states}
        return refs.broken(scanned, published, slug_of)

    def _others(
        self,
        site: SiteView,
        terms: Mapping[str, search.PageTerms],
        split: list[str] | None,
    ) -> tuple[list[Output], list[str]]:
        """Static files, listings, sitemap, search index and shards, nav.js, the index page;
        and the search's split prefixes. ``split`` given: the shards are unchanged since
        the last build (same titles and page terms) and are not built again."""
        out = [*static_files(), code_stylesheet(), *logo_output(self.settings)]
        if split is None:
            shards, split = renderer.render_search_shards(site, terms)
            for path, text in shards.items():
                out.append(Output(path, text.encode(), STAGE_LISTINGS))
        for path, html in renderer.render_section_files(site, self.config).items():
            out.append(Output(path, html.encode(), STAGE_LISTINGS))
        for page_type in renderer.listing_types(site):
            html = renderer.render_listing(page_type, site, self.config)
            out.append(Output(paths.listing_path(page_type), html.encode(), STAGE_LISTINGS))
        llms = renderer.render_llms_txt(site, self.config).encode()
        out.append(Output(paths.LLMS_TXT, llms, STAGE_LISTINGS))
        sitemap = renderer.render_sitemap(site, self.config).encode()
        out.append(Output(paths.SITEMAP, sitemap, STAGE_LISTINGS))
        nav_script = renderer.render_nav_script(site, split).encode()
        out.append(Output(paths.NAV_SCRIPT, nav_script, STAGE_LISTINGS))
        search = renderer.render_search_index(site).encode()
        out.append(Output(paths.SEARCH_INDEX, search, STAGE_LISTINGS))
        index = renderer.render_index(site, self.config).encode()
        out.append(Output(paths.INDEX, index, STAGE_INDEX))
        return out, split

    @staticmethod
    def _deletes(
        before: Mapping[str, PageState],
        published: Collection[str],
        old_files: Mapping[str, str],
        files: Mapping[str, str],
    ) -> Iterator[str]:
        for slug in before:
            if slug not in published:
                try:
                    yield from paths.page_files(slug)
                except paths.UnsafePath:
                    continue  # a tampered manifest: such a page was never published
        for path in old_files:
            if path not in files:
                try:
                    yield paths.safe_relative(path)
                except paths.UnsafePath:
                    continue

    def _write_report(
        self, report: BuildReport, pages: Sorted, build_id: str, built_at: str, published: int
    ) -> None:
        """The private curator report; failing to write it is logged, not fatal."""
        data = {
            "build_id": build_id,
            "built_at": built_at,
            "site": self.settings.site_location,
            "status": report.status,
            "built": report.built,
            "unchanged": report.unchanged,
            "removed": report.removed,
            "published": published,
            "failed": report.failed,
            "broken_links": report.broken_links,
            "drafts": pages.drafts,
            "proposals": _open_proposals(self.store),
        }
        with self.timer.phase("curator_report"):  # the gaps: what anonymous traffic grows
            data["feedback"] = feedback_digest.report_section(self.store)
            data.update(loop_sections(pages.published, self.store, self.embedder))
        html, text = renderer.render_report(data)
        location = self.curator_report.location
        try:
            self.curator_report.write({"index.html": html.encode(), "report.json": text.encode()})
        except OSError as exc:
            _log.error("the curator report could not be written to %s: %s", location, exc)
        except BibliotecaError as exc:  # a bucket that refused or did not answer
            _log.error(
                "the curator report could not be written to %s: %s",
                location,
                exc.message,
                extra={"code": exc.code},
            )
