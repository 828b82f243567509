"""The widget end to end: a built site served by a real ``biblioteca serve``, asked in chromium.

Pages are imported and the site built with the real CLI (``biblioteca import``,
``biblioteca rebuild``); the answers come from the offline extractive synthesizer. One
page's title carries live markup, which that synthesizer copies into its answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.browser.helpers import (
    ANSWER,
    LAUNCHER,
    SETTLED_ANSWER,
    SOURCE_LINKS,
    ask,
    isolated_env,
    open_with_keyboard,
    run_cli,
    wait_for_status,
)

pytestmark = pytest.mark.browser

PAGES = {
    "instalacion.md": """---
title: Instalación del servidor
type: guide
tags: [setup]
---
# Instalación del servidor

Para instalar el servidor ejecuta `pip install biblioteca` dentro de un entorno virtual.
Después arranca el servicio con `biblioteca serve` y abre el navegador en el puerto 8080.

## Requisitos

Necesitas Python 3.11 o más reciente y acceso a internet para descargar los paquetes.
""",
    "copias.md": """---
title: Copias de seguridad
type: runbook
---
# Copias de seguridad

Las copias de seguridad de la base de datos se hacen cada noche y se guardan treinta días.
Para restaurar una copia, detén el servicio y sigue el procedimiento de restauración.
""",
    "marcador.md": """---
title: 'Marcador <img src=x onerror="window.__pwned=1"> hostil <script>window.__pwned=2</script>'
type: reference
---
# Marcador hostil

El marcador hostil sirve para comprobar que el widget nunca ejecuta el marcado de una respuesta.
Un enlace [marcador hostil](javascript:window.__pwned=3) aparece en la página del marcador hostil.
""",
}


@dataclass(frozen=True)
class Site:
    url: str
    data: str


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, serve_shared: Any) -> Site:
    """A data dir with three imported pages and a built site, served by ``biblioteca serve``."""
    work = tmp_path_factory.mktemp("widget-site")
    docs = work / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    data = str(work / "data")
    env = isolated_env(data)
    run_cli(env, "import", str(docs))
    run_cli(env, "rebuild")
    assert (Path(data) / "site" / "static" / "widget.js").is_file()
    return Site(str(serve_shared({"BIBLIOTECA_DATA_DIR": data})), data)


@pytest.fixture
def site(built: Site) -> str:
    return built.url


def test_reader_asks_on_a_built_page_and_follows_a_source(page: Any, site: str) -> None:
    """On a page of the built site: keyboard-open the widget, ask, read, follow a source."""
    page.goto(f"{site}/instalacion/")
    assert "Instalación del servidor" in page.title()
    open_with_keyboard(page)
    ask(page, "¿Cómo instalo el servidor?")
    page.wait_for_selector(SETTLED_ANSWER, timeout=30_000)

    assert "pip install biblioteca" in page.inner_text(ANSWER)
    links = page.locator(SOURCE_LINKS)
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    assert any(h.startswith(f"{site}/instalacion/") for h in hrefs), hrefs
    assert page.locator(".bib-cite").count() >= 1
    assert page.locator(".bib-meta").inner_text().startswith("local-extractive")

    first = links.first
    target = first.get_attribute("href")
    first.click()
    page.wait_for_url(target)
    assert page.locator(LAUNCHER).count() == 1  # the next page carries the widget too


def test_answer_with_markup_from_the_wiki_never_runs(page: Any, site: str) -> None:
    """A real answer quoting <img onerror>, <script> and a javascript: link stays inert."""
    page.goto(f"{site}/")
    open_with_keyboard(page)
    ask(page, "¿Para qué sirve el marcador hostil?")
    page.wait_for_selector(SETTLED_ANSWER, timeout=30_000)
    page.wait_for_timeout(300)  # an injected <img> would have fired onerror by now

    answer = page.inner_text(ANSWER)
    assert '<img src=x onerror="window.__pwned=1">' in answer  # shown, as text
    assert "<script" not in answer  # the import drops a title's script, content and all
    assert page.evaluate("window.__pwned") is None
    assert page.locator(".bib-root img, .bib-root script").count() == 0
    hrefs = page.eval_on_selector_all(".bib-answer a", "links => links.map(a => a.href)")
    assert hrefs
    assert all(h.startswith(f"{site}/") for h in hrefs), hrefs
    assert any(h.startswith(f"{site}/{quote('marcador')}/") for h in hrefs), hrefs


def test_real_rate_limit_shows_the_wait(page: Any, built: Site, serve_shared: Any) -> None:
    """With a limit of one question a minute, the widget's question gets ask's real 429."""
    url = serve_shared({"BIBLIOTECA_DATA_DIR": built.data, "BIBLIOTECA_RATE_LIMIT": "1/minute"})
    first = httpx.post(
        f"{url}/ask", json={"question": "¿Qué es esto?", "mode": "tutor"}, timeout=60
    )
    assert first.status_code == 200
    page.goto(f"{url}/copias/")
    open_with_keyboard(page)
    ask(page, "¿Cuánto duran las copias?")
    text = wait_for_status(page, "dentro de")  # the built site is Spanish: data-lang="es"
    assert text.startswith("Demasiadas preguntas seguidas. Vuelve a intentarlo dentro de ")
    seconds = int(text.split("dentro de ")[1].split()[0])
    assert 0 < seconds <= 60
    assert page.locator(ANSWER).count() == 0


def test_weak_evidence_answer_is_marked_approximate(page: Any, site: str) -> None:
    """A neighbouring question the pages only brush: the real answer hedges and the widget
    shows it as approximate, with the closest page still cited."""
    page.goto(f"{site}/copias/")
    open_with_keyboard(page)
    ask(page, "How do I restore a PostgreSQL backup with pg_restore?")
    page.wait_for_selector(SETTLED_ANSWER, timeout=30_000)

    assert page.locator(".bib-hedge").is_visible()
    # PostgreSQL and pg_restore are nowhere in the wiki: the hedge names them.
    assert page.inner_text(ANSWER).startswith("The wiki doesn't mention PostgreSQL")
    assert page.locator(".bib-markdown-low").count() == 1
    links = page.locator(SOURCE_LINKS)
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    assert any(h.startswith(f"{site}/copias/") for h in hrefs), hrefs


def test_a_citation_opens_the_page_at_its_heading(page: Any, site: str) -> None:
    """The answer's [n] links the cited passage's heading: clicking it lands on the page
    with that heading's id as the fragment, the heading there and scrolled into view."""
    page.goto(f"{site}/copias/")
    open_with_keyboard(page)
    ask(page, "¿Qué versión de Python necesito y hace falta acceso a internet?")
    page.wait_for_selector(SETTLED_ANSWER, timeout=30_000)
    cite = page.locator(".bib-cite").first
    href = cite.get_attribute("href") or ""
    assert href.startswith(f"{site}/instalacion/"), href
    assert href.endswith("#requisitos"), href
    cite.click()
    page.wait_for_url(href)
    heading = page.locator("#requisitos")
    assert heading.inner_text().strip().startswith("Requisitos")
    assert heading.evaluate("h => h.getBoundingClientRect().top") < page.viewport_size["height"]


def test_a_reader_sends_a_thumbs_down_with_a_reason_and_it_reaches_the_store(
    page: Any, site: str, built: Site
) -> None:
    """Under the answer: 👎 opens the reason chips (keyboard focus on the first), a chip
    and a comment are sent to /feedback, the live region thanks, and the vote is stored
    with the answer's trace."""
    from shared.store.sqlite import SqliteStore

    page.goto(f"{site}/copias/")
    open_with_keyboard(page)
    ask(page, "¿Cuántos días se guardan las copias de seguridad?")
    page.wait_for_selector(".bib-feedback", timeout=30_000)
    down = page.locator(".bib-vote-down")
    assert down.get_attribute("aria-label") == "No, esta respuesta no me ayudó"
    assert down.get_attribute("aria-pressed") == "false"
    assert (
        page.locator(".bib-chip").count() == 0 or not page.locator(".bib-chip").first.is_visible()
    )

    down.click()
    assert down.get_attribute("aria-pressed") == "true"
    assert "bib-chip" in str(page.evaluate("document.activeElement.className"))
    chip = page.locator('.bib-chip[data-reason="outdated"]')
    assert chip.inner_text() == "Desactualizada"
    chip.click()
    assert chip.get_attribute("aria-pressed") == "true"
    page.fill(".bib-comment", "Ahora se guardan sesenta días.")
    page.screenshot(path="/tmp/feedback-widget-down.png")
    page.locator(".bib-feedback-send").click()
    page.wait_for_function(
        "() => (document.querySelector('.bib-feedback-status') || {}).textContent"
        ".startsWith('Gracias')"
    )
    page.screenshot(path="/tmp/feedback-widget-sent.png")

    store = SqliteStore(Path(built.data))
    items = [f for f in store.feedback.list() if f.comment == "Ahora se guardan sesenta días."]
    assert len(items) == 1
    [item] = items
    assert (item.rating, item.reason) == ("down", "outdated")
    assert item.question == "¿Cuántos días se guardan las copias de seguridad?"
    assert item.trace is not None
    assert "copias" in [s.slug for s in item.trace.sources]
    assert page.locator(".bib-feedback-status").get_attribute("role") == "status"
