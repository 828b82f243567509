"""`biblioteca import` of a MkDocs project: blocks, included files, links, nav; the real corpus."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from os.path import normpath
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from shared.bootstrap import open_store
from shared.config import get_settings
from shared.records import PageRecord
from shared.schema import parse_front_matter
from tests.fixtures.files import write
from tests.fixtures.wiring import rebuild
from tests.functions.test_import import run

RAW = ("{*", "///", "!!!", "&lt;dfn", "&lt;abbr", "--8&lt;--", '=== "')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A MkDocs project: mkdocs.yml (with a python tag) and docs/ beside src/."""
    root = tmp_path / "proyecto"
    write(
        root,
        "mkdocs.yml",
        "site_name: Demo\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "nav:\n  - Inicio: index.md\n  - Guía:\n    - guia/uno.md\n    - Dos: guia/dos.md\n"
        "    - Fuera: https://example.org/\n  - falta.md\n",
    )
    write(root, "src/app/main.py", "import os\n\n\ndef main():\n    return 1\n\n\nX = 2\n")
    write(
        root,
        "docs/index.md",
        '# Inicio\n\n!!! tip "Consejo"\n'
        "    Lee la [guía](guia/uno.md#pasos) y [la sección](guia/).\n\n"
        '{* ../src/app/main.py ln[1,4:5] hl[4] title["app/main.py"] *}\n\n'
        "{* ../../docs_src/fuera/app.py hl[2] *}\n\n"
        "```Python\n{!> ../../docs_src/fuera/otro.py!}\n```\n\n"
        '<div class="termy">\n\n```console\n$ <font color="#4E9A06">fastapi</font> dev\n'
        "```\n\n</div>\n",
    )
    write(
        root,
        "docs/guia/uno.md",
        "# Uno\n\n## Pasos { #pasos }\n\nVer [Dos **bien**](dos.md), [inicio](../index.md), "
        "`[código](dos.md)` y [roto](nada.md).\n\n| a | b |\n|---|---|\n| [dos](dos.md) | x |\n",
    )
    write(root, "docs/guia/dos.md", '# Dos\n\n=== "A"\n    uno\n\n=== "B"\n    dos\n')
    write(root, "docs/guia/index.md", "# Guía\n\nÍndice.\n")
    return root / "docs"


def stored(slug: str) -> Any:
    return open_store(get_settings()).pages.get(slug)


def test_mkdocs_bodies_are_stored_in_one_form(
    store_env: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Admonitions and tabs as '///' blocks, links as wiki links with anchors, files inline."""
    status, report = run(capsys, str(project), "--type", "guide")
    assert status == 0, report
    assert report["created"] == 4
    index = stored("index").content
    assert (
        "/// tip | Consejo\n\nLee la [[guia—uno#pasos|guía]] y [[guia—index|la sección]]." in index
    )
    assert (
        '```python hl_lines="3" title="app/main.py"\nimport os\n…\ndef main():\n    return 1\n```'
        in index
    )
    assert "{* ../../docs_src/fuera/app.py hl[2] *}" in index
    assert "{* ../../docs_src/fuera/otro.py *}" in index
    assert "```console\n$ fastapi dev\n```" in index
    assert "termy" not in index
    uno = stored("guia—uno").content
    assert "[[guia—dos|Dos **bien**]]" in uno
    assert "[[index|inicio]]" in uno
    assert "`[código](dos.md)`" in uno
    assert "[roto](nada.md)" in uno
    assert "| [[guia—dos\\|dos]] | x |" in uno
    assert stored("guia—dos").content.count("/// tab | ") == 2


def test_example_files_not_found_become_code_sources(
    store_env: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Includes of absent files are code sources (no last_seen: re-imports stay unchanged)."""
    run(capsys, str(project), "--type", "guide")
    sources = stored("index").front_matter["sources"]
    assert sources == [
        {"type": "code", "ref": "docs_src/fuera/app.py"},
        {"type": "code", "ref": "docs_src/fuera/otro.py"},
    ]
    status, report = run(capsys, str(project))
    assert (status, report["unchanged"], report["updated"]) == (0, 4, 0)


def test_the_mkdocs_nav_is_kept_for_the_site(
    store_env: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """mkdocs.yml's nav is saved by slug with its sections and labels; misses are warnings."""
    _, report = run(capsys, str(project), "--type", "guide")
    assert report["nav"] == 3
    assert open_store(get_settings()).site.load_nav() == {
        "items": [
            {"slug": "index", "title": "Inicio"},
            {
                "title": "Guía",
                "items": [
                    {"slug": "guia—uno"},
                    {"slug": "guia—dos", "title": "Dos"},
                    {"title": "Fuera", "url": "https://example.org/"},
                ],
            },
        ]
    }
    assert {
        "file": "mkdocs.yml",
        "warning": "mkdocs.yml nav: 'falta.md' is not an imported file",
    } in report["warnings"]


def test_the_human_summary_says_the_nav_was_kept(
    store_env: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --json the summary line says how many pages the nav placed."""
    from shared.cli import main

    assert main(["import", str(project), "--type", "guide"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("; mkdocs.yml nav kept (3 pages placed)")


def test_an_imported_project_builds_without_raw_markup(
    store_env: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The built pages show blocks, highlighted code and links; only nada.md is broken."""
    run(capsys, str(project), "--type", "guide")
    report = rebuild(get_settings())
    assert report.broken_links == [{"slug": "guia—uno", "target": "guia—nada", "kind": "page"}]
    site = Path(get_settings().site_location)
    html = (site / "index" / "index.html").read_text(encoding="utf-8")
    assert raw_markup(html) == []
    assert re.search(r'<span class="hll"><span class="k">def</span> <span class="nf">main', html)
    assert "Ejemplo: <code>docs_src/fuera/app.py</code>" in html
    assert 'href="../guia%E2%80%94uno/index.html#pasos"' in html


# -- the real corpus ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_site(
    corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Any, Path]]:
    """The whole FastAPI corpus in its stored form, built once.

    The files go through the import's own parsing and conversion (``stored_files``) and
    are written as records without chunks: embedding all 122 pages takes minutes on a
    shared machine and the site does not read chunks (``import_directory`` itself runs
    on the project above).
    """
    from shared.services.importer import ImportReport, stored_files, tree_of

    base = tmp_path_factory.mktemp("corpus-site")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("BIBLIOTECA_STORE", "BIBLIOTECA_SITE_DIR", "BIBLIOTECA_REPORT_DIR"):
            patch.delenv(name, raising=False)
        patch.setenv("BIBLIOTECA_DATA_DIR", str(base / "data"))
        get_settings.cache_clear()
        store = open_store(get_settings())
        imported = ImportReport()
        now = datetime.now(UTC)
        for _, parsed in stored_files(tree_of(corpus / "docs"), imported):
            front_matter = parse_front_matter({"type": "reference", **parsed.metadata}, "")
            record = PageRecord(parsed.slug, front_matter.dump(), parsed.content, 1, now, now)
            store.pages.create(record, [])
        assert (imported.failed, len(store.pages.list())) == ([], 122)
        report = rebuild(get_settings())
        yield report, Path(get_settings().site_location)
    get_settings.cache_clear()


def built_pages(site: Path) -> dict[str, str]:
    return {
        path.parent.name: path.read_text(encoding="utf-8")
        for path in site.glob("*/index.html")
        if path.parent.name not in ("type", "static")
    }


def test_the_corpus_builds_with_no_raw_directive(corpus_site: tuple[Any, Path]) -> None:
    """Zero raw {*, ///, !!!, &lt;dfn or &lt;abbr in any of the 122 built pages."""
    report, site = corpus_site
    pages = built_pages(site)
    assert len(pages) == 122
    assert report.failed == []
    found = {slug: raw_markup(html) for slug, html in pages.items()}
    assert {slug: raw for slug, raw in found.items() if raw} == {}


def raw_markup(html: str) -> list[str]:
    """Directive syntax left in a page: anywhere for includes, outside code for the rest
    (Python's ``{**d}`` in a code block is code, not an include)."""
    prose = re.sub(r"<pre>.*?</pre>", "", html, flags=re.S)
    found = [raw for raw in RAW if raw in prose]
    return found + re.findall(r"\{\*[ \t]*[\w./-]+\.\w+[^}]*\*\}", html)


def test_every_corpus_link_to_a_page_resolves_and_only_missing_files_are_reported(
    corpus_site: tuple[Any, Path],
) -> None:
    """Every link between built pages leads to one but the two to absent files, and those
    two dead links are exactly what broken_links reports."""
    report, site = corpus_site
    dead = []
    for slug, html in built_pages(site).items():
        for href in re.findall(r'href="([^"#]+\.html)(?:#[^"]*)?"', html):
            # normpath, not resolve(): page folders are links into a pool (see publish)
            if "://" not in href and not Path(normpath(site / slug / unquote(href))).is_file():
                dead.append((slug, href))
        own = html.replace('href="index.md"', "")  # the page's own Markdown is published
        assert not re.search(r'href="(?!https?:)[^"]*\.md(?:#[^"]*)?"', own), slug
    assert dead == [
        ("deployment—versions", "../release-notes/index.html"),
        ("help-fastapi", "../newsletter/index.html"),
    ]
    assert [b for b in report.broken_links if b["kind"] != "asset"] == [
        {"slug": "deployment—versions", "target": "release-notes", "kind": "page"},
        {"slug": "help-fastapi", "target": "newsletter", "kind": "page"},
    ]
    # The Spanish pages' images (/img/…) live in the English docs, outside this tree.
    assets = [b["target"] for b in report.broken_links if b["kind"] == "asset"]
    assert assets
    assert all(target.startswith("img/") for target in assets)


def test_corpus_examples_are_visible_blocks_and_code_sources(corpus_site: tuple[Any, Path]) -> None:
    """FastAPI's {* ../../docs_src/… *} examples show as example blocks naming the file."""
    _, site = corpus_site
    html = built_pages(site)["tutorial—first-steps"]
    assert re.search(r"Ejemplo: <code>docs_src/first_steps/tutorial001_py\w*\.py</code>", html)
    assert "<code>docs_src/first_steps/" in html.split('class="sources"')[1]
