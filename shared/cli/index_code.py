"""``biblioteca index-code``: record a repository's file paths for the grounding gate.

From a git checkout (``--repo DIR``: its tracked files) or a list (``--paths-file FILE``,
one path per line). The list is the whole repository, so paths no longer in it are
removed (``--no-replace`` only adds). A bad line is reported and skipped: exit 1.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from shared.api.models import check_repo
from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.services.code_index import index_paths
from shared.text.code_paths import clean_path


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "index-code", help="record a code repository's file paths (grounding gate)"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--repo", type=Path, metavar="DIR", help="a git checkout")
    source.add_argument(
        "--paths-file", type=Path, metavar="FILE", help="a file with one path per line"
    )
    parser.add_argument(
        "--repo-name", metavar="NAME", help="default: the folder's name or the file's stem"
    )
    parser.add_argument(
        "--no-replace",
        dest="replace",
        action="store_false",
        help="only add paths; keep indexed paths of the repository that are not listed",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


class UsageError(Exception):
    """A mistake in the command line or its inputs: exit status 2."""


def tracked_files(directory: Path) -> list[str]:
    """The files git tracks in ``directory`` (``git ls-files``)."""
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a directory")
    try:
        listed = subprocess.run(  # noqa: S603 - a fixed git command; DIR is only an argument
            ["git", "-C", str(directory), "ls-files", "-z"],  # noqa: S607 - git from PATH
            capture_output=True,
            check=True,
        )
    except FileNotFoundError as exc:
        raise UsageError("git is not installed: use --paths-file instead") from exc
    except subprocess.CalledProcessError as exc:
        detail = exc.stderr.decode(errors="replace").strip().splitlines()
        raise UsageError(
            f"{directory} is not a git checkout ({detail[-1] if detail else 'git failed'})"
        ) from exc
    return [p for p in listed.stdout.decode("utf-8", errors="surrogateescape").split("\0") if p]


def listed_files(path: Path) -> list[str]:
    """The lines of a paths file (blank lines skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise UsageError(f"{path} does not exist") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} cannot be read as UTF-8 text: {exc}") from exc
    return text.splitlines()


def _undecodable(path: str) -> bool:
    """Bytes git listed that are not UTF-8 come back as lone surrogates (surrogateescape)."""
    return any("\udc80" <= c <= "\udcff" for c in path)


def run(args: argparse.Namespace) -> int:
    setup(args)
    try:
        if args.repo is not None:
            raw = tracked_files(args.repo)
            default_name = args.repo.resolve().name
        else:
            raw = listed_files(args.paths_file)
            default_name = args.paths_file.stem
        repo = check_repo(args.repo_name if args.repo_name is not None else default_name)
    except UsageError as exc:
        print(f"biblioteca index-code: {exc}", file=sys.stderr)
        return 2
    paths: dict[str, None] = {}
    skipped: list[tuple[int, str, str]] = []  # line, path as shown, why
    for number, line in enumerate(raw, start=1):
        if not line.strip():
            continue
        path, problem = clean_path(line)
        if problem is None and _undecodable(path):
            problem = "the path's name is not UTF-8"
        if problem is None:
            paths[path] = None
        else:
            shown = line[:200].encode("utf-8", errors="replace").decode()
            skipped.append((number, shown, problem))
    result = index_paths(repo, list(paths), wiring().store, replace=args.replace).body()
    result["skipped"] = [{"line": n, "path": p, "error": why} for n, p, why in skipped]
    mode = "replaced" if args.replace else "added to"
    lines = [f"indexed {result['indexed']} paths of '{repo}' ({mode} the index)"]
    lines += [f"  skipped line {n}: {why}: {p}" for n, p, why in skipped]
    emit(args, result, "\n".join(lines))
    return 1 if skipped else 0
