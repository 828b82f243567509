"""Output paths: a slug or a file name can never lead a write outside the site root."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.site import paths

ESCAPES = [
    "../evil",
    "..",
    "a/../../b",
    "/etc/passwd",
    "a/b",
    "a\\..\\b",
    "",
    ".",
    "concept—x\x00",
    "C:evil",
    "a\nb",
    "concept—caché",
]


@pytest.mark.parametrize("slug", ESCAPES)
def test_page_path_refuses_slugs_that_are_not_slugs(slug: str) -> None:
    """Separators, dot segments, absolute paths and NUL are refused, not rewritten."""
    with pytest.raises(paths.UnsafePath):
        paths.page_path(slug)


@pytest.mark.parametrize(
    "relative", ["../x", "a/../../x", "/abs", "a//b", "a/./b", "a\\b", "", "x\x00", "a/.."]
)
def test_safe_relative_refuses_escapes(relative: str) -> None:
    """A relative output path with '..', '.', empty parts, backslashes or NUL is refused."""
    with pytest.raises(paths.UnsafePath):
        paths.safe_relative(relative)


def test_inside_refuses_a_symlink_that_leads_out(tmp_path: Path) -> None:
    """Even a plain name is refused when a link under the root points outside it."""
    root = tmp_path / "site"
    root.mkdir()
    (root / "trap").symlink_to(tmp_path)
    with pytest.raises(paths.UnsafePath):
        paths.inside(root, "trap/index.html")


def test_page_paths_of_valid_slugs() -> None:
    """A valid slug (em dash included) lives at <slug>/index.html."""
    assert paths.page_path("concept—cache-x") == "concept—cache-x/index.html"
    assert paths.page_path("guide—a_b-2") == "guide—a_b-2/index.html"
    assert paths.page_href("../", "guide—a") == "../guide%E2%80%94a/index.html"


# Mostly slug characters plus every character that matters to a path, so both branches run.
SLUGGISH = st.one_of(
    st.text(alphabet=st.sampled_from(list("az09-_—./\\:\x00 ")), max_size=20), st.text(max_size=60)
)


@given(SLUGGISH)
def test_any_text_either_refused_or_inside_the_root(slug: str) -> None:
    """Property: whatever the slug, page_path refuses it or joins to a file under the root."""
    root = Path("/srv/site")
    try:
        relative = paths.page_path(slug)
    except paths.UnsafePath:
        return
    joined = (root / relative).resolve()
    assert joined.is_relative_to(root)
    assert joined.parent.parent == root
