"""A lexical index as bytes, so a cold instance loads it instead of reading every chunk.

The payload holds each live chunk's row (the passages a lexical hit shows), one column
per field joined by a separator (JSON when a value holds one), and the postings as arrays
(one vocabulary, offsets into one array of chunk numbers and one of term frequencies):
loading it tokenizes nothing and parses no JSON per chunk. An ``.npz`` container, read
with ``allow_pickle=False``. Pure: where the bytes are
kept is the store's business.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from typing import Any

import numpy as np

from shared.ports import IndexedChunk
from shared.retrieval.lexical import LexicalIndex

FORMAT = 3
_ROW, _TAG = "\x00", "\x1f"  # between rows of a column, between the tags of one row
_TEXT_COLUMNS = ("slug", "title", "heading", "text", "page_type", "category")


def encode(index: LexicalIndex) -> bytes:
    rows, postings, lengths = index.parts()
    vocabulary = list(postings)
    sizes = np.fromiter((len(postings[t][0]) for t in vocabulary), dtype=np.int64)
    offsets = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes)])
    empty_i, empty_f = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32)
    docs = np.concatenate([postings[t][0] for t in vocabulary] or [empty_i]).astype(np.int32)
    tf = np.concatenate([postings[t][1] for t in vocabulary] or [empty_f]).astype(np.float32)
    meta = {"format": FORMAT, "vocabulary": vocabulary, "count": len(rows)}
    columns = _columns(rows)
    if columns is None:  # a separator inside a value: the rows go as JSON instead
        meta["rows"] = [
            [r.slug, r.ordinal, r.title, r.heading, r.text, r.page_type, r.category, list(r.tags)]
            for r in rows
        ]
        columns = {}
    named: dict[str, Any] = {name: _bytes(value.encode()) for name, value in columns.items()}
    named.update(
        meta=_bytes(json.dumps(meta).encode()),
        ordinals=np.fromiter((r.ordinal for r in rows), dtype=np.int64, count=len(rows)),
        nulls=np.array([[r.page_type is None, r.category is None] for r in rows], dtype=bool),
        offsets=offsets,
        docs=docs,
        tf=tf,
        lengths=lengths.astype(np.float32),
    )
    out = io.BytesIO()
    np.savez_compressed(out, **named)
    return out.getvalue()


def _bytes(data: bytes) -> np.ndarray[Any, np.dtype[np.uint8]]:
    return np.frombuffer(data, dtype=np.uint8)


def _columns(rows: list[IndexedChunk]) -> dict[str, str] | None:
    """Each text field of every row, joined: one string to split beats JSON by far."""
    values = {
        "slug": [r.slug for r in rows],
        "title": [r.title for r in rows],
        "heading": [r.heading for r in rows],
        "text": [r.text for r in rows],
        "page_type": [r.page_type or "" for r in rows],
        "category": [r.category or "" for r in rows],
        "tags": [_TAG.join(r.tags) for r in rows],
    }
    for name, column in values.items():
        if any(_ROW in v for v in column) or (
            name == "tags" and any(_TAG in t for r in rows for t in r.tags)
        ):
            return None
    return {name: _ROW.join(column) for name, column in values.items()}


def decode(payload: bytes) -> LexicalIndex | None:
    """The index the payload holds; None for a payload of another format or damaged."""
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
            meta: dict[str, Any] = json.loads(arrays["meta"].tobytes())
            if meta.get("format") != FORMAT:
                return None
            offsets, docs = arrays["offsets"], arrays["docs"].astype(np.int32)
            tf, lengths = arrays["tf"], arrays["lengths"]
            rows = _rows(meta, arrays)
        vocabulary = [str(t) for t in meta["vocabulary"]]
        if len(offsets) != len(vocabulary) + 1 or len(lengths) != len(rows):
            return None
        postings = {
            t: (docs[offsets[i] : offsets[i + 1]], tf[offsets[i] : offsets[i + 1]])
            for i, t in enumerate(vocabulary)
        }
    except (zlib.error, zipfile.BadZipFile, EOFError, OSError, ValueError, LookupError, TypeError):
        return None  # any damage reads as no snapshot
    return LexicalIndex.from_parts(rows, postings, lengths)


def _rows(meta: dict[str, Any], arrays: Any) -> list[IndexedChunk]:
    if "rows" in meta:
        return [
            IndexedChunk(r[0], int(r[1]), r[2], r[3], r[4], r[5], r[6], tuple(r[7]))
            for r in meta["rows"]
        ]
    count = int(meta["count"])
    if count == 0:
        return []
    split = {name: arrays[name].tobytes().decode().split(_ROW) for name in (*_TEXT_COLUMNS, "tags")}
    if any(len(column) != count for column in split.values()):
        raise ValueError("columns of different lengths")
    ordinals = arrays["ordinals"].tolist()
    nulls = arrays["nulls"].tolist()
    return [
        IndexedChunk(
            slug,
            ordinal,
            title,
            heading,
            text,
            None if null[0] else page_type,
            None if null[1] else category,
            tuple(tags.split(_TAG)) if tags else (),
        )
        for slug, ordinal, title, heading, text, page_type, category, tags, null in zip(
            *(split[name] for name in _TEXT_COLUMNS[:1]),
            ordinals,
            *(split[name] for name in _TEXT_COLUMNS[1:]),
            split["tags"],
            nulls,
            strict=True,
        )
    ]
