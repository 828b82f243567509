"""BIBLIOTECA_SITE_NAME and BIBLIOTECA_SITE_LOGO: validated once, shown in the header,
every <title> and llms.txt (contract, "Site settings"); a logo file is published."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.config import load_settings
from shared.errors import NotConfigured
from shared.services.site_build import logo_output, site_config
from shared.site import renderer
from tests.unit.test_site_renderer import page, rendered, site_of


class _Publisher:
    location = "/tmp/site"
    public_url = None


def test_the_name_defaults_to_biblioteca_and_is_one_line() -> None:
    assert load_settings({}).site_name == "Biblioteca"
    assert load_settings({"BIBLIOTECA_SITE_NAME": "  "}).site_name == "Biblioteca"
    assert load_settings({"BIBLIOTECA_SITE_NAME": " Docs\n del  equipo "}).site_name == (
        "Docs del equipo"
    )


@pytest.mark.parametrize(
    "logo",
    ["javascript:alert(1)", "data:image/svg+xml,<svg/>", "ftp://x/logo.png", "logo.exe", "x"],
)
def test_a_logo_is_an_http_url_or_an_image_file(logo: str) -> None:
    with pytest.raises(NotConfigured, match="BIBLIOTECA_SITE_LOGO"):
        load_settings({"BIBLIOTECA_SITE_LOGO": logo})


def test_the_name_and_logo_are_in_the_header_title_and_llms_txt() -> None:
    config = renderer.SiteConfig(site_name='Equipo <b>"Núcleo"</b>', logo="static/logo.svg")
    html = rendered(page("concept—uno", title="Uno"), config=config)
    assert "<title>Uno · Equipo &lt;b&gt;&#34;Núcleo&#34;&lt;/b&gt;</title>" in html
    assert '<img class="logo" src="../static/logo.svg" alt=""' in html
    assert "<span>Equipo &lt;b&gt;&#34;Núcleo&#34;&lt;/b&gt;</span>" in html
    site = site_of(page("concept—uno", title="Uno"))
    index = renderer.render_index(site, config)
    assert '<img class="logo" src="static/logo.svg"' in index
    assert "Biblioteca" not in index
    llms = renderer.render_llms_txt(site, renderer.SiteConfig(site_name="Docs [del] equipo"))
    assert llms.startswith("# Docs (del) equipo\n")
    url = renderer.SiteConfig(logo="https://cdn.example/logo.png")
    assert 'src="https://cdn.example/logo.png"' in rendered(page("concept—dos"), config=url)
    assert renderer.SiteConfig(site_name="A").key() != renderer.SiteConfig(site_name="B").key()


def test_a_logo_file_is_published_as_a_static_file(tmp_path: Path) -> None:
    logo = tmp_path / "Marca.SVG"
    logo.write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    settings = load_settings({"BIBLIOTECA_SITE_LOGO": str(logo), "BIBLIOTECA_SITE_NAME": "X"})
    config = site_config(settings, _Publisher())  # type: ignore[arg-type]
    assert (config.logo, config.site_name) == ("static/logo.svg", "X")
    [output] = logo_output(settings)
    assert (output.path, output.data) == ("static/logo.svg", logo.read_bytes())
    url = load_settings({"BIBLIOTECA_SITE_LOGO": "https://cdn.example/l.png"})
    assert site_config(url, _Publisher()).logo == "https://cdn.example/l.png"  # type: ignore[arg-type]
    assert logo_output(url) == []
    logo.unlink()
    with pytest.raises(NotConfigured, match=r"BIBLIOTECA_SITE_LOGO.*cannot be read"):
        logo_output(settings)
