"""What an import may read: files inside the roots it was given, symlinks resolved, never a
dotfile.

A docs tree is untrusted input (one merged pull request can add ``docs/env.md`` as a link
to ``/proc/self/environ``). So every file the import reads for a page, an asset or a
sidebar goes through ``inside``: the path as written and the path its symlinks lead to
must both stay under one of the roots (DIR, an ``--assets`` folder), no part of either
below that root may start with ``.`` (``.env``, ``.git/config``), and the file must be a
regular file (a FIFO or a device would block or stream forever). Pure but for ``stat``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Refused:
    """A file of the tree that is not read, and why (for the report's warnings)."""

    name: str  # as written, relative to the tree's root (posix)
    why: str


def inside(path: Path, roots: Iterable[Path]) -> Path | None:
    """``path`` resolved, when it is a regular file under one of ``roots`` both as written
    and once its symlinks are followed, with no dot-named part below that root; else None."""
    written = Path(os.path.normpath(os.path.abspath(path)))
    try:
        resolved = path.resolve(strict=True)
        mode = resolved.stat().st_mode
    except (OSError, RuntimeError):
        return None
    if not stat.S_ISREG(mode):
        return None
    for root in roots:
        base = Path(os.path.normpath(os.path.abspath(root)))
        try:
            real_base = root.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if _below(written, base) and _below(resolved, real_base):
            return resolved
    return None


def _below(path: Path, root: Path) -> bool:
    """``path`` is under ``root`` and no part between them is a dotfile or dot-folder."""
    if not path.is_relative_to(root):
        return False
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def walk(root: Path, suffixes: tuple[str, ...]) -> tuple[list[Path], list[Refused]]:
    """The files under ``root`` whose suffix is one of ``suffixes`` (case-insensitive),
    sorted, dot-named files and folders skipped; folder links are not followed, and a
    file (or file link) that leads out of ``root`` is refused, named with why."""
    files: list[Path] = []
    refused: list[Refused] = []
    for path in _candidates(root):
        if path.suffix.lower() not in suffixes:
            continue
        if inside(path, [root]) is not None:
            files.append(path)
            continue
        name = path.relative_to(root).as_posix()
        if path.is_symlink():
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            refused.append(Refused(name, f"a link that leads out of the tree ({target[:80]})"))
        else:
            refused.append(Refused(name, "not a regular file"))
    return sorted(files), sorted(refused, key=lambda r: r.name)


def _candidates(root: Path) -> Iterator[Path]:
    # os.walk with followlinks=False lists a link to a folder among the folders but never
    # enters it: a folder link cannot bring a file of elsewhere into the tree.
    for folder, folders, names in os.walk(root, followlinks=False):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in names:
            if not name.startswith("."):
                yield Path(folder) / name
