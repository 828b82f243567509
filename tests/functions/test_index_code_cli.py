"""``biblioteca index-code``: from a git checkout or a paths file, exit codes 0/1/2, both stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shared.cli import main
from tests.conftest import ROOT


def git_checkout(root: Path, files: list[str]) -> Path:
    """A git repository with ``files`` tracked (added; no commit needed) and one untracked."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    subprocess.run(["git", "-C", str(root), "add", *files], check=True)
    (root / "scratch" / "notes.py").parent.mkdir(exist_ok=True)
    (root / "scratch" / "notes.py").write_text("untracked\n")
    return root


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    status = main([*args, "--json"])
    out = capsys.readouterr().out
    return status, json.loads(out) if out.strip() else None


def test_a_git_checkout_indexes_its_tracked_files(
    store: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--repo DIR indexes `git ls-files` (not untracked files) under the folder's name."""
    repo = git_checkout(
        tmp_path / "signage", ["app/main.py", "app/services/deploy.py", "README.md"]
    )

    status, result = run_json(["index-code", "--repo", str(repo)], capsys)

    assert status == 0
    assert result == {"repo": "signage", "indexed": 3, "skipped": []}
    found = store.code.lookup(["services/deploy.py", "scratch/notes.py"]).found
    assert found == {"services/deploy.py"}


def test_a_paths_file_is_named_after_its_stem(
    store: Any, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--paths-file FILE: one path per line; the repo is the file's stem unless named."""
    status, result = run_json(
        ["index-code", "--paths-file", str(corpus / "code-paths.txt")], capsys
    )
    assert (status, result["repo"], result["indexed"]) == (0, "code-paths", 1220)

    status, result = run_json(
        ["index-code", "--paths-file", str(corpus / "code-paths.txt"), "--repo-name", "fastapi"],
        capsys,
    )
    assert (status, result["repo"], result["indexed"]) == (0, "fastapi", 1220)


def test_the_list_replaces_unless_told_not_to(
    store: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """By default the list is the whole repository; --no-replace only adds."""
    listing = tmp_path / "svc.txt"
    listing.write_text("a/x.py\na/y.py\n")
    assert run_json(["index-code", "--paths-file", str(listing)], capsys)[1]["indexed"] == 2
    listing.write_text("a/z.py\n")
    assert (
        run_json(["index-code", "--paths-file", str(listing), "--no-replace"], capsys)[1]["indexed"]
        == 3
    )
    assert run_json(["index-code", "--paths-file", str(listing)], capsys)[1]["indexed"] == 1
    assert store.code.lookup(["a/x.py"]).found == frozenset()


def test_bad_lines_are_skipped_and_exit_1(
    store: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad path is reported by line and skipped; the others are indexed; exit status 1."""
    listing = tmp_path / "paths.txt"
    listing.write_text("src/a.py\n\n../../etc/passwd\n./src/b.py\n")

    status, result = run_json(["index-code", "--paths-file", str(listing)], capsys)

    assert status == 1
    assert result["indexed"] == 2
    assert [s["line"] for s in result["skipped"]] == [3]


@pytest.mark.parametrize(
    "args",
    [["index-code"], ["index-code", "--repo", ".", "--paths-file", "x.txt"]],
)
def test_missing_or_conflicting_options_exit_2(
    env: dict[str, str], args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Neither or both of --repo and --paths-file: argparse's usage error, exit 2."""
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    assert "usage:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["index-code", "--paths-file", "/nonexistent/paths.txt"],
        ["index-code", "--repo", "/nonexistent/dir"],
        ["index-code", "--paths-file", "{file}", "--repo-name", " "],
    ],
)
def test_unusable_inputs_exit_2(
    env: dict[str, str], tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing file or folder, or a blank repository name: exit 2 with a message."""
    listing = tmp_path / "p.txt"
    listing.write_text("a/b.py\n")
    assert main([a.replace("{file}", str(listing)) for a in args]) == 2
    assert capsys.readouterr().err.strip()


def test_a_folder_that_is_not_a_checkout_exits_2(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--repo on a plain folder says it is not a git checkout (exit 2)."""
    (tmp_path / "plain").mkdir()
    assert main(["index-code", "--repo", str(tmp_path / "plain")]) == 2
    assert "not a git checkout" in capsys.readouterr().err


def test_the_installed_command(env: dict[str, str], tmp_path: Path) -> None:
    """`python -m shared index-code` in a real process: exit codes and the human line."""
    listing = tmp_path / "svc.txt"
    listing.write_text("a/x.py\n")
    ok = subprocess.run(
        [sys.executable, "-m", "shared", "index-code", "--paths-file", str(listing)],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        check=False,
    )
    usage = subprocess.run(
        [sys.executable, "-m", "shared", "index-code"],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (ok.returncode, ok.stdout.strip()) == (
        0,
        "indexed 1 paths of 'svc' (replaced the index)",
    )
    assert usage.returncode == 2
