"""Which files of a docs tree one shard of an import owns (``biblioteca import --shard I/N``).

A file belongs to shard ``blake2b(its tree-relative posix path) % N``: stable across
machines, processes and Python versions (never ``hash()``, which is salted per process),
and known for a file that is gone from its stored source path alone, so ``--sync`` in a
shard retires only pages its own files stood for. ``I`` counts from 0, as a Cloud Run
job's ``CLOUD_RUN_TASK_INDEX`` does; ``I = N`` is shard 0 again, so ``0..N-1`` and
``1..N`` both cover the tree.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

TASK_INDEX = "CLOUD_RUN_TASK_INDEX"  # set by Cloud Run in each task of a job
TASK_COUNT = "CLOUD_RUN_TASK_COUNT"
MAX_SHARDS = 10_000  # Cloud Run's own limit on a job's tasks
_SHARD = re.compile(r"\A\s*(\d{1,5})\s*/\s*(\d{1,5})\s*\Z")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (``index`` in ``0..count-1``)."""

    index: int
    count: int

    def owns(self, path: str) -> bool:
        """Whether the file at ``path`` (relative to the tree's root, posix) is this
        shard's."""
        return shard_of(path, self.count) == self.index

    def as_dict(self) -> dict[str, int]:
        return {"index": self.index, "count": self.count}


def shard_of(path: str, count: int) -> int:
    """The shard of ``count`` that the file at ``path`` belongs to."""
    digest = hashlib.blake2b(path.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count


def parse_shard(text: str) -> Shard:
    """``I/N`` as a shard: ``N`` from 1 to ``MAX_SHARDS``, ``I`` from 0 to ``N`` (``N`` is
    shard 0). Anything else raises ``ValueError`` saying what is expected."""
    match = _SHARD.match(text)
    if match is None:
        raise ValueError(f"'{text}' is not I/N (shard I of N, e.g. 0/4)")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= count <= MAX_SHARDS:
        raise ValueError(f"'{text}': N must be 1 to {MAX_SHARDS}")
    if index > count:
        raise ValueError(f"'{text}': I must be 0 to N-1 (or N, the same shard as 0)")
    return Shard(index % count, count)


def shard_from_env(environ: Mapping[str, str]) -> Shard | None:
    """The shard a Cloud Run job's task runs (``CLOUD_RUN_TASK_INDEX`` of
    ``CLOUD_RUN_TASK_COUNT``); None when either is unset or the job has one task. A value
    that is not a shard raises ``ValueError`` naming the variables."""
    index, count = environ.get(TASK_INDEX, "").strip(), environ.get(TASK_COUNT, "").strip()
    if not index or not count:
        return None
    try:
        shard = parse_shard(f"{index}/{count}")
    except ValueError as exc:
        raise ValueError(f"{TASK_INDEX}={index} {TASK_COUNT}={count}: {exc}") from exc
    return shard if shard.count > 1 else None
