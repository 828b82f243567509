"""Your own docs in two commands: ``import`` then ``serve`` (the site built at first start),
and the demo kept apart in ``.biblioteca/demo``."""

from __future__ import annotations

import argparse
import os
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from shared.cli import main
from shared.cli.serve import DEMO_DATA_DIR, prepare
from shared.config import get_settings


def test_the_demo_gets_a_store_of_its_own_unless_one_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """serve --demo without BIBLIOTECA_DATA_DIR uses .biblioteca/demo; a named folder, or
    serve without --demo, is left as it is."""
    monkeypatch.delenv("BIBLIOTECA_DATA_DIR", raising=False)
    prepare(argparse.Namespace(demo=False))
    assert "BIBLIOTECA_DATA_DIR" not in os.environ
    prepare(argparse.Namespace(demo=True))
    assert os.environ["BIBLIOTECA_DATA_DIR"] == str(DEMO_DATA_DIR)
    assert get_settings().data_dir == Path(".biblioteca") / "demo"
    monkeypatch.setenv("BIBLIOTECA_DATA_DIR", "/tmp/elsewhere")
    prepare(argparse.Namespace(demo=True))
    assert os.environ["BIBLIOTECA_DATA_DIR"] == "/tmp/elsewhere"
    get_settings.cache_clear()


def test_import_then_serve_is_a_browsable_wiki(
    env: dict[str, str], serve: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder imported into a fresh store, then a plain serve: / is the built site with
    the page, without a rebuild run by hand."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pool.md").write_text("# Pool de conexiones\n\nSe dimensiona al arrancar.\n")
    assert main(["import", str(docs), "--type", "guide"]) == 0
    capsys.readouterr()
    url = serve()
    with urllib.request.urlopen(f"{url}/", timeout=30) as response:
        index = response.read().decode()
    assert "Pool de conexiones" in index
    with urllib.request.urlopen(f"{url}/pool/", timeout=30) as response:
        assert response.status == 200
