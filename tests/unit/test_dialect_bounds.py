"""What an import may read: inside its roots, symlinks resolved, never a dotfile."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shared.dialects.bounds import inside, walk
from tests.fixtures.files import write


def test_a_file_of_the_tree_is_inside_and_comes_back_resolved(tmp_path: Path) -> None:
    """A plain file under the root is read, under its real path."""
    page = write(tmp_path / "docs", "guias/a.md", "# A")
    assert inside(page, [tmp_path / "docs"]) == page.resolve()


def test_a_link_that_leaves_the_tree_is_refused(tmp_path: Path) -> None:
    """A symlink to a file outside the root (or to /proc) is not inside, wherever it sits."""
    docs = tmp_path / "docs"
    secret = write(tmp_path, "secret.txt", "key")
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "secret.md").symlink_to(secret)
    (docs / "env.md").symlink_to("/proc/self/environ")
    assert inside(docs / "sub" / "secret.md", [docs]) is None
    assert inside(docs / "env.md", [docs]) is None


def test_a_link_that_stays_in_the_tree_is_read(tmp_path: Path) -> None:
    """A symlink between two files of the tree is as good as the file."""
    docs = tmp_path / "docs"
    target = write(docs, "real.md", "# R")
    (docs / "alias.md").symlink_to("real.md")
    assert inside(docs / "alias.md", [docs]) == target.resolve()


@pytest.mark.parametrize("name", [".env", ".git/config", "img/.hidden.png", ".well/x.png"])
def test_dotfiles_are_never_inside(tmp_path: Path, name: str) -> None:
    """A dot-named file or folder below the root is never read, even when it exists."""
    path = write(tmp_path, name, "x")
    assert inside(path, [tmp_path]) is None


def test_a_path_that_climbs_out_is_refused_even_when_it_climbs_back_to_a_dotfile(
    tmp_path: Path,
) -> None:
    """``docs/../.env`` leaves the tree as written: refused, as is ``../x.png`` next to it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    write(tmp_path, ".env", "KEY=1")
    write(tmp_path, "x.png", "png")
    assert inside(docs / ".." / ".env", [docs]) is None
    assert inside(docs / ".." / "x.png", [docs]) is None
    assert inside(docs / ".." / "x.png", [docs, tmp_path]) == (tmp_path / "x.png").resolve()


def test_a_fifo_is_no_file_to_read(tmp_path: Path) -> None:
    """A named pipe in the tree would block the import: it is not a regular file."""
    os.mkfifo(tmp_path / "pipe.md")
    assert inside(tmp_path / "pipe.md", [tmp_path]) is None


def test_walk_lists_the_tree_and_names_each_link_out_with_why(tmp_path: Path) -> None:
    """Files in order; dot folders skipped; file links out refused by name; folder links
    never entered, so a linked folder outside brings nothing in."""
    docs = tmp_path / "docs"
    write(docs, "b.md", "b")
    write(docs, "a/c.md", "c")
    write(docs, ".private/d.md", "d")
    write(tmp_path, "outside/e.md", "e")
    (docs / "linked").symlink_to(tmp_path / "outside")
    (docs / "passwd.md").symlink_to("/etc/passwd")
    files, refused = walk(docs, (".md",))
    assert [p.relative_to(docs).as_posix() for p in files] == ["a/c.md", "b.md"]
    assert [r.name for r in refused] == ["passwd.md"]
    assert "/etc/passwd" in refused[0].why
