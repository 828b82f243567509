"""A damaged index snapshot, of whatever kind, decodes as no snapshot, inflating nothing."""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from shared.records import IndexedChunk
from shared.retrieval import snapshot
from shared.retrieval.lexical import LexicalIndex

MIB = 1024 * 1024


def chunk(slug: str, ordinal: int, text: str) -> IndexedChunk:
    return IndexedChunk(slug, ordinal, slug.title(), "Uso", text, "guide", None, ("a", "b"))


def good() -> bytes:
    index = LexicalIndex(
        [
            chunk("uno", 0, "Los certificados se rotan cada mes."),
            chunk("uno", 1, "Certificates are rotated monthly."),
            chunk("dos", 0, "La caché se invalida al escribir."),
        ]
    )
    return snapshot.encode(index)


def members(payload: bytes) -> dict[str, Any]:
    with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
        return {name: arrays[name] for name in arrays.files}


def repack(arrays: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    return out.getvalue()


def with_meta(change: Callable[[dict[str, Any]], Any]) -> bytes:
    arrays = members(good())
    meta = json.loads(arrays["meta"].tobytes())
    meta = change(meta)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    return repack(arrays)


def with_member(name: str, data: bytes) -> bytes:
    """The good payload with member ``name`` (``tf.npy``…) replaced by raw ``data``."""
    source = zipfile.ZipFile(io.BytesIO(good()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info.filename, data if info.filename == name else source.read(info))
    return out.getvalue()


def npy_header(shape: tuple[int, ...], dtype: str) -> bytes:
    out = io.BytesIO()
    header = {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(out, header)
    return np.lib.format.magic(1, 0) + out.getvalue()


def test_the_good_payload_decodes() -> None:
    """The baseline the damaged ones are made from."""
    assert snapshot.decode(good()) is not None


DAMAGE: dict[str, Callable[[], bytes]] = {
    "meta-is-a-list": lambda: with_meta(lambda m: [m]),
    "meta-is-a-number": lambda: with_meta(lambda m: 4),
    "no-format": lambda: with_meta(lambda m: {k: v for k, v in m.items() if k != "format"}),
    "no-counts": lambda: with_meta(lambda m: {k: v for k, v in m.items() if k != "counts"}),
    "counts-a-list": lambda: with_meta(lambda m: {**m, "counts": [3, 3]}),
    "count-a-string": lambda: with_meta(lambda m: {**m, "counts": {"pages": "2", "headings": 1}}),
    "count-negative": lambda: with_meta(lambda m: {**m, "counts": {"pages": -1, "headings": 1}}),
    "column-a-number": lambda: with_meta(lambda m: {**m, "title": 7}),
    "column-of-numbers": lambda: with_meta(lambda m: {**m, "slug": [1, 2]}),
    "tags-not-lists": lambda: with_meta(lambda m: {**m, "tags": ["a", "b"]}),
    "meta-not-json": lambda: with_member("meta.npy", npy_header((3,), "|u1") + b"{x}"),
    "negative-posting": lambda: repack({**members(good()), "docs": -members(good())["docs"] - 1}),
    "offsets-backwards": lambda: repack(
        {**members(good()), "offsets": members(good())["offsets"][::-1].copy()}
    ),
    "not-a-zip": lambda: b"PK\x03\x04 not really",
    "truncated": lambda: good()[: len(good()) // 2],
    "object-array": lambda: with_member("tf.npy", npy_header((1,), "|O") + b"\x00" * 8),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_each_kind_of_damage_is_no_snapshot(kind: str) -> None:
    """meta of the wrong structure or types, rows out of range, a broken archive: None."""
    assert snapshot.decode(DAMAGE[kind]()) is None


def peak_while(action: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_member_that_inflates_far_past_the_payload_is_not_inflated() -> None:
    """64 MiB of zeros deflate to ~64 KB (1,000x; an honest snapshot inflates under 4x):
    refused from the sizes the archive declares, before inflating it."""
    zeros = np.zeros(32 * MIB, dtype=np.uint16)
    raw = io.BytesIO()
    np.lib.format.write_array(raw, zeros)
    bomb = with_member("tf.npy", raw.getvalue())
    assert len(bomb) < MIB
    assert snapshot.decode(bomb) is None
    assert peak_while(lambda: snapshot.decode(bomb)) < 8 * MIB


def test_a_header_claiming_6_gib_allocates_nothing() -> None:
    """A member whose array header names 6 GiB but holds a few bytes: refused at the header
    (numpy would allocate the whole array before finding the data short)."""
    lie = with_member("tf.npy", npy_header((3 * 1024 * MIB,), "<u2") + b"\x00" * 64)
    assert snapshot.decode(lie) is None
    assert peak_while(lambda: snapshot.decode(lie)) < 8 * MIB
