"""What ``duplicates`` keeps between runs, on Firestore (``DuplicateIndex``).

``dedup_signatures/{slug}`` holds a page's encoded signature and its band keys as an
array, so the candidates of a changed page are ``array_contains_any`` queries (30 keys
each) that read only the documents that match: a run after one page changed reads a
number of documents set by that page and its near pages, not by the wiki's size.
``dedup_findings/{a|b|kind}``, ``dedup_dismissed/{a|b}`` and ``dedup_state/cursor``
hold the pairs found, the pairs dismissed and the change-log cursor.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import Any

from google.cloud.firestore_v1.base_query import FieldFilter

from shared.clock import now
from shared.records import StoredFinding, StoredSignature
from shared.store.firestore.db import Database

SIGNATURES = "dedup_signatures"
FINDINGS = "dedup_findings"
DISMISSED = "dedup_dismissed"
STATE = "dedup_state"
_ANY = 30  # values an ``array_contains_any`` / ``in`` filter takes
_BATCH = 400  # writes per commit (Firestore takes 500)
_GET = 300  # documents per batched get


def _parts(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


class FirestoreDuplicates:
    """``DuplicateIndex`` on Firestore."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def cursor(self) -> str | None:
        with self._db.guard("reading the duplicates cursor"):
            snapshot = self._db.collection(STATE).document("cursor").get(**self._db.options)
        data = snapshot.to_dict() if snapshot.exists else None
        return str(data["cursor"]) if data and data.get("cursor") else None

    def signatures(self, slugs: Collection[str] | None) -> list[StoredSignature]:
        collection = self._db.collection(SIGNATURES)
        with self._db.guard("reading duplicate signatures"):
            if slugs is None:
                snapshots: list[Any] = list(
                    collection.select(["data"]).stream(**self._db.stream_options)
                )
            else:
                snapshots = []
                client = self._db.client()
                for part in _parts(sorted(set(slugs)), _GET):
                    refs = [collection.document(slug) for slug in part]
                    snapshots.extend(client.get_all(refs, field_paths=["data"], **self._db.options))
        out = [
            StoredSignature(s.id, (), bytes((s.to_dict() or {})["data"]))
            for s in snapshots
            if s.exists and "data" in (s.to_dict() or {})
        ]
        return sorted(out, key=lambda s: s.slug)

    def sharing(self, bands: Collection[str]) -> set[str]:
        found: set[str] = set()
        collection = self._db.collection(SIGNATURES)
        with self._db.guard("looking up duplicate candidates"):
            for part in _parts(sorted(set(bands)), _ANY):
                query = collection.where(
                    filter=FieldFilter("bands", "array_contains_any", part)
                ).select([])
                found |= {s.id for s in query.stream(**self._db.options)}
        return found

    def findings(self) -> list[StoredFinding]:
        with self._db.guard("reading duplicate findings"):
            snapshots = list(self._db.collection(FINDINGS).stream(**self._db.stream_options))
        out = []
        for snapshot in snapshots:
            data = snapshot.to_dict() or {}
            out.append(StoredFinding(data["a"], data["b"], data["kind"], bytes(data["data"])))
        return sorted(out, key=lambda f: f.key)

    def save(
        self,
        *,
        signatures: Sequence[StoredSignature],
        removed: Collection[str],
        findings: Sequence[StoredFinding],
        touched: Collection[str] | None,
        cursor: str,
    ) -> None:
        client = self._db.client()
        ops: list[tuple[str, Any, dict[str, Any] | None]] = []
        for slug in sorted(set(removed)):
            ops.append(("delete", self._db.collection(SIGNATURES).document(slug), None))
        for s in signatures:
            ref = self._db.collection(SIGNATURES).document(s.slug)
            ops.append(("set", ref, {"bands": list(s.bands), "data": s.data}))
        with self._db.guard("reading duplicate findings to replace"):
            stale = self._stale_findings(touched)
        for ref in stale:
            ops.append(("delete", ref, None))
        for f in findings:
            ref = self._db.collection(FINDINGS).document(f.key)
            ops.append(("set", ref, {"a": f.a, "b": f.b, "kind": f.kind, "data": f.data}))
        with self._db.guard("saving duplicate signatures"):
            for start in range(0, len(ops), _BATCH):
                batch = client.batch()
                for op, ref, data in ops[start : start + _BATCH]:
                    if op == "delete":
                        batch.delete(ref)
                    else:
                        batch.set(ref, data)
                batch.commit(**self._db.options)
            # The cursor last: a run that failed halfway is done again from the old one.
            self._db.collection(STATE).document("cursor").set(
                {"cursor": cursor, "at": now()}, **self._db.options
            )

    def _stale_findings(self, touched: Collection[str] | None) -> list[Any]:
        collection = self._db.collection(FINDINGS)
        if touched is None:
            return [s.reference for s in collection.select([]).stream(**self._db.stream_options)]
        refs: dict[str, Any] = {}
        for part in _parts(sorted(set(touched)), _ANY):
            for side in ("a", "b"):
                query = collection.where(filter=FieldFilter(side, "in", part)).select([])
                refs.update({s.id: s.reference for s in query.stream(**self._db.options)})
        return list(refs.values())

    def dismiss(self, a: str, b: str, *, by: str, reason: str | None) -> None:
        a, b = sorted((a, b))
        with self._db.guard("remembering a dismissed pair"):
            self._db.collection(DISMISSED).document(f"{a}|{b}").set(
                {"a": a, "b": b, "by": by, "reason": reason, "at": now()}, **self._db.options
            )

    def dismissed(self) -> set[tuple[str, str]]:
        with self._db.guard("reading dismissed pairs"):
            snapshots = list(self._db.collection(DISMISSED).stream(**self._db.stream_options))
        return {(str(d["a"]), str(d["b"])) for s in snapshots if (d := s.to_dict())}
