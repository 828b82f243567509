"""A lexical index as bytes, so a cold instance loads it instead of reading every chunk.

The payload holds each chunk's row (the passages a lexical hit shows) and its tokens
(tokenizing is most of an index's build time), as compressed JSON: at 1,000 pages,
15,898 chunks, about 2 MB. Pure: where the bytes are kept is the store's business.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from shared.ports import IndexedChunk
from shared.retrieval.lexical import LexicalIndex

FORMAT = 1


def encode(index: LexicalIndex) -> bytes:
    rows = [
        [r.slug, r.ordinal, r.title, r.heading, r.text, r.page_type, r.category, list(r.tags)]
        for r in index.rows
    ]
    tokens = [index.documents[(r.text, r.title, r.heading)] for r in index.rows]
    body = json.dumps({"format": FORMAT, "rows": rows, "tokens": tokens}, ensure_ascii=False)
    return zlib.compress(body.encode(), 6)


def decode(payload: bytes) -> LexicalIndex | None:
    """The index the payload holds; None for a payload of another format or damaged."""
    try:
        data: dict[str, Any] = json.loads(zlib.decompress(payload))
        if data.get("format") != FORMAT:
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
            for r in data["rows"]
        ]
        known = {
            (r.text, r.title, r.heading): [str(t) for t in doc]
            for r, doc in zip(rows, data["tokens"], strict=True)
        }
    except (zlib.error, ValueError, KeyError, TypeError, IndexError):
        return None
    return LexicalIndex(rows, known=known)
