"""Which shard of an import owns a file: a stable hash of its path, ``I/N`` read strictly,
a Cloud Run task's variables read as a shard."""

from __future__ import annotations

import pytest

from shared.importing.shards import Shard, parse_shard, shard_from_env, shard_of

PATHS = [f"parte-{i}/página-{j}.md" for i in range(10) for j in range(20)]


def test_a_files_shard_is_the_same_in_every_process_and_python() -> None:
    """blake2b of the posix path, never the salted ``hash()``: these values never change
    (a change would make ``--sync`` in a shard blind to its own deleted files)."""
    assert [shard_of(p, 4) for p in ["index.md", "guias/a.md", "canción.md"]] == [2, 3, 1]
    assert shard_of("deployment/docker.md", 4) == 2


@pytest.mark.parametrize("count", [1, 2, 4, 7])
def test_the_shards_partition_the_files(count: int) -> None:
    """Each file is owned by exactly one shard of ``count``, and none is left out."""
    shards = [Shard(i, count) for i in range(count)]
    for path in PATHS:
        assert sum(s.owns(path) for s in shards) == 1
    if count > 1:  # two hundred paths never all land in one shard
        assert all(any(s.owns(p) for p in PATHS) for s in shards)


def test_i_counts_from_0_and_n_is_shard_0_again() -> None:
    """``0/4``..``3/4`` and ``1/4``..``4/4`` both cover the tree; spaces are forgiven."""
    assert parse_shard("0/4") == Shard(0, 4)
    assert parse_shard("4/4") == Shard(0, 4)
    assert parse_shard(" 3 / 4 ") == Shard(3, 4)
    assert {parse_shard(f"{i}/4") for i in range(1, 5)} == {Shard(i, 4) for i in range(4)}


@pytest.mark.parametrize("value", ["3", "0/0", "5/4", "-1/4", "a/b", "1/4/2", "", "1.0/4"])
def test_a_malformed_shard_says_what_is_expected(value: str) -> None:
    with pytest.raises(ValueError, match=r"I/N|N must be|I must be"):
        parse_shard(value)


def test_a_cloud_run_task_is_a_shard_when_the_job_has_several() -> None:
    """Both variables set and the count over 1: that shard; else the whole tree (None);
    a bad value names the variables."""
    assert shard_from_env({"CLOUD_RUN_TASK_INDEX": "2", "CLOUD_RUN_TASK_COUNT": "4"}) == Shard(2, 4)
    assert shard_from_env({"CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "1"}) is None
    assert shard_from_env({"CLOUD_RUN_TASK_INDEX": "2"}) is None
    assert shard_from_env({}) is None
    with pytest.raises(ValueError, match="CLOUD_RUN_TASK_COUNT=zero"):
        shard_from_env({"CLOUD_RUN_TASK_INDEX": "2", "CLOUD_RUN_TASK_COUNT": "zero"})
