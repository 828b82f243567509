"""Publishing a build to a local folder atomically: a new generation, then one rename.

``BIBLIOTECA_SITE_DIR`` is a symbolic link to the current generation folder in
``.<name>.builds/`` beside it. A build fills a fresh generation, then replaces the
link with ``os.replace``: readers see the old site or the new one, never a mix.

A generation must hold one entry per page (``<slug>/index.html``), so its cost is
in file-system operations, not bytes. Each page folder is therefore a symbolic link
into ``.pages/``, a pool of immutable page folders named by their content: a page
the build did not change costs one link, and removing an old generation unlinks
links instead of removing 10,000 folders (``rmdir`` is the slow call on a busy disk).

Even 10,000 links cost seconds on a busy disk, so a generation is recycled rather than
made anew: three are kept (the live one, the one before it for readers mid-request, and
a spare, two builds old), and a build renames the spare to its own id and changes only
the links that differ. Each generation's listing (page folder -> pooled folder, its
other top-level entries, the generation before it) is a small JSON file in
``.listings/``, so neither the live generation nor the spare is read link by link. A
spare's listing is removed before it is changed: a build that dies halfway leaves a
generation without a listing, which is never recycled and is removed by the next
cleanup. The cost of an incremental publish follows the change, not the site.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shared.errors import NotConfigured, Unavailable
from shared.ports import StalePublication
from shared.records import Publication
from shared.site.paths import INDEX, MARKDOWN, MARKER, PAGE_SEARCH, safe_relative

_BUILD_ID = re.compile(r"^[0-9a-z][0-9a-z-]{0,80}$")
PAGE_FILES = frozenset({INDEX, MARKDOWN, PAGE_SEARCH})  # what a pooled page folder may hold
POOL = ".pages"  # in the builds folder; never a build id (those start with a digit or letter)
LISTINGS = ".listings"  # beside the pool: one JSON file per generation


@dataclass
class _Layout:
    """A generation's contents before they are written: page folder -> pooled folder,
    files kept from the live generation, and files written anew."""

    pages: dict[str, str] = field(default_factory=dict)
    kept_files: list[str] = field(default_factory=list)
    written: list[tuple[str, bytes]] = field(default_factory=list)


@dataclass
class Listing:
    """What a generation holds: page folder -> pooled folder, its other top-level
    entries (real folders and files), and the generation that was live before it."""

    pages: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    previous: str | None = None

    def to_bytes(self) -> bytes:
        data = {"pages": self.pages, "files": self.files, "previous": self.previous}
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> Listing | None:
        try:
            raw = json.loads(data)
            pages = {str(k): str(v) for k, v in raw["pages"].items()}
            files = [str(x) for x in raw["files"]]
            previous = raw["previous"]
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        if previous is not None and not isinstance(previous, str):
            return None
        return cls(pages, files, previous)


def marker_bytes(build_id: str, built_at: str) -> bytes:
    return json.dumps({"build_id": build_id, "built_at": built_at}).encode()


def read_marker(data: bytes) -> str | None:
    try:
        value = json.loads(data)["build_id"]
    except (ValueError, KeyError, TypeError):
        return None
    return str(value) if isinstance(value, str) else None


class LocalPublisher:
    """A site folder replaced atomically (see the module docstring)."""

    KEEP_GENERATIONS = 3  # the live one, the one before for readers mid-request, a spare

    def __init__(self, location: str) -> None:
        self.location = location
        self.site = Path(location).absolute()
        self.builds = self.site.parent / f".{self.site.name}.builds"
        self._current: str | None = None
        self._released: set[str] = set()  # pooled folders a recycled spare stopped using
        self._listings: dict[str, Listing] = {}  # read or written by this publisher

    @property
    def public_url(self) -> None:
        """A folder implies no public address (``serve`` shows it at ``/``)."""
        return None

    def current_build(self) -> str | None:
        try:
            return read_marker((self.site / MARKER).read_bytes())
        except OSError:
            return None

    def publish(self, publication: Publication) -> None:
        if not _BUILD_ID.match(publication.build_id):
            raise ValueError(f"bad build id {publication.build_id!r}")
        adopted = self._adopt_site_folder()
        generation = self.builds / publication.build_id
        previous = self.site.resolve() if self.site.is_symlink() else adopted
        live_id = previous.name if previous is not None and previous.parent == self.builds else None
        live = self._listing(live_id)
        spare_id = self._spare(previous, live)
        spare = self._listing(spare_id) if spare_id is not None else None
        try:
            if spare_id is not None and spare is not None and spare_id != publication.build_id:
                self._listing_path(spare_id).unlink()  # from now on it is a half-built folder
                self._listings.pop(spare_id, None)
                os.rename(self.builds / spare_id, generation)
            else:
                spare = None
                generation.mkdir(parents=True)
            listing = self._fill(generation, previous, live, spare, publication)
            listing.previous = live_id
            self._save_listing(publication.build_id, listing)
            self._swap(publication.build_id)
        except BaseException:
            self._listing_path(publication.build_id).unlink(missing_ok=True)
            self._listings.pop(publication.build_id, None)
            shutil.rmtree(generation, ignore_errors=True)
            if adopted is not None and not os.path.lexists(self.site):
                adopted.rename(self.site)  # put the old site back where readers look
            raise
        self._current = publication.build_id

    def cleanup(self) -> None:
        """Remove older generations once the new one is live (readers never need them)."""
        if self._current is not None:
            self._cleanup(self._current)

    # -- generations and their listings -----------------------------------------------

    def _listing_path(self, build_id: str) -> Path:
        return self.builds / LISTINGS / f"{build_id}.json"

    def _listing(self, build_id: str | None) -> Listing | None:
        if build_id is None or not _BUILD_ID.match(build_id):
            return None
        if build_id in self._listings:
            return self._listings[build_id]
        try:
            listing = Listing.from_bytes(self._listing_path(build_id).read_bytes())
        except OSError:
            return None
        if listing is not None:
            self._listings[build_id] = listing
        return listing

    def _save_listing(self, build_id: str, listing: Listing) -> None:
        path = self._listing_path(build_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f".tmp-{uuid.uuid4().hex}")
        staging.write_bytes(listing.to_bytes())
        os.replace(staging, path)
        self._listings[build_id] = listing

    def _spare(self, live_folder: Path | None, live: Listing | None) -> str | None:
        """The generation two builds back, when it is complete and listed: recycled."""
        if live is None or live.previous is None or live_folder is None:
            return None
        before = self._listing(live.previous)
        spare = before.previous if before is not None else None
        if spare is None or spare in (live_folder.name, live.previous):
            return None
        return spare if (self.builds / spare).is_dir() else None

    def _chain(self, build_id: str) -> list[str]:
        """The live generation and the ones kept behind it (newest first)."""
        chain = [build_id]
        while len(chain) < self.KEEP_GENERATIONS:
            listing = self._listing(chain[-1])
            if listing is None or listing.previous is None or listing.previous in chain:
                break
            chain.append(listing.previous)
        return chain

    # -- steps ------------------------------------------------------------------------

    def _adopt_site_folder(self) -> Path | None:
        """Make sure the site path is ours to replace: a link, nothing, or our own folder.

        Returns where our own older folder was moved (it is the current generation)."""
        path = self.site
        if path.is_symlink() or not path.exists():
            return None
        if not path.is_dir():
            raise NotConfigured(f"BIBLIOTECA_SITE_DIR {path} is a file, not a folder")
        if not any(path.iterdir()):
            path.rmdir()
            return None
        if not (path / MARKER).is_file():
            raise NotConfigured(
                f"BIBLIOTECA_SITE_DIR {path} is a folder that biblioteca did not build: "
                "empty it or point BIBLIOTECA_SITE_DIR elsewhere"
            )
        # A site folder from before the link layout: moved aside once, then replaced.
        self.builds.mkdir(parents=True, exist_ok=True)
        adopted = self.builds / f"adopted-{time.time_ns()}"
        path.rename(adopted)
        return adopted

    def _fill(
        self,
        generation: Path,
        previous: Path | None,
        live: Listing | None,
        spare: Listing | None,
        publication: Publication,
    ) -> Listing:
        """Make ``generation`` hold the publication; a recycled ``spare`` changes only
        where it differs."""
        laid = self._lay_out(previous, live, publication)
        self._link_pages(generation, spare, laid.pages)
        made: set[Path] = {generation}
        for relative in laid.kept_files:
            assert previous is not None
            target = generation / relative
            _mkdirs(target.parent, made)
            try:
                os.link(previous / relative, target)
            except FileNotFoundError as exc:
                raise StalePublication(f"{relative} is missing from the published site") from exc
            except OSError:
                shutil.copyfile(previous / relative, target)  # another file system
        for relative, data in laid.written:
            target = generation / relative
            _mkdirs(target.parent, made)
            target.write_bytes(data)
        built_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        (generation / MARKER).write_bytes(marker_bytes(publication.build_id, built_at))
        tops = {r.split("/", 1)[0] for r in laid.kept_files}
        tops |= {r.split("/", 1)[0] for r, _ in laid.written}
        return Listing(laid.pages, sorted(tops | {MARKER}))

    def _lay_out(
        self, previous: Path | None, live: Listing | None, publication: Publication
    ) -> _Layout:
        """Where each file of the publication goes: page folders (pooled, written whole or
        kept from the live generation) and the other files, kept or written."""
        # The generation is a folder of this build, so it holds no links of anyone else:
        # a path that ``safe_relative`` accepts (no '..', no absolute, no empty part)
        # cannot leave it, and resolving 10,000 paths one by one is not needed.
        everything = [*publication.keep, *(o.path for o in publication.writes)]
        pooled = _page_folders(everything)
        laid = _Layout()
        for relative in map(safe_relative, publication.keep):
            if previous is None:
                raise StalePublication("no published site to keep files from")
            top = relative.split("/", 1)[0]
            if top not in pooled:
                laid.kept_files.append(relative)
            elif live is not None and top in live.pages:
                laid.pages[top] = live.pages[top]
            else:
                laid.pages[top] = self._kept_folder(previous, top)
        folders: dict[str, dict[str, bytes]] = {}
        for output in publication.writes:
            relative = safe_relative(output.path)
            top = relative.split("/", 1)[0]
            if top in pooled:
                folders.setdefault(top, {})[relative.partition("/")[2]] = output.data
            else:
                laid.written.append((relative, output.data))
        for top, files in folders.items():  # a page folder is written whole (HTML, Markdown)
            laid.pages[top] = self._pool_folder(top, files)
        return laid

    def _link_pages(self, generation: Path, spare: Listing | None, pages: dict[str, str]) -> None:
        """Point each page folder of ``generation`` at its pooled folder, changing only the
        links of a recycled ``spare`` that differ, and clearing its other files."""
        old = spare.pages if spare is not None else {}
        for top, name in old.items():
            if pages.get(top) != name:
                (generation / top).unlink()
                self._released.add(name)
        for name in spare.files if spare is not None else ():
            _remove(generation / name)
        for top, name in pages.items():
            if old.get(top) != name:
                os.symlink(f"../{POOL}/{name}", generation / top, target_is_directory=True)

    def _kept_folder(self, previous: Path, top: str) -> str:
        """The pooled folder the live generation uses for ``top`` (read from its link)."""
        try:
            return os.path.basename(os.readlink(previous / top))
        except FileNotFoundError as exc:
            raise StalePublication(f"{top}/ is missing from the published site") from exc
        except OSError:
            pass  # a real folder (a site built before the pool): pool its page now
        try:
            files = {
                name: (previous / top / name).read_bytes()
                for name in PAGE_FILES
                if (previous / top / name).is_file()
            }
        except OSError as exc:
            raise StalePublication(f"{top}/ could not be read from the published site") from exc
        if INDEX not in files:
            raise StalePublication(f"{top}/{INDEX} is missing from the published site")
        return self._pool_folder(top, files)

    def _pool_folder(self, top: str, files: dict[str, bytes]) -> str:
        """The pooled folder holding ``files`` (name -> bytes) for ``top`` (made if new)."""
        pool = self.builds / POOL
        digest = hashlib.sha256(top.encode())
        for file_name in sorted(files):
            digest.update(b"\0" + file_name.encode() + b"\0" + files[file_name])
        name = digest.hexdigest()[:32]
        if not (pool / name).is_dir():
            # Written aside, then renamed: a pooled folder is complete or absent.
            staging = pool / f".tmp-{uuid.uuid4().hex}"
            staging.mkdir(parents=True)
            for file_name, data in files.items():
                (staging / file_name).write_bytes(data)
            try:
                os.rename(staging, pool / name)
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)  # a twin got there: same bytes
        return name

    def _swap(self, build_id: str) -> None:
        link = self.builds / f".link-{build_id}"
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        os.symlink(Path(self.builds.name) / build_id, link, target_is_directory=True)
        try:
            os.replace(link, self.site)
        except OSError as exc:
            link.unlink(missing_ok=True)
            raise Unavailable(f"could not publish the site at {self.site}: {exc}") from exc

    def _cleanup(self, current: str) -> None:
        """Remove older generations, crash leftovers and pooled pages no generation uses.

        When every generation removed had a listing, only the pooled folders those
        listings (and the recycled spare) used are candidates; otherwise the pool is
        scanned."""
        keep = set(self._chain(current))
        candidates = set(self._released)
        self._released.clear()
        scan = False
        for entry in self.builds.iterdir():
            if entry.name in (POOL, LISTINGS) or entry.name in keep:
                continue
            listing = self._listing(entry.name) if entry.is_dir() else None
            if listing is not None:
                candidates.update(listing.pages.values())
            elif not entry.name.startswith(".link-"):
                scan = True  # a crash leftover or an older layout: its links are unknown
            _remove(entry)
        listings = self.builds / LISTINGS
        with contextlib.suppress(OSError), os.scandir(listings) as files:
            for file in files:
                if file.name.removesuffix(".json") not in keep:
                    os.unlink(file.path)
        pool = self.builds / POOL
        if not pool.is_dir():
            return
        used: set[str] = set()
        for name in keep:
            listing = self._listing(name)
            if listing is not None:
                used.update(listing.pages.values())
                continue
            scan = True
            with contextlib.suppress(OSError), os.scandir(self.builds / name) as entries:
                used.update(
                    os.path.basename(os.readlink(e.path)) for e in entries if e.is_symlink()
                )
        names: Iterable[str] = candidates
        if scan:
            with os.scandir(pool) as pooled:
                names = [folder.name for folder in pooled]
        for name in names:
            if name not in used:
                shutil.rmtree(pool / name, ignore_errors=True)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _page_folders(paths: Sequence[str]) -> set[str]:
    """Top-level folders holding a page (``index.html``, and its ``index.md``) and nothing
    else: those are pooled.

    A folder with anything else (``static/``, ``type/``, ``search/``, or a page whose
    slug is ``static`` beside the widget's files) stays a real folder of the generation.
    """
    files: dict[str, set[str]] = {}
    for path in paths:
        top, _, rest = path.partition("/")
        if rest:
            files.setdefault(top, set()).add(rest)
    return {top for top, inside in files.items() if INDEX in inside and inside <= PAGE_FILES}


def _mkdirs(folder: Path, made: set[Path]) -> None:
    if folder not in made:
        folder.mkdir(parents=True, exist_ok=True)
        made.add(folder)
