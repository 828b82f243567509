"""A lexical index as bytes, so a cold instance loads it instead of reading every chunk.

The payload holds each live chunk's row (the passages a lexical hit shows), as compressed
JSON, and the postings as arrays (one vocabulary, offsets into one array of chunk numbers
and one of term frequencies): loading it tokenizes nothing and builds no dictionary per
chunk. An ``.npz`` container read with ``allow_pickle=False``. Pure: where the bytes are
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

FORMAT = 2


def encode(index: LexicalIndex) -> bytes:
    rows, postings, lengths = index.parts()
    vocabulary = list(postings)
    sizes = np.fromiter((len(postings[t][0]) for t in vocabulary), dtype=np.int64)
    offsets = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes)])
    empty_i, empty_f = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32)
    docs = np.concatenate([postings[t][0] for t in vocabulary] or [empty_i]).astype(np.int32)
    tf = np.concatenate([postings[t][1] for t in vocabulary] or [empty_f]).astype(np.float32)
    meta = {
        "format": FORMAT,
        "rows": [
            [r.slug, r.ordinal, r.title, r.heading, r.text, r.page_type, r.category, list(r.tags)]
            for r in rows
        ],
        "vocabulary": vocabulary,
    }
    packed = np.frombuffer(zlib.compress(json.dumps(meta).encode(), 6), dtype=np.uint8)
    out = io.BytesIO()
    np.savez_compressed(
        out, meta=packed, offsets=offsets, docs=docs, tf=tf, lengths=lengths.astype(np.float32)
    )
    return out.getvalue()


def decode(payload: bytes) -> LexicalIndex | None:
    """The index the payload holds; None for a payload of another format or damaged."""
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
            meta: dict[str, Any] = json.loads(zlib.decompress(arrays["meta"].tobytes()))
            offsets, docs = arrays["offsets"], arrays["docs"].astype(np.int32)
            tf, lengths = arrays["tf"], arrays["lengths"]
        if meta.get("format") != FORMAT:
            return None
        rows = [
            IndexedChunk(
                slug=str(r[0]),
                ordinal=int(r[1]),
                title=str(r[2]),
                heading=str(r[3]),
                text=str(r[4]),
                page_type=r[5],
                category=r[6],
                tags=tuple(str(t) for t in r[7]),
            )
            for r in meta["rows"]
        ]
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
