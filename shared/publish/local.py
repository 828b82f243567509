"""Publishing a build to a local folder atomically: a new generation, then one rename.

``BIBLIOTECA_SITE_DIR`` is a symbolic link to the current generation folder in
``.<name>.builds/`` beside it. A build fills a fresh generation, then replaces the
link with ``os.replace``: readers see the old site or the new one, never a mix.

A generation must hold one entry per page (``<slug>/index.html``), so its cost is
in file-system operations, not bytes. Each page folder is therefore a symbolic link
into ``.pages/``, a pool of immutable page folders named by their content: a page
the build did not change costs one link, and removing an old generation unlinks
links instead of removing 10,000 folders (``rmdir`` is the slow call on a busy disk).
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
from collections.abc import Sequence
from pathlib import Path

from shared.errors import NotConfigured, Unavailable
from shared.ports import Publication, StalePublication
from shared.site.paths import INDEX, MARKDOWN, MARKER, safe_relative

_BUILD_ID = re.compile(r"^[0-9a-z][0-9a-z-]{0,80}$")
PAGE_FILES = frozenset({INDEX, MARKDOWN})  # what a pooled page folder may hold
POOL = ".pages"  # in the builds folder; never a build id (those start with a digit or letter)


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

    KEEP_GENERATIONS = 2  # the current one and the one before, for readers mid-request

    def __init__(self, location: str) -> None:
        self.location = location
        self.site = Path(location).absolute()
        self.builds = self.site.parent / f".{self.site.name}.builds"
        self._current: str | None = None
        self._previous: Path | None = None

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
        try:
            generation.mkdir(parents=True)
            self._fill(generation, previous, publication)
            self._swap(publication.build_id)
        except BaseException:
            shutil.rmtree(generation, ignore_errors=True)
            if adopted is not None and not os.path.lexists(self.site):
                adopted.rename(self.site)  # put the old site back where readers look
            raise
        self._current, self._previous = publication.build_id, previous

    def cleanup(self) -> None:
        """Remove older generations once the new one is live (readers never need them)."""
        if self._current is not None:
            self._cleanup(self._current, self._previous)

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

    def _fill(self, generation: Path, previous: Path | None, publication: Publication) -> None:
        # The generation is a folder this build just created, so it holds no links of
        # anyone else: a path that ``safe_relative`` accepts (no '..', no absolute, no
        # empty part) cannot leave it, and resolving 10,000 paths one by one is not needed.
        everything = [*publication.keep, *(o.path for o in publication.writes)]
        pooled = _page_folders(everything)
        made: set[Path] = {generation}
        kept: set[str] = set()
        for relative in map(safe_relative, publication.keep):
            if previous is None:
                raise StalePublication("no published site to keep files from")
            top = relative.split("/", 1)[0]
            if top in pooled:
                if top not in kept:  # a page folder is kept whole (HTML and Markdown)
                    self._keep_folder(previous, generation, top)
                    kept.add(top)
                continue
            target = generation / relative
            _mkdirs(target.parent, made)
            try:
                os.link(previous / relative, target)
            except FileNotFoundError as exc:
                raise StalePublication(f"{relative} is missing from the published site") from exc
            except OSError:
                shutil.copyfile(previous / relative, target)  # another file system
        folders: dict[str, dict[str, bytes]] = {}
        for output in publication.writes:
            relative = safe_relative(output.path)
            top, _, name = relative.partition("/")
            if top in pooled:
                folders.setdefault(top, {})[name] = output.data
                continue
            target = generation / relative
            _mkdirs(target.parent, made)
            target.write_bytes(output.data)
        for top, files in folders.items():
            self._pool_folder(generation, top, files)
        built_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        (generation / MARKER).write_bytes(marker_bytes(publication.build_id, built_at))

    def _keep_folder(self, previous: Path, generation: Path, top: str) -> None:
        """Point the new generation at the pooled folder the current one uses."""
        try:
            os.symlink(os.readlink(previous / top), generation / top)
            return
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
        self._pool_folder(generation, top, files)

    def _pool_folder(self, generation: Path, top: str, files: dict[str, bytes]) -> None:
        """Link ``generation/top`` to a pooled folder holding ``files`` (name -> bytes)."""
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
        os.symlink(f"../{POOL}/{name}", generation / top, target_is_directory=True)

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

    def _cleanup(self, current: str, previous: Path | None) -> None:
        """Remove older generations, crash leftovers and pooled pages no generation uses."""
        keep = {current, previous.name if previous is not None else current}
        for entry in self.builds.iterdir():
            if entry.name == POOL or entry.name in keep:
                continue
            if entry.is_symlink() or entry.is_file():
                entry.unlink(missing_ok=True)
            else:
                shutil.rmtree(entry, ignore_errors=True)
        pool = self.builds / POOL
        if not pool.is_dir():
            return
        used: set[str] = set()
        for name in keep:
            with contextlib.suppress(OSError), os.scandir(self.builds / name) as entries:
                used.update(
                    os.path.basename(os.readlink(e.path)) for e in entries if e.is_symlink()
                )
        with os.scandir(pool) as pooled:
            for folder in pooled:
                if folder.name not in used:
                    shutil.rmtree(folder.path, ignore_errors=True)


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
