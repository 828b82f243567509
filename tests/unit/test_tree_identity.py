"""The name a docs tree is known by: its repository's remote and path, never a folder name."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.services.tree_identity import normalized, tree_name
from tests.fixtures.files import write


def checkout(root: Path, url: str | None) -> Path:
    """A checkout's ``.git/config`` as git writes it (one remote, or none)."""
    config = '[core]\n\tbare = false\n[branch "main"]\n\tremote = origin\n'
    if url:
        config += (
            f'[remote "origin"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        )
    write(root, ".git/config", config)
    return root


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://github.com/org/website.git", "github.com/org/website"),
        ("https://ci:ghp_secret@GitHub.com/org/website/", "github.com/org/website"),
        ("git@github.com:org/website.git", "github.com/org/website"),
        ("ssh://git@gitlab.example:2222/g/docs.git", "gitlab.example:2222/g/docs"),
    ],
)
def test_a_remote_is_host_and_path_without_credentials(url: str, name: str) -> None:
    """Every spelling of one remote is one name, and a token in the URL is never kept."""
    assert normalized(url) == name


def test_two_checkouts_named_alike_are_two_trees(tmp_path: Path) -> None:
    """``a/website/docs`` and ``b/website/docs`` of two remotes: two names."""
    one = checkout(tmp_path / "a" / "website", "git@github.com:org/site-a.git")
    other = checkout(tmp_path / "b" / "website", "https://github.com/org/site-b")
    (one / "docs").mkdir()
    (other / "docs").mkdir()
    assert tree_name(one / "docs") == "github.com/org/site-a/docs"
    assert tree_name(other / "docs") == "github.com/org/site-b/docs"
    assert tree_name(one) == "github.com/org/site-a"


def test_without_a_remote_the_path_in_the_repository_names_it(tmp_path: Path) -> None:
    """The same from any clone folder: ``docs/es``, not the checkout's folder name."""
    root = checkout(tmp_path / "clon-1", None)
    (root / "docs" / "es").mkdir(parents=True)
    assert tree_name(root / "docs" / "es") == "docs/es"


def test_a_worktree_reads_the_remote_of_its_main_checkout(tmp_path: Path) -> None:
    """``.git`` as a file (``gitdir: …/worktrees/x``, with ``commondir``) still names the
    repository."""
    main = checkout(tmp_path / "main", "https://github.com/org/wiki.git")
    write(main, ".git/worktrees/x/commondir", "../..\n")
    work = tmp_path / "x"
    write(work, ".git", f"gitdir: {main / '.git' / 'worktrees' / 'x'}\n")
    (work / "docs").mkdir()
    assert tree_name(work / "docs") == "github.com/org/wiki/docs"


def test_an_explicit_name_wins_and_outside_a_checkout_the_path_names_it(tmp_path: Path) -> None:
    """``--tree NAME`` is the name whatever the checkout; no checkout: the absolute path."""
    folder = tmp_path / "suelto"
    folder.mkdir()
    assert tree_name(folder, "manual") == "manual"
    assert tree_name(folder) == folder.resolve().as_posix()
