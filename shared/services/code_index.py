"""Indexing code paths: checking a repository's path list, then one ``put_paths``.

Entry points: ``index_paths(repo, paths, store, replace=...)`` (the CLI) and
``index_request(body, store)`` (``POST /index_code``), both returning
``{"repo", "indexed"}``; a bad path is an ``InvalidInput`` naming ``paths[i]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shared.errors import InvalidInput
from shared.gates.code_paths import normalize_path
from shared.ports import Store

MAX_REPO = 200
MAX_PATH = 1024
MAX_SEGMENTS = 64  # deeper is a mistake, and a path's keys must fit one store batch
_KEYS = ("repo", "paths", "replace")


def path_problem(path: str) -> str | None:
    """Why ``path`` (normalized) cannot be indexed, or None."""
    if not path:
        return "a path must not be blank"
    if len(path) > MAX_PATH:
        return f"a path has at most {MAX_PATH} characters"
    segments = path.split("/")
    if len(segments) > MAX_SEGMENTS:
        return f"a path has at most {MAX_SEGMENTS} segments"
    if any(s in (".", "..") for s in segments):
        return "a path inside a repository has no '.' or '..' segments"
    if any(ord(c) < 32 or c == "\x7f" for c in path):
        return "a path has no control characters"
    return None


def clean_path(raw: str) -> tuple[str, str | None]:
    """(the normalized path, why it cannot be indexed or None); '../x' leaves the repository."""
    if ".." in raw.replace("\\", "/").split("/"):
        return raw, "a path inside a repository has no '..' segments"
    path = normalize_path(raw)
    return path, path_problem(path)


def check_repo(repo: object) -> str:
    if not isinstance(repo, str) or not repo.strip():
        raise InvalidInput("repo is required: the repository's name", field="repo")
    name = repo.strip()
    if len(name) > MAX_REPO or any(ord(c) < 32 for c in name):
        raise InvalidInput(
            f"repo is a name of at most {MAX_REPO} printable characters", field="repo"
        )
    return name


def check_paths(paths: object, field: str = "paths") -> list[str]:
    """The normalized, distinct paths; ``InvalidInput`` at ``paths[i]`` for a bad one."""
    if not isinstance(paths, list):
        raise InvalidInput("paths is required: a list of file paths", field=field)
    out: dict[str, None] = {}
    for i, raw in enumerate(paths):
        if not isinstance(raw, str):
            raise InvalidInput(
                f"a path is a string, got {type(raw).__name__}", field=f"{field}[{i}]"
            )
        path, problem = clean_path(raw)
        if problem is not None:
            raise InvalidInput(f"{problem}: {raw[:120]!r}", field=f"{field}[{i}]")
        out[path] = None
    return list(out)


def index_paths(repo: str, paths: Sequence[str], store: Store, *, replace: bool) -> dict[str, Any]:
    """Record already checked ``paths`` of ``repo``; the count is that repo's distinct paths."""
    return {"repo": repo, "indexed": store.code.put_paths(repo, paths, replace=replace)}


def index_request(body: Mapping[str, Any], store: Store) -> dict[str, Any]:
    """``POST /index_code``: ``{"repo", "paths", "replace"?}`` -> ``{"repo", "indexed"}``."""
    for key in body:
        if key not in _KEYS:
            raise InvalidInput(f"unknown field '{key}'; allowed: {', '.join(_KEYS)}", field=key)
    repo = check_repo(body.get("repo"))
    paths = check_paths(body.get("paths"))
    replace = body.get("replace")
    if replace is None:
        replace = False
    if not isinstance(replace, bool):
        raise InvalidInput("replace must be true or false", field="replace")
    return index_paths(repo, paths, store, replace=replace)
