"""The name a docs tree is known by in its pages' origins: what ``--sync`` compares.

Two repositories both checked out as ``website`` must never retire each other's pages, so
the name is the repository, not a folder: ``--tree NAME`` when the caller gives one, else
the git remote of the checkout holding the tree (``github.com/org/website``, read from
the checkout's own config as data, credentials never kept) with the tree's path below the
repository root (``github.com/org/website/docs``), else that path alone (``docs``: the
same from any clone), else, outside any checkout, the folder's absolute path.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

MAX_TREE_NAME = 300
_SECTION = re.compile(r'^\s*\[\s*remote\s+"([^"]+)"\s*\]')
_ANY_SECTION = re.compile(r"^\s*\[")
_URL = re.compile(r"^\s*url\s*=\s*(\S.*?)\s*$", re.I)
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:org/repo.git


def tree_name(root: Path, name: str | None = None) -> str:
    """The tree's name (module docstring): ``name`` when given, else from its checkout."""
    if name and name.strip():
        return name.strip()[:MAX_TREE_NAME]
    resolved = root.resolve()
    checkout = repository_root(resolved)
    if checkout is None:
        return resolved.as_posix()
    below = resolved.relative_to(checkout).as_posix()
    remote = remote_url(checkout)
    if remote is None:
        return below
    return remote if below == "." else f"{remote}/{below}"


def repository_root(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` with a ``.git`` (folder or file)."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def remote_url(checkout: Path) -> str | None:
    """The checkout's ``origin`` remote (else its first), normalized: host and path, no
    scheme, user, password or ``.git`` (``https://x:token@github.com/o/r.git`` and
    ``git@github.com:o/r.git`` are both ``github.com/o/r``); None without one."""
    config = _config_file(checkout / ".git")
    if config is None:
        return None
    try:
        text = config.read_text(encoding="utf-8", errors="replace")[: 256 * 1024]
    except OSError:
        return None
    remotes: dict[str, str] = {}
    section: str | None = None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
            continue
        if _ANY_SECTION.match(line):
            section = None
            continue
        url = _URL.match(line)
        if section is not None and url and section not in remotes:
            remotes[section] = url.group(1).strip('"')
    chosen = remotes.get("origin") or next(iter(remotes.values()), None)
    return normalized(chosen) if chosen else None


def normalized(url: str) -> str | None:
    """A remote URL as ``host/path`` (module docstring); a local path stays a path."""
    url = url.strip()
    scp = _SCP.match(url) if "://" not in url else None
    if scp:
        host, path = scp.group(1), scp.group(2)
    elif "://" in url:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        path = parts.path
    else:
        host, path = "", url
    path = path.strip("/").removesuffix(".git").strip("/")
    joined = f"{host.lower()}/{path}" if host else path
    return joined[:MAX_TREE_NAME] or None


def _config_file(dot_git: Path) -> Path | None:
    """The config of a checkout: ``.git/config``, or, where ``.git`` is a file (a worktree
    or a submodule: ``gitdir: …``), the config of the git folder it names (a worktree's
    shared one, through ``commondir``)."""
    if dot_git.is_dir():
        return dot_git / "config" if (dot_git / "config").is_file() else None
    try:
        line = dot_git.read_text(encoding="utf-8", errors="replace")[:4096].strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = Path(line.removeprefix("gitdir:").strip())
    if not gitdir.is_absolute():
        gitdir = dot_git.parent / gitdir
    common = gitdir / "commondir"
    if common.is_file():
        try:
            shared = Path(common.read_text(encoding="utf-8").strip())
        except OSError:
            return None
        gitdir = shared if shared.is_absolute() else gitdir / shared
    config = gitdir / "config"
    return config if config.is_file() else None
