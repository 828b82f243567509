"""`biblioteca import DIR [--strict]` says what it lost: text swallowed by the pipeline is
named in ``fidelity.lossy``, source syntax shown in ``fidelity.raw``; ``--strict`` exits 1
on either (the pages are imported all the same), and ``status`` shows the last import's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.bootstrap import open_store
from shared.cli import main
from shared.config import get_settings
from tests.fixtures.files import write

# A Vue page: ``<script setup>`` with an import, then a ``<br>``. The text after the line
# break is what an importer that takes the page for MDX swallows without a word.
SWALLOWED = """---
title: Guía de componentes
---

<script setup>
import { ref } from 'vue'
const count = ref(0)
</script>

# Guía de componentes

Este párrafo explica cómo se usan los componentes en una página.<br>
Después del salto de línea viene más texto que el lector debe ver.

## Configuración

La configuración vive en un archivo aparte y se carga al arrancar el servidor.
Cada opción tiene un valor por defecto razonable.

## Despliegue

Publicar el sitio consiste en copiar la carpeta generada al servidor estático.
"""
# Prose that shows a directive marker mid-sentence: no dialect opens a block there, so
# whatever the pipeline, the reader sees ``:::``.
RAW = "# Aviso\n\nLos bloques se abren con ::: y se cierran igual.\n"
FAITHFUL = "# Instalar\n\nEjecuta el instalador y sigue los pasos de la pantalla.\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    """`biblioteca import … --json` in this process: (exit status, report, stderr)."""
    status = main(["import", *args, "--json"])
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if captured.out.strip() else None, captured.err


def test_a_swallowed_page_is_never_a_silent_loss(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page after ``<script setup>`` + ``import`` + ``<br>`` is imported; either its
    stored form still holds its last section, or the page is named in ``lossy`` and
    ``--strict`` exits 1: read from the store, not from the report."""
    write(tmp_path / "docs", "guia.md", SWALLOWED)
    write(tmp_path / "docs", "instalar.md", FAITHFUL)
    status, report, _ = run(capsys, str(tmp_path / "docs"), "--type", "guide", "--strict")
    assert report["created"] == 2  # imported all the same
    lossy = {e["file"]: e["kept"] for e in report["fidelity"]["lossy"]}
    stored = open_store(get_settings()).pages.get("guia")
    assert stored is not None
    if "carpeta generada" not in stored.content:
        assert lossy["guia.md"] < 0.98
        assert status == 1
    assert "instalar.md" not in lossy


def test_text_the_site_cannot_show_is_lossy_and_strict_exits_1(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A paragraph 30 quotes deep is past the site renderer's nesting bound: the built
    page would not show it, so the import names the page with the share it keeps."""
    deep = "# Citas\n\nUna frase para empezar.\n\n" + "> " * 30 + "Texto muy hondo que se pierde.\n"
    write(tmp_path / "docs", "citas.md", deep)
    write(tmp_path / "docs", "instalar.md", FAITHFUL)
    status, report, _ = run(capsys, str(tmp_path / "docs"), "--type", "guide", "--strict")
    assert report["created"] == 2
    assert [e["file"] for e in report["fidelity"]["lossy"]] == ["citas.md"]
    assert report["fidelity"]["lossy"][0]["kept"] < 0.7
    assert status == 1
    status, report, _ = run(capsys, str(tmp_path / "docs"), "--type", "guide")
    assert status == 0
    assert report["unchanged"] == 2


def test_source_syntax_shown_is_named_in_the_summary_and_strict_fails(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``:::`` in a sentence reaches the reader as it is: the summary names the page
    and the syntax; ``--strict`` exits 1, a plain import 0."""
    write(tmp_path / "docs", "instalar.md", FAITHFUL)
    write(tmp_path / "docs", "aviso.md", RAW)
    status = main(["import", str(tmp_path / "docs"), "--type", "guide"])
    err = capsys.readouterr().out  # the summary (progress and store lines go to stderr)
    assert status == 0
    assert "fidelity 2 pages: 0 lost words, 1 show source syntax" in err
    assert "  raw     aviso.md: directive «" in err
    status = main(["import", str(tmp_path / "docs"), "--type", "guide", "--strict"])
    err = capsys.readouterr().out
    assert status == 1
    assert "--strict: 0 pages lost words, 1 show source syntax" in err


def test_a_faithful_import_passes_strict(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing lost, nothing raw: ``--strict`` exits 0 and the lists are empty."""
    write(tmp_path / "docs", "instalar.md", FAITHFUL)
    status, report, _ = run(capsys, str(tmp_path / "docs"), "--type", "guide", "--strict")
    assert status == 0
    assert report["fidelity"] == {"pages": 1, "lossy": [], "raw": [], "unknown": {}}


def test_status_shows_the_last_imports_fidelity_and_whether_it_synced(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`status --json` keeps the counts and the files named; the text says them; a
    ``--sync`` import is said to be one (its ``sync`` key exists)."""
    write(tmp_path / "docs", "instalar.md", FAITHFUL)
    write(tmp_path / "docs", "aviso.md", RAW)
    assert main(["import", str(tmp_path / "docs"), "--type", "guide", "--sync"]) == 0
    capsys.readouterr()
    assert main(["status", "--json"]) == 0
    last = json.loads(capsys.readouterr().out)["sync"]["last"]
    assert last["sync"] is True
    assert last["fidelity"] == {
        "pages": 2,
        "lossy": 0,
        "raw": 1,
        "unknown": 0,
        "files": ["aviso.md"],
    }
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "--sync retired 0" in out
    assert "fidelity:  2 pages · 0 lost words, 1 show source syntax" in out
    assert "(aviso.md)" in out


# Ten lines of aliases, nine a level: 387 million strings once expanded.
LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [
        f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]"
        for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)


def test_billion_laughs_fail_their_file_and_the_import_goes_on(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A front matter of laughs fails that page, a ``mkdocs.yml`` of laughs is a warning
    naming it; the other pages are imported (never a ``MemoryError``)."""
    write(tmp_path, "mkdocs.yml", "site_name: Risa\n" + LAUGHS + "\nnav: *i\n")
    write(tmp_path / "docs", "risa.md", f"---\n{LAUGHS}\n---\n# Risa\n\nJa.\n")
    write(tmp_path / "docs", "instalar.md", FAITHFUL)
    _, report, _ = run(capsys, str(tmp_path / "docs"), "--type", "guide")
    assert report["created"] == 1
    assert [f["file"] for f in report["failed"]] == ["risa.md"]
    assert "billion laughs" in json.dumps(report["failed"])
    assert any(
        w["file"] == "mkdocs.yml" and "billion laughs" in w["warning"] for w in report["warnings"]
    ), report["warnings"]
