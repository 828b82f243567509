"""Turning a page into its searchable chunks, re-embedding only text that changed.

A page splits into at most ``MAX_CHUNKS`` chunks (the contract's cap); past that it is
refused before anything is embedded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from shared.errors import PayloadTooLarge
from shared.ports import Embedder
from shared.records import Chunk, Vector
from shared.retrieval.chunking import split_markdown
from shared.schema import Page

# Each chunk is one embedding and one stored row (one document on Firestore): 2,000 is
# above what a 512 KiB page of real prose makes (~1,300; the corpus's longest page: 74)
# and bounds what one write costs.
MAX_CHUNKS = 2000


def embedding_text(title: str, heading: str, text: str) -> str:
    """What is embedded for a chunk: its place in the page, then its text."""
    context = title if heading in ("", title) else f"{title} › {heading}"
    return f"{context}\n\n{text}"


def embedding_texts(title: str, content: str) -> list[str]:
    """What each chunk of a page with this title and content embeds, in order."""
    return [embedding_text(title, p.heading, p.text) for p in split_markdown(title, content)]


def chunk_hash(embedder: str, text: str) -> str:
    return hashlib.sha256(f"{embedder}\0{text}".encode()).hexdigest()[:32]


def build_chunks(page: Page, embedder: Embedder, previous: Mapping[str, Vector]) -> list[Chunk]:
    """The page's chunks with vectors; vectors in ``previous`` (by hash) are reused."""
    title = page.front_matter.title
    pieces = split_markdown(title, page.content)
    if len(pieces) > MAX_CHUNKS:
        raise PayloadTooLarge(
            f"the content splits into {len(pieces)} chunks, more than the {MAX_CHUNKS} a page "
            "may have: split the page, or join its shortest sections",
            field="content",
        )
    texts = [embedding_text(title, p.heading, p.text) for p in pieces]
    hashes = [chunk_hash(embedder.name, t) for t in texts]
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in previous}
    vectors: Sequence[Vector] = (
        list(embedder.embed_documents(list(missing.values()))) if missing else []
    )
    fresh = dict(zip(missing, vectors, strict=True))
    return [
        Chunk(
            slug=page.slug,
            ordinal=i,
            heading=piece.heading,
            text=piece.text,
            hash=hashes[i],
            vector=previous[hashes[i]] if hashes[i] in previous else fresh[hashes[i]],
            embedder=embedder.name,
        )
        for i, piece in enumerate(pieces)
    ]
