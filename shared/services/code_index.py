"""Indexing code paths: one ``put_paths`` of a repository's checked, distinct paths.

Then the freshness of the pages citing a path that changed is rechecked (only those).
Used by ``POST /index_code`` (paths checked by ``IndexCodeRequest``) and by
``biblioteca index-code`` (paths checked line by line with ``clean_path``).
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.api.models import IndexCodeResponse
from shared.ports import Store
from shared.services.freshness import recheck_after


def index_paths(
    repo: str, paths: Sequence[str], store: Store, *, replace: bool
) -> IndexCodeResponse:
    """Record already checked ``paths`` of ``repo``; the count is that repo's distinct paths."""
    changes = store.code.apply_paths(repo, paths, replace=replace)
    recheck_after(changes, store)
    return IndexCodeResponse(repo=repo, indexed=changes.indexed)
