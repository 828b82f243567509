"""Firestore's saved lexical-index snapshot: parts of under 1 MiB, then a head naming them.

A save writes the parts under a fresh id (``index_snapshot_parts/<id>-<n>``), then points
the head (``index_snapshot/lexical``) at them in one write, so a reader sees the old
snapshot or the new one, never a mix; it then deletes the parts of the snapshot before
the one it replaced (a reader that loaded the head just before still finds its parts).
A part missing all the same makes the load answer None: the caller reads everything, and
so does a head or a part of the wrong shape (damage of any kind counts as no snapshot).
"""

from __future__ import annotations

import uuid
from typing import Any

from google.api_core import exceptions as gexc

from shared.records import StoredSnapshot
from shared.store.firestore.db import Database

HEAD = "index_snapshot"
PARTS = "index_snapshot_parts"
HEAD_ID = "lexical"
PART_BYTES = 900_000  # a document holds at most 1 MiB, field names and keys included
LOAD_PARTS = 16  # parts a read asks for at once (~14 MB)
MAX_PARTS = 1_000  # ~900 MB: far past any index; a damaged count asks for no more reads


class Snapshots:
    def __init__(self, db: Database) -> None:
        self._db = db

    def _part(self, snapshot_id: str, n: int) -> Any:
        return self._db.collection(PARTS).document(f"{snapshot_id}-{n}")

    def load(self) -> StoredSnapshot | None:
        with self._db.guard("reading the index snapshot"):
            head = self._db.collection(HEAD).document(HEAD_ID).get(**self._db.options)
            data = head.to_dict() if head.exists else None
            if not data:
                return None
            snapshot_id, parts, cursor = data.get("id"), data.get("parts"), data.get("cursor")
            if not (
                isinstance(snapshot_id, str)
                and isinstance(cursor, str)
                and type(parts) is int
                and 0 < parts <= MAX_PARTS
            ):
                return None
            # Read in order, a few parts at a time, into one buffer: the payload is held
            # once (joining every part at the end held it twice: ~0.4 GB more at 100,000
            # pages, docs/scale.md "Memory").
            payload = bytearray()
            for first in range(0, parts, LOAD_PARTS):
                refs = [
                    self._part(snapshot_id, n) for n in range(first, min(parts, first + LOAD_PARTS))
                ]
                found = {
                    doc.id: (doc.to_dict() or {}).get("bytes")
                    for doc in self._db.client().get_all(refs, **self._db.stream_options)
                    if doc.exists
                }
                for ref in refs:
                    piece = found.pop(ref.id, None)
                    if not isinstance(piece, bytes):
                        return None
                    payload += piece
        return StoredSnapshot(cursor, payload)

    def save(self, snapshot: StoredSnapshot) -> None:
        snapshot_id = uuid.uuid4().hex[:12]
        pieces = [
            snapshot.payload[i : i + PART_BYTES]
            for i in range(0, len(snapshot.payload), PART_BYTES)
        ]
        head_ref = self._db.collection(HEAD).document(HEAD_ID)
        with self._db.guard("saving the index snapshot"):
            for n, piece in enumerate(pieces):  # one part a commit: the emulator's cap is 4 MiB
                self._part(snapshot_id, n).set({"bytes": piece}, **self._db.options)
            old = head_ref.get(**self._db.options)
            old_data = (old.to_dict() or {}) if old.exists else {}
            head_ref.set(
                {
                    "id": snapshot_id,
                    "parts": len(pieces),
                    "cursor": snapshot.cursor,
                    "previous": old_data.get("id"),
                    "previous_parts": old_data.get("parts", 0),
                },
                **self._db.options,
            )
        stale_id, stale_parts = old_data.get("previous"), int(old_data.get("previous_parts") or 0)
        if stale_id:
            try:
                for n in range(stale_parts):
                    self._part(str(stale_id), n).delete(**self._db.options)
            except gexc.GoogleAPIError:
                pass  # orphaned parts: never read again, removed by no one but harmless
