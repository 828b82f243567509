"""A lexical index as bytes, so a cold instance loads it instead of reading every chunk.

The payload is the index's packed form (``lexical.Packed``): the page table and the
heading table as columns of text joined by a separator (JSON when a value holds one),
every per-chunk column and the postings as arrays. No chunk text: the index does not hold
it. Loading tokenizes nothing and builds no object per chunk. An ``.npz`` container, read
with ``allow_pickle=False``. Pure: where the bytes are kept is the store's business.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from typing import Any

import numpy as np

from shared.retrieval.lexical import LexicalIndex, Packed, PageFields

FORMAT = 4
_ROW, _TAG = "\x00", "\x1f"  # between rows of a column, between the tags of one row
_ARRAYS = {
    "page_of": np.int32,
    "ordinal": np.int32,
    "heading": np.int32,
    "chars": np.int32,
    "digest": np.uint32,
    "lengths": np.float32,
    "offsets": np.int64,
    "docs": np.int32,
    "tf": np.uint16,
}


def encode(index: LexicalIndex) -> bytes:
    packed = index.packed()
    pages = packed.pages
    texts = {
        "slug": [p.slug for p in pages],
        "title": [p.title for p in pages],
        "page_type": [p.page_type or "" for p in pages],
        "category": [p.category or "" for p in pages],
        "tags": [_TAG.join(p.tags) for p in pages],
        "headings": packed.headings,
        "vocabulary": packed.vocabulary,
    }
    meta: dict[str, Any] = {"format": FORMAT}
    if any(_TAG in t for p in pages for t in p.tags):
        meta["tags"] = [list(p.tags) for p in pages]
        texts["tags"] = []
    named: dict[str, Any] = {}
    for name, values in texts.items():
        if any(_ROW in v for v in values):
            meta[name] = values  # a separator inside a value: this column goes as JSON
        else:
            named[name] = _bytes(_ROW.join(values).encode())
    meta["counts"] = {"pages": len(pages), "headings": len(packed.headings)}
    named["meta"] = _bytes(json.dumps(meta).encode())
    named["nulls"] = np.array([[p.page_type is None, p.category is None] for p in pages], bool)
    for name, dtype in _ARRAYS.items():
        named[name] = np.asarray(getattr(packed, name), dtype=dtype)
    out = io.BytesIO()
    np.savez_compressed(out, **named)
    return out.getvalue()


def _bytes(data: bytes) -> np.ndarray[Any, np.dtype[np.uint8]]:
    return np.frombuffer(data, dtype=np.uint8)


def decode(payload: bytes) -> LexicalIndex | None:
    """The index the payload holds; None for a payload of another format or damaged."""
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
            meta: dict[str, Any] = json.loads(arrays["meta"].tobytes())
            if meta.get("format") != FORMAT:
                return None
            counts = meta["counts"]
            columns = {
                name: _column(meta, arrays, name, size)
                for name, size in (
                    ("slug", counts["pages"]),
                    ("title", counts["pages"]),
                    ("page_type", counts["pages"]),
                    ("category", counts["pages"]),
                    ("headings", counts["headings"]),
                    ("vocabulary", None),
                )
            }
            tags = (
                [tuple(t) for t in meta["tags"]]
                if "tags" in meta
                else [
                    tuple(t.split(_TAG)) if t else ()
                    for t in _column(meta, arrays, "tags", counts["pages"])
                ]
            )
            nulls = arrays["nulls"].reshape(-1, 2).tolist()
            packed = Packed(
                pages=[
                    PageFields(slug, title, None if n[0] else kind, None if n[1] else cat, tag)
                    for slug, title, kind, cat, tag, n in zip(
                        columns["slug"],
                        columns["title"],
                        columns["page_type"],
                        columns["category"],
                        tags,
                        nulls,
                        strict=True,
                    )
                ],
                headings=columns["headings"],
                vocabulary=columns["vocabulary"],
                **{name: arrays[name].astype(dtype, copy=False) for name, dtype in _ARRAYS.items()},
            )
        _check(packed)
    except (zlib.error, zipfile.BadZipFile, EOFError, OSError, ValueError, LookupError, TypeError):
        return None  # any damage reads as no snapshot
    return LexicalIndex.from_packed(packed)


def _column(meta: dict[str, Any], arrays: Any, name: str, size: int | None = None) -> list[str]:
    if name in meta:
        values = [str(v) for v in meta[name]]
    else:
        text = arrays[name].tobytes().decode()
        values = text.split(_ROW) if text or size else []
    if size is not None and len(values) != size:
        raise ValueError(f"column {name} holds {len(values)} values, not {size}")
    return values


def _check(packed: Packed) -> None:
    """Raise ValueError unless the arrays agree with each other and with the tables."""
    slots = len(packed.page_of)
    if any(
        len(getattr(packed, name)) != slots
        for name in ("ordinal", "heading", "chars", "digest", "lengths")
    ):
        raise ValueError("per-chunk columns of different lengths")
    if len(packed.offsets) != len(packed.vocabulary) + 1 or len(packed.docs) != len(packed.tf):
        raise ValueError("postings do not match the vocabulary")
    if int(packed.offsets[-1]) != len(packed.docs):
        raise ValueError("postings cut short")
    if slots and (
        int(packed.page_of.max()) >= len(packed.pages)
        or int(packed.heading.max()) >= len(packed.headings)
    ):
        raise ValueError("a chunk names a page or heading the tables lack")
    if len(packed.docs) and int(packed.docs.max()) >= slots:
        raise ValueError("a posting names a chunk the index lacks")
