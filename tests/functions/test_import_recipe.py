"""The docs-as-code recipes' exact import (the import job's `biblioteca import DIR --sync
--tree NAME`, no `--type`) passes on every real docs tree: no file is refused for a type
its tree never states."""

from __future__ import annotations

import json

import pytest

from shared.cli import main
from tests.fixtures.corpora import CORPORA

# Each corpus's docs folder, as its repository's recipe would name it (DOCS_DIR).
RECIPE_DIRS = {
    "fastapi-es": "docs",
    "textual-en": "repo/docs",
    "astro-es": "repo/src/content/docs/es",
    "vitepress-en": "repo/docs",
    "docusaurus-en": "repo/website/docs",
}


@pytest.mark.parametrize("name", sorted(RECIPE_DIRS))
def test_the_recipes_import_exits_0_on_each_corpus(
    env: dict[str, str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`import DIR --sync` without --type: exit 0, nothing failed, every page typed and
    kinded (the deterministic embedder stands in for the model: the command is the same)."""
    from shared.bootstrap import install, wiring
    from shared.config import get_settings
    from tests.fixtures.embedder import HashingEmbedder

    docs = CORPORA / name / RECIPE_DIRS[name]
    if not docs.is_dir():
        pytest.skip(f"the corpus {name} is not at {docs} (../shared/corpus beside the checkout)")
    install(type(wiring())(get_settings(), embedder=HashingEmbedder()))
    tree = f"github.com/org/{name}/{RECIPE_DIRS[name]}"
    status = main(["import", str(docs), "--sync", f"--tree={tree}", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["failed"] == []
    assert status == 0
    assert report["created"] > 0
    pages = wiring().store.pages.list()
    assert {p.front_matter["type"] for p in pages} <= {"guide", "reference"}
    assert all(p.front_matter.get("kind") for p in pages)
