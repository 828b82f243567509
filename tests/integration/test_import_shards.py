"""``biblioteca import --shard I/N`` on both stores: four shards run as four parallel
processes of the command write what one import writes (pages, revisions, chunks, origins,
the nav, the tree's routes, assets, the built site's broken links); ``--sync`` in a shard
retires only its own files' pages (``tests/functions/test_import_shard_cli.py`` reads
the flag and a Cloud Run task's variables)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from shared.bootstrap import open_store, reset
from shared.config import get_settings
from shared.importing.shards import shard_of
from shared.services.tree_identity import tree_name
from tests.fixtures.corpora import corpus_or_skip
from tests.fixtures.gemini import FakeGemini
from tests.fixtures.wiring import rebuild

ROOT = Path(__file__).resolve().parents[2]
KEY = "AIzaFAKE-shard-key-0123456789"
SHARDS = 4
# A score of real files, their folders kept: the top of fastapi-es and one of its sections.
FASTAPI_PARTS = ("deployment",)


@dataclass(frozen=True)
class Tree:
    """A docs folder to import and its ``--assets`` folders."""

    docs: Path
    assets: tuple[Path, ...] = ()

    def args(self) -> list[str]:
        return [str(self.docs), *(a for p in self.assets for a in ("--assets", str(p)))]


def _fastapi_subset(tmp_path: Path) -> Tree:
    """A copy (``--sync`` deletes a file of it) of fastapi-es's top files and a section."""
    source = corpus_or_skip("fastapi-es").docs_dir
    docs = tmp_path / "fastapi-es" / "docs"
    docs.mkdir(parents=True)
    for path in source.glob("*.md"):
        shutil.copy(path, docs / path.name)
    for part in FASTAPI_PARTS:
        shutil.copytree(source / part, docs / part)
    return Tree(docs)


def _astro_tutorial(tmp_path: Path) -> Tree:
    """astro-es's tutorial section in place (read only): MDX, images from ``public``."""
    spec = corpus_or_skip("astro-es")
    return Tree(spec.docs_dir / "tutorial", tuple(spec.root / a for a in spec.assets))


class Stores:
    """Two stores of the test's backend, ``a`` and ``b``, each its own data folder (SQLite,
    site) and emulator project; ``env(name)`` is a ``biblioteca`` process's environment on
    one, embedding with the fake Gemini API."""

    def __init__(self, tmp_path: Path, gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch):
        self.tmp_path = tmp_path
        self.monkeypatch = monkeypatch
        self.project = os.environ.get("GOOGLE_CLOUD_PROJECT", "")
        monkeypatch.setenv("BIBLIOTECA_EMBEDDER", "gemini")
        monkeypatch.setenv("GOOGLE_AI_API_KEY", KEY)
        monkeypatch.setenv("GEMINI_BASE_URL", gemini.url)

    def env(self, name: str, **extra: str) -> dict[str, str]:
        values = {**os.environ, "BIBLIOTECA_DATA_DIR": str(self.tmp_path / f"data-{name}")}
        if os.environ.get("BIBLIOTECA_STORE") == "firestore":
            values["GOOGLE_CLOUD_PROJECT"] = f"{self.project}-{name}"
        for variable in ("CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"):
            values.pop(variable, None)
        return {**values, **extra}

    def opened(self, name: str) -> Any:
        """Store ``name`` opened in this process, as the services open it."""
        for variable, value in self.env(name).items():
            if os.environ.get(variable) != value:
                self.monkeypatch.setenv(variable, value)
        get_settings.cache_clear()
        reset()
        return open_store(get_settings())


@pytest.fixture
def stores(
    store_env: str, gemini: FakeGemini, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Stores]:
    del store_env  # the backend: SQLite, or the emulator with a project per store
    yield Stores(tmp_path, gemini, monkeypatch)
    get_settings.cache_clear()
    reset()


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "shared", "import", *args, "--type", "guide", "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> tuple[int, dict[str, Any], str]:
    """Exit status, the JSON report and stderr of one ``biblioteca import``."""
    out, err = process.communicate(timeout=300)
    assert out.strip(), err[-3000:]
    return process.returncode, json.loads(out), err


def _import(args: list[str], env: dict[str, str]) -> tuple[int, dict[str, Any], str]:
    return _finish(_start(args, env))


def _in_parallel(args: list[str], env: dict[str, str]) -> list[dict[str, Any]]:
    """The four shards as four processes at once; their reports, in shard order."""
    running = [_start([*args, "--shard", f"{i}/{SHARDS}"], env) for i in range(SHARDS)]
    return [_finish(process)[1] for process in running]


def _written(store: Any, tree: str) -> dict[str, Any]:
    """Everything an import leaves in ``store`` but the times: each page (front matter,
    body, version, revisions), its chunks, the origins, the nav, the tree's routes, the
    assets, and what a site built from it publishes and reports broken."""
    pages = {
        page.slug: {
            "front_matter": json.loads(json.dumps(page.front_matter, sort_keys=True, default=str)),
            "content": page.content,
            "version": page.version,
            "updated_by": page.updated_by,
            "revisions": len(store.revisions.history(page.slug, limit=1000)),
        }
        for page in store.pages.list()
    }
    chunks = sorted((c.slug, c.ordinal, c.heading, c.text) for c in store.chunks.active_chunks())
    built = rebuild(get_settings())
    site = Path(get_settings().site_location)
    published = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assets = [p for p in published if p.startswith("_assets/")]
    return {
        "pages": pages,
        "chunks": chunks,
        "origins": store.pages.origins(tree),
        "nav": store.site.load_nav(),
        "imports": store.site.load_imports(),
        "assets": {p: (site / p).read_bytes() for p in assets},
        "published": [p for p in published if p.endswith(".html")],
        "broken_links": sorted(json.dumps(b, sort_keys=True) for b in built.broken_links),
    }


def _assert_same(whole: dict[str, Any], sharded: dict[str, Any]) -> None:
    assert sharded["pages"].keys() == whole["pages"].keys()
    for slug, page in whole["pages"].items():
        assert sharded["pages"][slug] == page, slug
    for part in ("chunks", "origins", "nav", "imports", "assets", "published", "broken_links"):
        assert sharded[part] == whole[part], part


def test_four_parallel_shards_write_exactly_what_one_import_writes(
    store_env: str, stores: Stores, tmp_path: Path
) -> None:
    """One import into store a, the same tree as four shards running at once into store b:
    every page, revision count, chunk, origin, the nav, routes, assets, the built site's
    pages and broken links are the same; the shards' reports split the whole one's counts,
    each naming its shard, and every file is in exactly one shard. One tree per store
    (the Starlight tree with its assets on SQLite, the MkDocs one on Firestore) keeps
    both dialects and both stores at half the suite's time."""
    make_tree: Callable[[Path], Tree] = (
        _astro_tutorial if store_env == "sqlite" else _fastapi_subset
    )
    tree = make_tree(tmp_path)
    status, whole, _ = _import(tree.args(), stores.env("a"))
    assert status in (0, 1)
    assert whole["created"] >= 10
    assert "shard" not in whole
    reports = _in_parallel(tree.args(), stores.env("b"))

    assert [r["shard"] for r in reports] == [{"index": i, "count": SHARDS} for i in range(SHARDS)]
    assert sum(r["created"] for r in reports) == whole["created"]
    assert sum(r["fidelity"]["pages"] for r in reports) == whole["fidelity"]["pages"]
    assert sum(r["assets"] for r in reports) >= whole["assets"]  # a file two shards link
    failed = sorted(f["file"] for r in reports for f in r["failed"])
    assert failed == sorted(f["file"] for f in whole["failed"])
    name = tree_name(tree.docs)
    one = _written(stores.opened("a"), name)
    four = _written(stores.opened("b"), name)
    assert len(one["pages"]) == whole["created"]
    _assert_same(one, four)
    assert one["assets"] or not tree.assets  # a tree with images published some
    assert one["nav"] is not None
    # Each shard wrote exactly the files whose path hashes to it: the partition.
    files = list(one["origins"].values())
    owned = [sorted(p for p in files if shard_of(p, SHARDS) == i) for i in range(SHARDS)]
    assert [r["created"] for r in reports] == [len(paths) for paths in owned]
    assert sorted(p for paths in owned for p in paths) == sorted(files)


def test_a_shard_run_again_writes_nothing_and_sync_retires_only_its_own_page(
    stores: Stores, tmp_path: Path
) -> None:
    """The same shard twice: the second run finds every page of it unchanged. After a file
    is deleted, ``--sync`` in another shard retires nothing; in the file's own shard,
    exactly that page."""
    tree = _fastapi_subset(tmp_path)
    first = _import([*tree.args(), "--shard", "2/4"], stores.env("b"))[1]
    again = _import([*tree.args(), "--shard", "2/4"], stores.env("b"))[1]
    assert first["created"] > 0
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, first["created"])
    _import(tree.args(), stores.env("b"))  # the other shards' pages

    gone = "deployment/docker.md"
    (tree.docs / gone).unlink()
    owner = shard_of(gone, SHARDS)
    other = (owner + 1) % SHARDS
    elsewhere = _import([*tree.args(), "--sync", "--shard", f"{other}/4"], stores.env("b"))[1]
    assert elsewhere["retired"] == 0
    own = _import([*tree.args(), "--sync", "--shard", f"{owner}/4"], stores.env("b"))[1]
    assert own["retired"] == 1
    store = stores.opened("b")
    statuses = {p.slug: p.front_matter.get("status", "active") for p in store.pages.list()}
    assert [s for s, status in statuses.items() if status == "archived"] == ["deployment—docker"]
