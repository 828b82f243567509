"""Imported assets cannot script the site: an SVG with scripts, handlers and a
foreignObject, opened in chromium from a site built and served by ``biblioteca serve``,
sets nothing on the page's window."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import isolated_env, run_cli

EVIL_SVG = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"
  onload="window.__xss = 'onload'">
  <script>window.__xss = 'script'</script>
  <foreignObject width="20" height="20">
    <div xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="window.__xss='fo'"/></div>
  </foreignObject>
  <set attributeName="href" to="javascript:window.__xss='set'"/>
  <rect width="20" height="20" fill="#3a7"/>
</svg>
"""
PAGE = """---
title: Diagrama
type: guide
---
# Diagrama

El diagrama de la arquitectura muestra los servicios.

![diagrama](img/evil.svg)
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, serve_shared: Any) -> str:
    work = tmp_path_factory.mktemp("evil-assets")
    (work / "docs" / "img").mkdir(parents=True)
    (work / "docs" / "diagrama.md").write_text(PAGE, encoding="utf-8")
    (work / "docs" / "img" / "evil.svg").write_text(EVIL_SVG, encoding="utf-8")
    data = str(work / "data")
    env = isolated_env(data)
    run_cli(env, "import", str(work / "docs"))
    run_cli(env, "rebuild")
    return str(serve_shared({"BIBLIOTECA_DATA_DIR": data}))


def test_an_svg_opened_from_the_site_runs_nothing(page: Any, site: str) -> None:
    """The page shows the drawing; opened by its own address, the SVG sets no
    window.__xss (scripts, handlers, foreignObject and link animations are gone)."""
    page.goto(f"{site}/diagrama/")
    image = page.locator("img[alt='diagrama']")
    source = image.get_attribute("src")
    assert source is not None
    assert "_assets/" in source
    assert page.evaluate("window.__xss") is None
    response = page.goto(image.evaluate("i => i.src"))
    assert response is not None
    assert response.status == 200
    page.wait_for_timeout(300)  # an onload or a <set> would have run by now
    assert page.evaluate("window.__xss") is None
    assert "sandbox" in response.headers["content-security-policy"]
    assert page.locator("rect").count() == 1  # the drawing itself is kept
