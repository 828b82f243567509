"""Publishing a build: the stored assets its pages link, which files to write, keep and
delete against the last build's, and the publication itself (or none, when nothing changed).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from shared.dialects.assets import ASSET_DIR
from shared.ports import SitePublisher, Store
from shared.records import STAGE_PAGES, Output, Publication
from shared.services.site_build.pages import RenderedPages
from shared.services.site_build.timer import Timer
from shared.site import paths, refs
from shared.site.manifest import Manifest, PageState, content_hash
from shared.site.plan import Plan
from shared.text.safe_assets import safe_asset


@dataclass
class Assets:
    """The stored files the live pages link: those to write, and every one's content hash."""

    outputs: list[Output] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)


def read_assets(
    store: Store, states: Mapping[str, PageState], old_files: Mapping[str, str]
) -> Assets:
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
    out = Assets(files={path: old_files[path] for path in linked if path in old_files})
    missing = linked - out.files.keys()
    fetched = store.site.get_assets(missing) if missing else {}
    for path, stored in sorted(fetched.items()):
        data = safe_asset(path, stored)  # stored before SVGs were cleaned at import
        if data is None:
            continue
        try:
            out.outputs.append(Output(paths.safe_relative(path), data, STAGE_PAGES))
        except paths.UnsafePath:
            continue  # never written by an import: a tampered row
        out.files[path] = content_hash(data)
    return out


@dataclass(frozen=True)
class FileChanges:
    """What a build hands the publisher, and the hash of every file besides the pages
    (the manifest's ``files``)."""

    writes: list[Output]
    keep: list[str]
    delete: list[str]
    files: dict[str, str]


def file_changes(
    plan: Plan,
    pages: RenderedPages,
    others: Sequence[Output],
    assets: Assets,
    reused: Mapping[str, str],
    old_files: Mapping[str, str],
) -> FileChanges:
    """Pure: the files to write (new or different from the last build's), to keep, and to
    delete (the pages gone, and the other files no longer built). ``reused`` are the
    published search shards this build did not build again; ``old_files`` the last
    build's other files (none in a full build, which writes everything)."""
    files = {o.path: content_hash(o.data) for o in others}
    writes = pages.outputs + [o for o in others if old_files.get(o.path) != files[o.path]]
    keep = pages.keep + [o.path for o in others if old_files.get(o.path) == files[o.path]]
    writes += assets.outputs
    keep += [path for path in assets.files if path in old_files]
    files.update(assets.files)
    files.update(reused)
    keep += list(reused)
    # A gone page's address may be written again (a merged page's redirect): never deleted.
    delete = [] if plan.full else [*plan.delete, *_stale(old_files, files)]
    delete = [path for path in delete if path not in files]
    return FileChanges(writes, keep, delete, files)


def _stale(old_files: Mapping[str, str], files: Mapping[str, str]) -> list[str]:
    out = []
    for path in old_files:
        if path not in files:
            try:
                out.append(paths.safe_relative(path))
            except paths.UnsafePath:
                continue
    return out


def publish(
    publisher: SitePublisher,
    previous: Manifest | None,
    changed: FileChanges,
    timer: Timer,
    *,
    full: bool,
) -> str:
    """Publish the changes; the build id of the site now published. Nothing to publish:
    the site stays as it is, under the last build's id."""
    if previous is not None and not (full or changed.writes or changed.delete):
        return previous.build_id
    build_id = f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}"
    with timer.phase("publish"):
        publisher.publish(Publication(build_id, full, changed.writes, changed.keep, changed.delete))
    with timer.phase("cleanup"):
        publisher.cleanup()
    return build_id
