"""Signatures and findings as the bytes the store keeps, and back (pure).

Compact JSON: MinHash values and vectors as base64 of their arrays (a vector as float16,
enough for a cosine to two decimals), so a signature of a 512-dimension page is ~2 KB.
Each carries the ``FORMAT`` of the rule that signed it: a signature of an older rule reads
as absent, so it is signed again rather than compared with unlike ones.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.dedup.compare import Finding
from shared.dedup.signature import Section, Signature
from shared.records import StoredFinding, StoredSignature

# The signing rule's number: raise it whenever ``signature_of`` would sign a stored page
# differently (2: a page's words are its sections', its opening without the title; 3:
# words read without a Markdown parse; 4: the page's and each section's length in words;
# 5: ``key: value`` claims only from configuration fences).
FORMAT = 5


def stored_cursor(cursor: str) -> str:
    """The change-log cursor a run keeps, with the rule it signed by: a run after an
    upgrade that changed the rule signs every page again, changed or not."""
    return f"f{FORMAT}:{cursor}"


def change_cursor(stored: str | None) -> str | None:
    """The change-log cursor ``stored`` holds, or None when an older rule kept it."""
    prefix = f"f{FORMAT}:"
    return stored[len(prefix) :] if stored and stored.startswith(prefix) else None


def _b64(array: npt.NDArray[Any]) -> str:
    return base64.b64encode(array.tobytes()).decode()


def _u32(text: str) -> npt.NDArray[np.uint32]:
    return np.frombuffer(base64.b64decode(text), dtype=np.uint32).copy()


def stored_signature(signature: Signature) -> StoredSignature:
    data = {
        "format": FORMAT,
        "slug": signature.slug,
        "version": signature.version,
        "title": signature.title,
        "lang": signature.lang,
        "status": signature.status,
        "minhash": _b64(signature.minhash),
        "sections": [
            {"heading": s.heading, "text": s.text, "minhash": _b64(s.minhash), "words": s.words}
            for s in signature.sections
        ],
        "vector": None if signature.vector is None else _b64(signature.vector.astype(np.float16)),
        "claims": {ref: list(values) for ref, values in signature.claims.items()},
        "opening": signature.opening,
        "words": signature.words,
    }
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    return StoredSignature(signature.slug, tuple(signature.bands()), raw)


def signature_from(stored: StoredSignature) -> Signature | None:
    """The signature ``stored`` holds, or None when an older rule (``FORMAT``) signed it."""
    data = json.loads(stored.data)
    if data.get("format") != FORMAT:
        return None
    vector = None
    if data.get("vector"):
        half = np.frombuffer(base64.b64decode(data["vector"]), dtype=np.float16)
        vector = half.astype(np.float32)
    return Signature(
        slug=str(data["slug"]),
        version=int(data["version"]),
        title=str(data["title"]),
        lang=str(data["lang"]),
        status=str(data["status"]),
        minhash=_u32(data["minhash"]),
        sections=tuple(
            Section(str(s["heading"]), str(s["text"]), _u32(s["minhash"]), int(s["words"]))
            for s in data.get("sections") or []
        ),
        vector=vector,
        claims={str(k): tuple(str(v) for v in vs) for k, vs in (data.get("claims") or {}).items()},
        opening=str(data.get("opening") or ""),
        words=int(data["words"]),
    )


def stored_finding(
    finding: Finding, pages: list[dict[str, str]], note: str | None
) -> StoredFinding:
    """``pages``: each page's slug, title, lang and status as the run saw them."""
    data = {
        "kind": finding.kind,
        "score": finding.score,
        "pages": pages,
        "passages": [
            {"slug": p.slug, "heading": p.heading, "text": p.text} for p in finding.passages
        ],
        "note": note,
    }
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    return StoredFinding(finding.a, finding.b, finding.kind, raw)


def finding_data(stored: StoredFinding) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(stored.data)
    return data
