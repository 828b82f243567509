"""The code index on both stores: the 1,220 real paths, replace, shared keys, one read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from shared.gates.grounding import check_grounding
from shared.text.code_paths import normalize_path

READ_RPCS = (
    "batch_get_documents",
    "get_document",
    "run_query",
    "run_aggregation_query",
    "list_documents",
)


def corpus_paths(corpus: Path) -> list[str]:
    lines = (corpus / "code-paths.txt").read_text(encoding="utf-8").splitlines()
    return [normalize_path(line) for line in lines if line.strip()]


@contextmanager
def count_reads(store: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every read the real adapter sends: SQL statements, or Firestore read RPCs."""
    calls: list[str] = []
    if hasattr(store.db, "connection"):  # SQLite: the connection's own statement trace
        conn = store.db.connection()
        conn.set_trace_callback(calls.append)
        try:
            yield calls
        finally:
            conn.set_trace_callback(None)
        return
    api = store.db.client()._firestore_api  # the GAPIC client every request goes through
    for name in READ_RPCS:
        original = getattr(api, name)

        def counted(*args: Any, _name: str = name, _original: Any = original, **kw: Any) -> Any:
            calls.append(_name)
            return _original(*args, **kw)

        monkeypatch.setattr(api, name, counted)
    yield calls


@pytest.fixture
def fastapi_index(store: Any, corpus: Path) -> list[str]:
    """The store with the corpus's 1,220 real paths indexed as repo ``fastapi``."""
    paths = corpus_paths(corpus)
    assert store.code.put_paths("fastapi", paths, replace=True) == len(set(paths))
    return paths


def test_the_real_paths_are_indexed_and_resolve(store: Any, fastapi_index: list[str]) -> None:
    """All 1,220 paths count once; suffixes on '/' boundaries resolve, look-alikes do not."""
    assert len(set(fastapi_index)) == 1220
    lookup = store.code.lookup(
        [
            "fastapi/routing.py",
            "docs_src/app_testing/app_b_an_py310/main.py",
            "app_b_an_py310/main.py",
            "outing.py/x",
            "astapi/routing.py",
            "signage/services/deployment.py",
        ]
    )
    assert lookup.indexed_paths == 1220
    assert lookup.found == {
        "fastapi/routing.py",
        "docs_src/app_testing/app_b_an_py310/main.py",
        "app_b_an_py310/main.py",
    }


def test_putting_the_same_paths_again_changes_nothing(store: Any, fastapi_index: list[str]) -> None:
    """A second put of the same list keeps the count and the keys."""
    assert store.code.put_paths("fastapi", fastapi_index[:10], replace=False) == 1220
    assert store.code.lookup(["fastapi/routing.py"]).found == {"fastapi/routing.py"}


def test_replace_removes_paths_and_their_unshared_keys(store: Any) -> None:
    """Replacing drops paths that left, and keys no remaining path shares."""
    store.code.put_paths(
        "a", ["src/app/main.py", "src/app/util.py", "tests/__init__.py"], replace=True
    )
    store.code.put_paths("b", ["lib/tests/__init__.py"], replace=True)

    assert store.code.put_paths("a", ["src/app/main.py"], replace=True) == 1

    lookup = store.code.lookup(["app/util.py", "src/app/main.py", "tests/__init__.py"])
    assert lookup.found == {"src/app/main.py", "tests/__init__.py"}  # kept by repo b
    assert lookup.indexed_paths == 2
    assert store.code.put_paths("b", [], replace=True) == 0
    assert store.code.lookup(["tests/__init__.py"]).found == frozenset()


def test_without_replace_paths_accumulate(store: Any) -> None:
    """A put without replace only adds; the count is per repository."""
    assert store.code.put_paths("r", ["a/x.py", "a/y.py"], replace=False) == 2
    assert store.code.put_paths("r", ["a/z.py"], replace=False) == 3
    assert store.code.put_paths("other", ["a/x.py"], replace=False) == 1
    assert store.code.lookup(["a/x.py"]).indexed_paths == 4


def test_an_empty_index_says_so(store: Any) -> None:
    """Before any put, a lookup finds nothing and reports no indexed path."""
    lookup = store.code.lookup(["a/b.py"])
    assert lookup.found == frozenset()
    assert lookup.indexed_paths == 0


@pytest.mark.parametrize("cited", [1, 50])
def test_the_grounding_check_is_one_read(
    store: Any, fastapi_index: list[str], cited: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking an answer costs one store read whether it cites 1 path or 50."""
    code = [p for p in fastapi_index if p.endswith(".py") and "/" in p]
    answer = " ".join(f"`{p}`" for p in code[: cited - 1]) + " y `ghost/nowhere.py`."
    if cited == 1:
        answer = f"Ver `{code[0]}`."
    with count_reads(store, monkeypatch) as reads:
        grounding = check_grounding(answer, store.code)
    assert grounding.checked
    assert grounding.cited == cited
    assert grounding.resolved == (1 if cited == 1 else cited - 1)
    assert len(reads) == 1, reads


def test_concurrent_puts_keep_the_counts_exact(store: Any, corpus: Path) -> None:
    """Three puts of the same paths at once count each path once; removing clears every key."""
    from concurrent.futures import ThreadPoolExecutor

    paths = corpus_paths(corpus)[:300]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(
            pool.map(lambda _: store.code.put_paths("c", paths, replace=False), range(3))
        )
    assert max(results) == 300
    assert store.code.lookup([paths[0].casefold()]).indexed_paths == 300

    assert store.code.put_paths("c", [], replace=True) == 0
    lookup = store.code.lookup([p.casefold() for p in paths if "/" in p])
    assert lookup.found == frozenset()
    assert lookup.indexed_paths == 0


def test_an_unreadable_index_passes_unchecked_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A store that cannot be opened: the check passes, unchecked, and the log says why."""
    from shared.store.sqlite import SqliteStore

    (tmp_path / "not-a-dir").write_text("a file where the data folder should be")
    broken = SqliteStore(tmp_path / "not-a-dir")
    with caplog.at_level("WARNING", logger="biblioteca"):
        grounding = check_grounding("Ver `app/main.py`.", broken.code)
    assert (grounding.checked, grounding.cited, grounding.refused) == (False, 1, False)
    assert any("cannot be read" in r.getMessage() for r in caplog.records)


def test_the_roots_are_the_union_of_every_repositorys_top_level_folders(store: Any) -> None:
    """Case-folded first segments of folders (not root files), per repository: replacing
    one repository's paths removes only the roots no other repository has."""
    first = store.code.apply_paths("a", ["Src/x.py", "docs/y.py", "setup.py"], replace=True)
    assert first.roots_changed
    assert not store.code.apply_paths("b", ["src/w.py"], replace=True).roots_changed
    assert store.code.apply_paths("b", ["lib/z.py"], replace=False).roots_changed
    assert store.code.lookup([]).roots == {"src", "docs", "lib"}

    assert store.code.apply_paths("a", ["src/x.py"], replace=True).roots_changed
    assert store.code.lookup(["src/x.py"]).roots == {"src", "lib"}
    assert store.code.apply_paths("b", [], replace=True).roots_changed
    assert store.code.lookup([]).roots == {"src"}


def test_the_real_index_has_the_six_top_level_folders(store: Any, fastapi_index: list[str]) -> None:
    """FastAPI's indexed roots are its top-level folders; 'app', a deeper folder, is not."""
    assert store.code.lookup(["fastapi/routing.py"]).roots == {
        "tests",
        "docs_src",
        "scripts",
        "fastapi",
        ".github",
        "docs",
    }


@pytest.mark.parametrize(
    "store_env", [pytest.param("firestore", marks=pytest.mark.firestore)], indirect=True
)
def test_a_firestore_index_from_before_roots_gains_them_at_its_next_put(store: Any) -> None:
    """Without roots on the meta document every path is judged (the old rule); the next
    put of any repository scans the paths once and stores every repository's roots.
    (SQLite fills its roots when an old file opens: test_freshness_store.)"""
    from google.cloud import firestore

    from shared.store.firestore.code import META, TOTAL_ID

    store.code.put_paths("a", ["src/x.py"], replace=True)
    store.code.put_paths("b", ["lib/z.py"], replace=True)
    meta = store.db.collection(META).document(TOTAL_ID)
    meta.update({"roots": firestore.DELETE_FIELD})
    assert store.code.lookup([]).roots is None

    changes = store.code.apply_paths("a", ["src/x.py"], replace=True)

    assert (changes.added, changes.removed, changes.roots_changed) == ((), (), True)
    assert store.code.lookup([]).roots == {"src", "lib"}


def test_a_large_put_is_written_in_few_large_commits(
    store: Any, store_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """5,000 paths (20,000 documents with their keys) go in commits of up to 2,000 writes,
    a few at a time, not 45 sequential commits of 450 built by the client's slow ``set``
    (a 20,000-path put took 20-24 s on the emulator; bench/README.md, "index_code");
    every path resolves afterwards, and a replace removes them all again."""
    if store_env != "firestore":
        return  # SQLite writes one transaction
    from google.cloud.firestore_v1.batch import WriteBatch

    commits: list[int] = []
    original = WriteBatch.commit

    def commit(self: Any, *args: Any, **kwargs: Any) -> Any:
        commits.append(len(self._write_pbs))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(WriteBatch, "commit", commit)
    paths = [f"src/paquete_{i // 50}/sub_{i // 10}/modulo_{i}.py" for i in range(5000)]
    assert store.code.put_paths("grande/repo", paths, replace=True) == 5000
    assert sum(commits) == 20_001  # the paths, their keys, and the meta document
    assert len(commits) <= 12, commits
    probe = ["src/paquete_0/sub_0/modulo_0.py", "sub_0/modulo_9.py", "sub_499/modulo_4999.py"]
    assert store.code.lookup(probe).found == frozenset(probe)
    commits.clear()
    assert store.code.put_paths("grande/repo", paths[:10], replace=True) == 10
    assert store.code.lookup(probe).found == frozenset(probe[:2])
