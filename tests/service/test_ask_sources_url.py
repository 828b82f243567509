"""Each ask source opens the page at its heading: the anchor the site renders for it, and a
heading and snippet in plain text (issue 20, contract "ask, third round")."""

from __future__ import annotations

from urllib.parse import quote

from shared.site.anchors import section_anchor
from shared.site.markdown import heading_anchors, render_body
from tests.service.conftest import Call

BODY = """# Despliegue

Intro del despliegue.

## Instalación { #installation }

Se instala con pip.

### Con `Docker`

El contenedor de **Docker** arranca el servidor de réplicas con `docker run` y el puerto 8080.

## Uso

### Con `Docker`

Otra cosa distinta sobre Docker en uso diario.
"""


def test_a_source_url_carries_the_anchor_the_site_renders_for_its_heading(call: Call) -> None:
    """The url's anchor is an id of the rendered page, the one of the passage's heading
    (a repeated heading text gets the site's numbered id); the heading is plain text."""
    status, created = call(
        "wiki_create", {"content": BODY, "front_matter": {"title": "Despliegue", "type": "guide"}}
    )
    assert status == 201, created
    status, body = call("ask", {"question": "¿Cómo arranca el contenedor de Docker las réplicas?"})
    assert status == 200, body
    first = body["sources"][0]
    assert first["heading"] == "Instalación › Con Docker"
    assert first["url"] == f"{quote(created['slug'], safe='')}/index.html#con-docker"
    assert 'id="con-docker"' in render_body(BODY).html
    assert "**" not in first["snippet"]
    assert "`" not in first["snippet"]


def test_the_anchor_follows_the_parents_of_a_repeated_heading() -> None:
    """Two '### Con Docker' headings: each path finds its own id; an unknown path none."""
    headings = heading_anchors(BODY)
    assert section_anchor(headings, "Instalación › Con `Docker`") == "con-docker"
    assert section_anchor(headings, "Uso › Con `Docker`") == "con-docker-2"
    assert section_anchor(headings, "Instalación") == "installation"
    assert section_anchor(headings, "Despliegue") == "despliegue"
    assert section_anchor(headings, "No existe") == ""
