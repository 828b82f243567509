"""A page's memory: its revisions, the diff between two of them, and reverting to one.

Every write keeps its revision in the page's own commit (``PageStore``); this module
only reads them (``history``, ``diff``) and writes through the one write path
(``revert`` is an update like any other, attributed to whoever reverts).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

from shared.api.models import RevisionEntry, WikiHistoryResponse
from shared.errors import InvalidInput, NotFound
from shared.json_value import JsonObject
from shared.ports import Embedder, Store
from shared.records import Revision
from shared.schema import FRONT_MATTER_KEYS
from shared.services.wiki import WriteResult, update_validated

DEFAULT_LIMIT = 20


def entry(revision: Revision) -> RevisionEntry:
    """One revision as ``wiki_history`` and ``biblioteca history --json`` show it."""
    return RevisionEntry(
        version=revision.version,
        at=revision.at.isoformat(),
        actor=revision.actor,
        changed=list(revision.changed),
        note=revision.note or None,  # present only when a review step wrote one
    )


def history(slug: str, store: Store, *, limit: int = DEFAULT_LIMIT) -> WikiHistoryResponse:
    """``POST /wiki_history``: the page's newest revisions; ``NotFound`` for no page."""
    if store.pages.get(slug) is None:
        raise NotFound(f"no page with slug '{slug}'", field="slug")
    return WikiHistoryResponse(
        slug=slug, revisions=[entry(r) for r in store.revisions.history(slug, limit=limit)]
    )


def kept(slug: str, version: int, store: Store, *, field: str = "version") -> Revision:
    """Version ``version``'s revision; ``NotFound`` saying why when there is none."""
    revision = store.revisions.get(slug, version)
    if revision is not None:
        return revision
    record = store.pages.get(slug)
    if record is None:
        raise NotFound(f"no page with slug '{slug}'", field="slug")
    if not 1 <= version <= record.version:
        raise InvalidInput(
            f"page '{slug}' has versions 1 to {record.version}, not {version}", field=field
        )
    raise NotFound(
        f"version {version} of '{slug}' is not kept: it is older than the retention "
        "(BIBLIOTECA_REVISIONS_KEEP) or was written before revisions were kept",
        field=field,
    )


def metadata_text(front_matter: Mapping[str, Any]) -> list[str]:
    """The front matter as stable lines to diff: one ``key: JSON value`` per key."""
    return [
        f"{key}: {json.dumps(front_matter[key], ensure_ascii=False, sort_keys=True)}"
        for key in FRONT_MATTER_KEYS
        if key in front_matter
    ]


def unified(
    slug: str,
    before: tuple[str, Mapping[str, Any], str],
    after: tuple[str, Mapping[str, Any], str],
) -> str:
    """The unified diff of the front matter, then of the text, of two versions (pure).
    Each side is (its label, its front matter, its content); "" when they are equal."""
    (a_label, a_meta, a_text), (b_label, b_meta, b_text) = before, after
    parts = [
        difflib.unified_diff(
            metadata_text(a_meta),
            metadata_text(b_meta),
            f"{slug} {a_label} (front matter)",
            f"{slug} {b_label} (front matter)",
            lineterm="",
        ),
        difflib.unified_diff(
            a_text.splitlines(),
            b_text.splitlines(),
            f"{slug} {a_label}",
            f"{slug} {b_label}",
            lineterm="",
        ),
    ]
    return "\n".join(line for part in parts for line in part)


def diff(slug: str, store: Store, a: int | None = None, b: int | None = None) -> str:
    """``biblioteca diff SLUG [A [B]]``: versions A and B (default: the last two; B
    defaults to the newest)."""
    record = store.pages.get(slug)
    if record is None:
        raise NotFound(f"no page with slug '{slug}'", field="slug")
    newest = b if b is not None else record.version
    oldest = a if a is not None else newest - 1
    if oldest < 1:
        raise InvalidInput(f"page '{slug}' has only version {record.version}: nothing to diff")
    first, second = kept(slug, oldest, store, field="A"), kept(slug, newest, store, field="B")
    return unified(
        slug,
        (f"v{first.version}", first.front_matter, first.content),
        (f"v{second.version}", second.front_matter, second.content),
    )


def revert(slug: str, to: int, store: Store, embedder: Embedder, *, actor: str) -> WriteResult:
    """``biblioteca revert SLUG --to N``: a new version whose content and front matter are
    version N's (the whole front matter, status included: a revert restores the page as
    it was). Reverting to what the page already is changes nothing."""
    target = kept(slug, to, store, field="to")
    current = store.pages.get(slug)
    if current is None:
        raise NotFound(f"no page with slug '{slug}'", field="slug")
    # Keys the target lacks are cleared: N's front matter exactly, not merged over now's.
    required = ("title", "type", "status")
    metadata: JsonObject = {k: None for k in FRONT_MATTER_KEYS if k not in required}
    metadata |= {k: v for k, v in target.front_matter.items() if k in FRONT_MATTER_KEYS}
    return update_validated(
        slug,
        metadata,
        target.content,
        current.version,
        store,
        embedder,
        actor=actor,
        note=f"reverted to version {to}",
        field="",
        known=current,
    )
