"""The code index in Firestore: one document per path, one per key with its owner set.

Document ids are hashes (ids cannot hold "/" and are limited in length). A key
document holds the set of paths that have it (``owners``, a map of path ids), so
adding or removing a path is an idempotent merge that needs no read and no
transaction: concurrent puts commute, and a key with no owner is absent. A path and
its keys change in one batch; batches are built as raw write protos (the client's
``set`` spent ~0.3 ms of CPU per write turning a dict into one: 24 s of a 20,000-path
put) and committed a few at a time. The meta document holds the path total and each
repository's top-level folders (``roots``, a map of repository id to names, merged per
repository so puts of two repositories never overwrite each other's). A key document
outlives its last owner (``seen``): the index remembers the paths it once held, and
freshness judges only those. ``lookup`` is one ``get_all`` (one BatchGetDocuments call)
of the meta document and the key documents.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.firestore_v1.base_query import FieldFilter
from google.cloud.firestore_v1.types import write as write_types

from shared.gates.staleness import file_name
from shared.records import KeyLookup, PathChanges
from shared.store.firestore.db import Database
from shared.text.code_paths import root_names, suffix_keys

PATHS = "code_paths"
KEYS = "code_keys"
META = "code_meta"
TOTAL_ID = "index"
MAX_WRITES = 450  # per batch of the sweep's conditional deletes
# Per batch of a put: a path and its keys always share one. Firestore takes commits of up
# to 10 MiB (db.MAX_REQUEST_BYTES; its old 500-writes cap is gone); a put's write is at
# most ~1.2 KB (a path of 1,024 bytes), so 2,000 keep a commit under 3 MiB, within the
# emulator's 4 MiB too.
PUT_WRITES = 2000
COMMITS_IN_FLIGHT = 4  # a put's batches commute (idempotent merges): a few at a time
_Write = write_types.Write.pb()  # the raw protobuf class, built without proto-plus


def _hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:40]


def path_id(repo: str, path: str) -> str:
    # A letter first keeps it a plain field name inside the ``owners`` map.
    return f"p{_hash(repo, path)}"


def repo_id(repo: str) -> str:
    """The repository's field name in the meta document's ``roots`` map."""
    return f"r{_hash(repo)}"


def _roots_map(meta: dict[str, Any]) -> dict[str, frozenset[str]] | None:
    """The stored roots by repository id; None when the meta document predates them."""
    stored = meta.get("roots")
    if not isinstance(stored, dict):
        return None
    return {rid: frozenset(str(n) for n in names or ()) for rid, names in stored.items()}


def _union(roots: dict[str, frozenset[str]] | None) -> frozenset[str] | None:
    return None if roots is None else frozenset().union(*roots.values())


def _batches(
    changes: list[tuple[str, bool]], limit: int = PUT_WRITES
) -> list[list[tuple[str, bool]]]:
    """Split (path, added?) changes so one path and its keys always share a batch."""
    batches: list[list[tuple[str, bool]]] = []
    current: list[tuple[str, bool]] = []
    writes = 0
    for change in changes:
        cost = 1 + len(suffix_keys(change[0]))
        if current and writes + cost > limit:
            batches.append(current)
            current, writes = [], 0
        current.append(change)
        writes += cost
    if current:
        batches.append(current)
    return batches


class FirestoreCodeIndex:
    """``CodeIndex`` on Firestore."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def _key_ref(self, key: str) -> Any:
        return self._db.collection(KEYS).document(_hash(key))

    def _total_ref(self) -> Any:
        return self._db.collection(META).document(TOTAL_ID)

    def put_paths(self, repo: str, paths: Sequence[str], *, replace: bool) -> int:
        return self.apply_paths(repo, paths, replace=replace).indexed

    def apply_paths(self, repo: str, paths: Sequence[str], *, replace: bool) -> PathChanges:
        wanted = set(paths)
        with self._db.guard("reading the code index"):
            meta = self._total_ref().get(**self._db.options).to_dict() or {}
        before = int(meta.get("paths", 0))
        roots_before = _roots_map(meta)
        of_repo = self._db.collection(PATHS).where(filter=FieldFilter("repo", "==", repo))
        with self._db.guard(f"reading the indexed paths of '{repo}'"):
            stored = {
                doc.get("path")
                for doc in of_repo.select(["path"]).stream(**self._db.stream_options)
            }
            legacy = roots_before is None and before > 0
            if legacy:
                roots_before = self._scan_roots()  # an index from before roots: once
        changes = [(p, True) for p in sorted(wanted - stored)]
        if replace:
            changes += [(p, False) for p in sorted(stored - wanted)]
        roots = {**(roots_before or {}), repo_id(repo): root_names(wanted | stored)}
        if replace:
            roots[repo_id(repo)] = root_names(wanted)
        emptied: set[str] = {k for path, added in changes if not added for k in suffix_keys(path)}
        with self._db.guard(f"indexing paths of '{repo}'"):
            # Each batch is sent as soon as it is built: building the next overlaps the
            # commits in flight.
            with ThreadPoolExecutor(COMMITS_IN_FLIGHT) as pool:
                sent = [
                    pool.submit(self._commit, self._writes(repo, batch))
                    for batch in _batches(changes)
                ]
                for commit in sent:
                    commit.result()
            self._sweep(emptied)
            indexed = self._count(of_repo)
            after = before
            if changes or roots != (roots_before or {}) or "roots" not in meta:
                # The total only tells "empty or not" and is reported; a race between two
                # puts may leave it stale until the next put, never the keys themselves.
                # The roots merge by repository: only this one's entry (every entry when
                # an older index gains them) is written.
                after = self._count(self._db.collection(PATHS)) if changes else before
                written = roots if "roots" not in meta else {repo_id(repo): roots[repo_id(repo)]}
                self._total_ref().set(
                    {"paths": after, "roots": {rid: sorted(n) for rid, n in written.items()}},
                    merge=True,
                    **self._db.options,
                )
        return PathChanges(
            indexed=indexed,
            added=tuple(p for p, added in changes if added),
            removed=tuple(p for p, added in changes if not added),
            total_before=before,
            total_after=after,
            # An older index's lookups judged every path: gaining roots changes that too.
            roots_changed=legacy or _union(roots_before) != _union(roots),
        )

    def _scan_roots(self) -> dict[str, frozenset[str]]:
        """Every repository's roots from its indexed paths (an index written before them)."""
        by_repo: dict[str, set[str]] = defaultdict(set)
        query = self._db.collection(PATHS).select(["repo", "path"])
        for doc in query.stream(**self._db.stream_options):
            by_repo[str(doc.get("repo"))].add(str(doc.get("path")))
        return {repo_id(repo): root_names(paths) for repo, paths in by_repo.items()}

    def paths_named(self, names: Sequence[str], *, limit: int = 20) -> dict[str, list[str]]:
        # ``name`` is written with each path (paths indexed before it existed are found
        # after their repository is indexed again). One query per name, at most
        # ``limit`` + 1 documents: a name held by more paths is too common to suggest.
        found: dict[str, list[str]] = {}
        with self._db.guard("reading the code index by file name"):
            for name in sorted(set(names)):
                query = (
                    self._db.collection(PATHS)
                    .where(filter=FieldFilter("name", "==", name))
                    .select(["path"])
                    .limit(limit + 1)
                )
                paths = [str(d.get("path")) for d in query.stream(**self._db.stream_options)]
                if 0 < len(paths) <= limit:
                    found[name] = sorted(paths)
        return found

    def _writes(self, repo: str, changes: list[tuple[str, bool]]) -> list[Any]:
        """One batch's writes: each path document set or deleted, and each of its keys'
        documents merged (``owners.<path id>`` set, or deleted: a merge whose mask names
        a field the write leaves out deletes it), as ``set(..., merge=True)`` would."""
        owners: dict[str, dict[str, bool]] = defaultdict(dict)
        writes = []
        # Documents' full names, as the client writes them (the ids are hashes: no quoting).
        paths_at = self._db.collection(PATHS).document(TOTAL_ID)._document_path[: -len(TOTAL_ID)]
        keys_at = self._db.collection(KEYS).document(TOTAL_ID)._document_path[: -len(TOTAL_ID)]
        for path, added in changes:
            pid = path_id(repo, path)
            name = paths_at + pid
            write = _Write()
            if added:
                fields = write.update.fields
                write.update.name = name
                fields["repo"].string_value = repo
                fields["path"].string_value = path
                fields["name"].string_value = file_name(path)
            else:
                write.delete = name
            writes.append(write)
            for key in suffix_keys(path):
                owners[key][pid] = added
        for key, change in owners.items():
            # ``seen``: the key document outlives its last owner, as the memory that the
            # index once held a path with this key (freshness judges only those).
            write = _Write()
            write.update.name = keys_at + _hash(key)
            fields = write.update.fields
            fields["key"].string_value = key
            fields["seen"].boolean_value = True
            kept = [pid for pid, added in change.items() if added]
            if kept:  # (reading a map entry creates it: only when one is set)
                owned = fields["owners"].map_value.fields
                for pid in kept:
                    owned[pid].boolean_value = True
            # Path ids are a letter and hex digits: plain field names, no quoting.
            write.update_mask.field_paths.extend(
                ["key", "seen", *(f"owners.{pid}" for pid in change)]
            )
            writes.append(write)
        return writes

    def _commit(self, writes: list[Any]) -> None:
        batch = self._db.client().batch()
        batch._add_write_pbs(writes)  # the client's own path for prepared writes
        batch.commit(**self._db.options)

    def _sweep(self, keys: set[str]) -> None:
        """Delete key documents left with no owner, unless one was added meanwhile, and
        unless they remember having been seen (every key written since ``seen`` was)."""
        if not keys:
            return
        client = self._db.client()
        snapshots = client.get_all([self._key_ref(k) for k in sorted(keys)], **self._db.options)
        batch = client.batch()
        empty = 0
        for snapshot in snapshots:
            data = (snapshot.to_dict() or {}) if snapshot.exists else {}
            if snapshot.exists and not data.get("owners") and not data.get("seen"):
                option = client.write_option(last_update_time=snapshot.update_time)
                batch.delete(snapshot.reference, option=option)
                empty += 1
                if empty % MAX_WRITES == 0:
                    self._commit_sweep(batch)
                    batch = client.batch()
        self._commit_sweep(batch)

    def _commit_sweep(self, batch: Any) -> None:
        # A failed precondition means a concurrent put re-owned a key; an empty key
        # document left behind is absent for ``lookup`` anyway.
        if len(batch) == 0:
            return
        with contextlib.suppress(gexc.FailedPrecondition, gexc.NotFound):
            batch.commit(**self._db.options)

    def _count(self, query: Any) -> int:
        result = query.count().get(**self._db.options)
        return int(result[0][0].value)

    def lookup(self, keys: Sequence[str]) -> KeyLookup:
        wanted = set(keys)
        refs = [self._total_ref(), *(self._key_ref(k) for k in sorted(wanted))]
        with self._db.guard("reading the code index"):
            snapshots = list(self._db.client().get_all(refs, **self._db.options))
        total = 0
        roots: frozenset[str] | None = frozenset()
        found: set[str] = set()
        seen: set[str] = set()
        for snapshot in snapshots:
            if not snapshot.exists:
                continue
            data = snapshot.to_dict() or {}
            if snapshot.id == TOTAL_ID:
                total = int(data.get("paths", 0))
                roots = _union(_roots_map(data))
            elif data.get("key") in wanted:
                if data.get("owners"):
                    found.add(str(data["key"]))
                if data.get("owners") or data.get("seen"):
                    seen.add(str(data["key"]))
        return KeyLookup(
            found=frozenset(found), indexed_paths=total, roots=roots, seen=frozenset(seen)
        )
