"""The widget on the site a team already has (docs/widget.md): a page of a real corpus,
in MkDocs Material's output shape and served from another origin than ``biblioteca
serve``, carries the tag, and a reader asks through it in chromium.

The team's page is the corpus page itself (``fastapi-es/docs/environment-variables.md``)
rendered by markdown-it inside Material's page shell (``md-header``, ``md-content``,
``md-typeset``), as ``mkdocs build`` writes ``environment-variables/index.html``. The same
page is imported into the store ``serve`` answers from. It includes the widget the two
ways docs/widget.md shows: the script tag itself (a theme override, Docusaurus
``scripts``, Starlight/VitePress ``head``, plain HTML) and the loader that MkDocs'
``extra_javascript`` lists (an entry there cannot carry data attributes, so the loader
adds the tag). The answer comes cross-origin, allowed by ``BIBLIOTECA_ALLOWED_ORIGINS``;
without it the browser blocks the request.
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from tests.browser.helpers import (
    ANSWER,
    SETTLED_ANSWER,
    SOURCE_LINKS,
    ask,
    isolated_env,
    open_with_keyboard,
    run_cli,
)

pytestmark = pytest.mark.browser

CORPUS_PAGE = "environment-variables.md"
QUESTION = "¿Qué es una variable de entorno?"

# Material's page shell, trimmed to the parts that shape the page (header, content column).
PAGE = """<!doctype html>
<html lang="es" class="no-js">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.5.0">
<title>{title} - FastAPI</title>
{head}
</head>
<body dir="ltr">
<header class="md-header" data-md-component="header"><nav class="md-header__inner md-grid">
<div class="md-header__title"><span class="md-ellipsis">FastAPI</span></div></nav></header>
<div class="md-container" data-md-component="container"><main class="md-main">
<div class="md-main__inner md-grid"><div class="md-content" data-md-component="content">
<article class="md-content__inner md-typeset">
{article}
</article></div></div></main></div>
{body}
</body>
</html>
"""

# docs/js/biblioteca.js of docs/widget.md; mkdocs writes the tag with a page-relative src.
LOADER = """(function () {{
  var css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = "{serve}/static/widget.css";
  document.head.appendChild(css);
  var s = document.createElement("script");
  s.src = "{serve}/static/widget.js";
  s.setAttribute("data-ask-url", "{serve}/ask");
  s.setAttribute("data-lang", "es");
  document.body.appendChild(s);
}})();
"""

_MKDOCS_ATTR = re.compile(r"\s*\{\s*#[\w-]+\s*\}")


@pytest.fixture(scope="module")
def source(corpus: Path) -> Path:
    return corpus / "docs" / CORPUS_PAGE


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory, source: Path) -> str:
    """A data dir with the corpus page imported (no --type: a docs tree has none)."""
    work = tmp_path_factory.mktemp("widget-elsewhere")
    docs = work / "docs"
    docs.mkdir()
    shutil.copy(source, docs / CORPUS_PAGE)
    env = isolated_env(str(work / "data"))
    run_cli(env, "import", str(docs))
    run_cli(env, "rebuild")
    return str(work / "data")


def _team_site(folder: Path, source: Path, serve: str, how: str) -> str:
    """Write the team's built page (and the loader) pointing at the Biblioteca server;
    return its path on the team's origin."""
    markdown = _MKDOCS_ATTR.sub("", source.read_text(encoding="utf-8"))
    title = markdown.splitlines()[0].lstrip("# ").strip()
    if how == "tag":
        head = f'<link rel="stylesheet" href="{serve}/static/widget.css">'
        body = (
            f'<script src="{serve}/static/widget.js" defer data-ask-url="{serve}/ask"'
            ' data-lang="es"></script>'
        )
    else:
        head = ""
        body = '<script src="../js/biblioteca.js"></script>'
        (folder / "js").mkdir(parents=True, exist_ok=True)
        (folder / "js" / "biblioteca.js").write_text(LOADER.format(serve=serve))
    route = source.stem
    (folder / route).mkdir(parents=True, exist_ok=True)
    article = MarkdownIt().render(markdown)
    (folder / route / "index.html").write_text(
        PAGE.format(title=html.escape(title), head=head, article=article, body=body),
        encoding="utf-8",
    )
    return f"/{route}/"


@pytest.mark.parametrize("how", ["tag", "loader"])
def test_a_reader_asks_through_the_widget_on_a_mkdocs_page_of_another_origin(
    page: Any,
    data: str,
    source: Path,
    how: str,
    tmp_path: Path,
    static_site: Callable[[Path], str],
    serve_shared: Any,
) -> None:
    """On the corpus page built in MkDocs Material's shape and served by another origin,
    the widget (tag or extra_javascript loader) answers (CORS allowed for that origin)
    with a source on the Biblioteca site."""
    team = tmp_path / "team"
    team.mkdir()
    origin = static_site(team).rstrip("/")
    serve = serve_shared({"BIBLIOTECA_DATA_DIR": data, "BIBLIOTECA_ALLOWED_ORIGINS": origin})
    assert serve.split(":")[-1] != origin.split(":")[-1]  # two origins
    path = _team_site(team, source, serve, how)

    page.goto(f"{origin}{path}")
    assert page.inner_text("article h1") == "Variables de Entorno"
    open_with_keyboard(page)
    ask(page, QUESTION)
    page.wait_for_selector(SETTLED_ANSWER, timeout=30_000)
    assert "variables de entorno" in page.inner_text(ANSWER).lower()
    links = page.eval_on_selector_all(
        SOURCE_LINKS, "links => links.map(a => [a.href, a.textContent])"
    )
    assert any(
        href.startswith(f"{serve}/") and "Variables de Entorno" in text for href, text in links
    ), links
    page.screenshot(path=f"/tmp/biblioteca-widget-elsewhere-{how}.png")


def test_without_the_origin_allowed_the_browser_blocks_the_answer(
    page: Any,
    data: str,
    source: Path,
    tmp_path: Path,
    static_site: Callable[[Path], str],
    serve_shared: Any,
) -> None:
    """The same page with BIBLIOTECA_ALLOWED_ORIGINS unset: the browser refuses the
    cross-origin answer, none shows, and the widget says the service could not be
    reached (what a team sees before setting CORS)."""
    team = tmp_path / "team"
    team.mkdir()
    origin = static_site(team).rstrip("/")
    serve = serve_shared({"BIBLIOTECA_DATA_DIR": data})
    path = _team_site(team, source, serve, "tag")
    page.goto(f"{origin}{path}")
    open_with_keyboard(page)
    ask(page, QUESTION)
    page.wait_for_function(
        "() => /No se pudo|no responde|conexión/i.test("
        "(document.querySelector('.bib-status') || {}).textContent || '')",
        timeout=30_000,
    )
    assert page.locator(ANSWER).count() == 0
