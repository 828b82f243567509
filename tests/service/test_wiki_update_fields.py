"""wiki_update's per-field checks, and that a refused update writes nothing."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
import pytest

from tests.service.conftest import Call


@pytest.fixture
def slug(call: Call) -> str:
    """A page to update: a guide with one tag."""
    title = f"Página {uuid.uuid4().hex[:10]}"
    status, reply = call(
        "wiki_create",
        {
            "content": "# A\n\nOriginal.",
            "front_matter": {"title": title, "type": "guide", "tags": ["t"]},
        },
    )
    assert status == 201, reply
    return str(reply["slug"])


def snapshot(store: Any, slug: str) -> tuple[Any, dict[str, bytes]]:
    """The stored page and its chunk vectors, as bytes: to prove nothing changed."""
    vectors = {
        h: np.asarray(v, dtype=np.float32).tobytes()
        for h, v in store.chunks.vectors_for(slug).items()
    }
    return store.pages.get(slug), vectors


@pytest.mark.parametrize("bad", [0, -1, "1", 1.5, True, [1]], ids=repr)
def test_a_bad_expected_version_is_a_400(call: Call, slug: str, bad: object) -> None:
    """expected_version must be a positive integer (a boolean is not one)."""
    status, reply = call("wiki_update", {"slug": slug, "content": "x", "expected_version": bad})
    assert (status, reply["field"]) == (400, "expected_version")


@pytest.mark.parametrize("key", ["slug", "author", "content", "Title"])
def test_unknown_update_metadata_keys_are_a_400_at_their_path(
    call: Call, slug: str, key: str
) -> None:
    """A key outside the front matter in update_metadata is a 400 at update_metadata.<key>."""
    status, reply = call("wiki_update", {"slug": slug, "update_metadata": {key: "x"}})
    assert (status, reply["field"]) == (400, f"update_metadata.{key}")


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"sources": ["a.py", "", {"type": "doc"}]}, "update_metadata.sources[2]"),
        ({"sources": {"ref": "a"}}, "update_metadata.sources"),
        ({"related": ["ok", True]}, "update_metadata.related[1]"),
        ({"type": "post"}, "update_metadata.type"),
        ({"title": ""}, "update_metadata.title"),
        ({"status": "published"}, "update_metadata.status"),
    ],
)
def test_update_errors_name_update_metadata_paths(
    call: Call, slug: str, metadata: dict[str, Any], field: str
) -> None:
    """Normalization errors on update say update_metadata.sources[i] / related[i] / type."""
    status, reply = call("wiki_update", {"slug": slug, "update_metadata": metadata})
    assert (status, reply["field"]) == (400, field)


MINE = "<the page's slug>"


@pytest.mark.parametrize(
    ("sent", "field"),
    [
        ({"content": "x"}, "slug"),
        ({"slug": "No Vale", "content": "x"}, "slug"),
        ({"slug": 5}, "slug"),
        ({"slug": MINE, "update_metadata": ["tags"]}, "update_metadata"),
        ({"slug": MINE, "content": 3}, "content"),
        ({"slug": MINE, "front_matter": {}}, "front_matter"),
    ],
)
def test_malformed_update_bodies_are_400s(
    call: Call, slug: str, sent: dict[str, Any], field: str
) -> None:
    """slug is required and must be a valid slug; update_metadata an object; no other keys."""
    sent = {k: slug if v == MINE else v for k, v in sent.items()}
    status, reply = call("wiki_update", sent)
    assert (status, reply["field"]) == (400, field)


def test_content_over_512_kib_on_update_is_a_413(call: Call, slug: str) -> None:
    """The 512 KiB content limit holds on update too."""
    status, reply = call("wiki_update", {"slug": slug, "content": "a" * (512 * 1024 + 1)})
    assert (status, reply["field"]) == (413, "content")


def test_an_invalid_update_leaves_page_and_chunks_byte_identical(
    call: Call, store: Any, slug: str
) -> None:
    """A refused update (bad metadata with new content, stale version, too big) writes nothing."""
    before = snapshot(store, slug)
    refused = [
        {"content": "# B\n\nNuevo.", "update_metadata": {"sources": ["a.py", True]}},
        {"content": "# B\n\nNuevo.", "update_metadata": {"nope": 1}},
        {"content": "# B\n\nNuevo.", "expected_version": 7},
        {"content": "# B\n\nNuevo.", "update_metadata": {"type": "blog"}},
        {"content": "ñ" * (256 * 1024 + 1)},
    ]
    for sent in refused:
        assert call("wiki_update", {"slug": slug, **sent})[0] in (400, 409, 413)
    assert snapshot(store, slug) == before
