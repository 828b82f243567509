"""The rebuild's lease and manifest in Firestore (``SiteState``).

The lease is one document written only with a precondition on what was read (created
if absent, else updated only if unchanged since the read), so two instances cannot
both take it; every call carries the store's deadlines (a transaction's begin and
commit would use the client's own, up to 60 s each, and an outage would look like
contention). The manifest can outgrow a document (1 MiB), so it is stored compressed
in parts written under a fresh generation, then published by rewriting one small head
document: a reader sees the old manifest or the new one, whole. The navigation an
import read is one compressed document (a 10,000-page nav is ~100 KB), as is what
imports said of their trees (each page's routes, the site's name).
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
import zlib
from collections.abc import Callable, Collection, Mapping
from typing import Any

from google.api_core import exceptions as gexc

from shared.json_value import JsonObject
from shared.records import Lease, StoredNav, stored_nav
from shared.store.firestore.db import Database

COLLECTION = "site_state"
PARTS = "site_manifest_parts"
LEASE = "lease"
HEAD = "manifest"
NAV = "nav"
IMPORTS = "imports"  # what imports said of their trees: routes, the site's name
ASSETS = "site_assets"
ASSET_BATCH = 8  # documents per commit: each may be near 1 MiB, a commit holds 10 MiB
PART_BYTES = 900_000  # under Firestore's 1 MiB document limit, with room for the fields
LEASE_ATTEMPTS = 5  # writes that lose to another taker before the lease counts as held


class FirestoreSiteState:
    """``SiteState`` on Firestore; ``clock`` (seconds since the epoch) dates the lease."""

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._clock = clock

    def _ref(self, name: str) -> Any:
        return self._db.collection(COLLECTION).document(name)

    def _part(self, generation: str, index: int) -> Any:
        return self._db.collection(PARTS).document(f"{generation}-{index}")

    # -- lease ------------------------------------------------------------------------

    def acquire_lease(self, owner: str, ttl_seconds: float) -> bool:
        """Take (or extend, for the same owner) the lease unless another owner holds it."""
        ref = self._ref(LEASE)
        client = self._db.client()
        with self._db.guard("taking the rebuild lease"):
            for _ in range(LEASE_ATTEMPTS):
                snapshot = ref.get(**self._db.options)
                now = self._clock()
                held = snapshot.to_dict() if snapshot.exists else None
                if held and held.get("owner") != owner and float(held.get("expires_at", 0)) > now:
                    return False
                lease = {"owner": owner, "expires_at": now + ttl_seconds}
                try:
                    if snapshot.exists:
                        since_read = client.write_option(last_update_time=snapshot.update_time)
                        ref.update(lease, option=since_read, **self._db.options)
                    else:
                        ref.create(lease, **self._db.options)
                    return True
                except (gexc.AlreadyExists, gexc.FailedPrecondition):
                    continue  # another run wrote it since the read (or our retry did): read again
        # Losing every attempt to other takers means another run is taking it right now.
        return False

    def release_lease(self, owner: str) -> None:
        ref = self._ref(LEASE)
        client = self._db.client()
        with self._db.guard("releasing the rebuild lease"):
            snapshot = ref.get(**self._db.options)
            if not snapshot.exists or (snapshot.to_dict() or {}).get("owner") != owner:
                return
            try:
                since_read = client.write_option(last_update_time=snapshot.update_time)
                ref.delete(option=since_read, **self._db.options)
            except (gexc.FailedPrecondition, gexc.NotFound):
                pass  # expired and taken by another run meanwhile: it is theirs now

    def read_lease(self) -> Lease | None:
        with self._db.guard("reading the rebuild lease"):
            snapshot = self._ref(LEASE).get(**self._db.options)
        held = snapshot.to_dict() if snapshot.exists else None
        if not held:
            return None
        return Lease(str(held.get("owner", "")), float(held.get("expires_at", 0)))

    # -- manifest ---------------------------------------------------------------------

    def load_manifest(self) -> JsonObject | None:
        with self._db.guard("reading the site manifest"):
            head = self._ref(HEAD).get(**self._db.options)
            if not head.exists:
                return None
            generation, count = str(head.get("generation")), int(head.get("parts"))
            refs = [self._part(generation, i) for i in range(count)]
            snapshots = {s.id: s for s in self._db.client().get_all(refs, **self._db.options)}
        pieces = []
        for ref in refs:
            snapshot = snapshots.get(ref.id)
            if snapshot is None or not snapshot.exists:
                return None  # a part is missing: the next build is a full one
            pieces.append(bytes(snapshot.get("data")))
        try:
            data = json.loads(zlib.decompress(b"".join(pieces)))
        except (zlib.error, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save_manifest(self, manifest: Mapping[str, Any]) -> None:
        blob = zlib.compress(json.dumps(manifest, separators=(",", ":")).encode(), 6)
        pieces = [blob[i : i + PART_BYTES] for i in range(0, len(blob), PART_BYTES)] or [b""]
        generation = uuid.uuid4().hex
        per_commit = max(1, self._db.max_commit_bytes // (PART_BYTES + 4096))
        client = self._db.client()
        with self._db.guard("saving the site manifest"):
            for start in range(0, len(pieces), per_commit):
                batch = client.batch()
                for i in range(start, min(start + per_commit, len(pieces))):
                    batch.set(self._part(generation, i), {"data": pieces[i]})
                batch.commit(**self._db.options)
            head_ref = self._ref(HEAD)
            old = head_ref.get(**self._db.options)
            head_ref.set(
                {"generation": generation, "parts": len(pieces), "saved_at": time.time()},
                **self._db.options,
            )
            if old.exists:
                stale = [
                    self._part(str(old.get("generation")), i) for i in range(int(old.get("parts")))
                ]
                for start in range(0, len(stale), 400):
                    batch = client.batch()
                    for ref in stale[start : start + 400]:
                        batch.delete(ref)
                    batch.commit(**self._db.options)

    # -- navigation ---------------------------------------------------------------------

    def load_nav(self) -> StoredNav | None:
        return stored_nav(self._load_blob(NAV, "reading the site navigation"))

    def save_nav(self, nav: Mapping[str, Any] | None) -> None:
        self._save_blob(NAV, nav, "saving the site navigation")

    def load_imports(self) -> dict[str, Any] | None:
        return self._load_blob(IMPORTS, "reading what imports said of their trees")

    def save_imports(self, imports: Mapping[str, Any]) -> None:
        self._save_blob(IMPORTS, imports, "saving what an import said of its tree")

    def _load_blob(self, name: str, doing: str) -> JsonObject | None:
        with self._db.guard(doing):
            snapshot = self._ref(name).get(**self._db.options)
        if not snapshot.exists:
            return None
        try:
            data = json.loads(zlib.decompress(bytes(snapshot.get("data"))))
        except (zlib.error, ValueError, KeyError, TypeError):
            return None
        return data if isinstance(data, dict) else None

    def _save_blob(self, name: str, value: Mapping[str, Any] | None, doing: str) -> None:
        with self._db.guard(doing):
            if value is None:
                self._ref(name).delete(**self._db.options)
                return
            blob = zlib.compress(json.dumps(value, separators=(",", ":")).encode(), 6)
            self._ref(name).set({"data": blob, "saved_at": time.time()}, **self._db.options)

    # -- assets -------------------------------------------------------------------------

    def _asset_ref(self, path: str) -> Any:
        return self._db.collection(ASSETS).document(hashlib.sha256(path.encode()).hexdigest()[:40])

    def put_assets(self, assets: Mapping[str, bytes]) -> None:
        items = sorted(assets.items())
        client = self._db.client()
        with self._db.guard("storing the files pages link"):
            for start in range(0, len(items), ASSET_BATCH):
                batch = client.batch()
                for path, data in items[start : start + ASSET_BATCH]:
                    doc = {"path": path, "data": data, "size": len(data), "saved_at": time.time()}
                    batch.set(self._asset_ref(path), doc)
                batch.commit(**self._db.options)

    def held_assets(self, paths: Collection[str]) -> set[str]:
        refs = [self._asset_ref(p) for p in sorted(set(paths))]
        if not refs:
            return set()
        with self._db.guard("reading which files pages link are stored"):
            snapshots = self._db.client().get_all(refs, field_paths=["path"], **self._db.options)
            return {str(s.get("path")) for s in snapshots if s.exists}

    def get_assets(self, paths: Collection[str]) -> dict[str, bytes]:
        wanted = sorted(set(paths))
        found: dict[str, bytes] = {}
        with self._db.guard("reading the files pages link"):
            for start in range(0, len(wanted), ASSET_BATCH):
                refs = [self._asset_ref(p) for p in wanted[start : start + ASSET_BATCH]]
                for snapshot in self._db.client().get_all(refs, **self._db.options):
                    if snapshot.exists:
                        data = snapshot.to_dict() or {}
                        found[str(data["path"])] = bytes(data["data"])
        return found
