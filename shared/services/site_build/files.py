"""The site's files besides the pages: static files, the code stylesheet, the logo, the
listings, sitemap, llms.txt, search index and shards, nav.js, 404.html, the index page
and the redirect pages of addresses that moved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from shared.config import Settings
from shared.errors import NotConfigured
from shared.ports import SitePublisher
from shared.records import STAGE_INDEX, STAGE_LISTINGS, STAGE_PAGES, Output
from shared.site import highlight, paths, renderer, search
from shared.site.entries import SiteView
from shared.site.manifest import Manifest
from shared.site.redirects import Redirect, redirect_outputs

STATIC = Path(__file__).resolve().parents[2] / "site" / "static"


def site_config(
    settings: Settings, publisher: SitePublisher, imported_name: str | None = None
) -> renderer.SiteConfig:
    """The site's settings; its name is ``BIBLIOTECA_SITE_NAME``, else the one an imported
    tree's generator states (``imported_name``: ``site_name`` in ``mkdocs.yml``, a
    Docusaurus, Starlight or VitePress ``title``), else the default."""
    logo_file = settings.site_logo_file
    named = "site_name" in settings.model_fields_set or not imported_name
    return renderer.SiteConfig(
        ask_url=settings.ask_url,
        code_url=settings.code_url,
        base_url=settings.site_url or publisher.public_url,
        site_name=settings.site_name if named else str(imported_name),
        logo=logo_path(logo_file) if logo_file is not None else settings.site_logo,
    )


def code_stylesheet() -> Output:
    """``static/code.css``: the colours of highlighted code in both themes, generated from
    the Pygments styles the renderer's classes belong to (``shared.site.highlight``)."""
    return Output(f"{paths.STATIC_DIR}/code.css", highlight.stylesheet().encode(), STAGE_PAGES)


def logo_path(file: Path) -> str:
    """Where the site publishes a logo file: ``static/logo.<ext>``."""
    return f"{paths.STATIC_DIR}/logo{file.suffix.lower()}"


def logo_output(settings: Settings) -> list[Output]:
    """The logo file of ``BIBLIOTECA_SITE_LOGO`` as a static file of the site (none for a
    URL). A file that cannot be read is a configuration error, named before anything is
    published, rather than a site whose header shows a broken image."""
    file = settings.site_logo_file
    if file is None:
        return []
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise NotConfigured(
            f"BIBLIOTECA_SITE_LOGO: the logo file {str(file)!r} cannot be read: {exc.strerror}"
        ) from exc
    return [Output(logo_path(file), data, STAGE_PAGES)]


def static_files(folder: Path = STATIC) -> list[Output]:
    """Every file of the static folder, as ``static/<path>`` (dotfiles and Python skipped)."""
    if not folder.is_dir():
        return []
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        skipped = any(part.startswith((".", "__")) for part in relative.split("/"))
        if path.is_file() and not skipped and path.suffix != ".py":
            files.append(Output(f"{paths.STATIC_DIR}/{relative}", path.read_bytes(), STAGE_PAGES))
    return files


def favicon(folder: Path = STATIC) -> Output:
    """``favicon.ico`` at the site's root too: a browser asks for ``/favicon.ico`` on
    every address that has no ``<link rel="icon">`` (a feed, ``llms.txt``, a redirect)."""
    return Output(paths.FAVICON, (folder / paths.FAVICON).read_bytes(), STAGE_PAGES)


def site_files(
    site: SiteView,
    terms: Mapping[str, search.PageTerms],
    split: list[str] | None,
    config: renderer.SiteConfig,
    settings: Settings,
    redirects: Sequence[Redirect] = (),
) -> tuple[list[Output], list[str]]:
    """Static files, listings, sitemap, search index and shards, nav.js, the index page,
    a redirect page at each old address (``redirects``: imported pages' routes in their
    generator, and whatever else moved) that no page or file of the site already takes;
    and the search's split prefixes. ``split`` given: the shards are unchanged since
    the last build (same titles and page terms) and are not built again."""
    out = [*static_files(), favicon(), code_stylesheet(), *logo_output(settings)]
    if split is None:
        shards, split = renderer.render_search_shards(site, terms)
        for path, text in shards.items():
            out.append(Output(path, text.encode(), STAGE_LISTINGS))
    for path, html in renderer.render_section_files(site, config).items():
        out.append(Output(path, html.encode(), STAGE_LISTINGS))
    for page_type in renderer.listing_types(site):
        html = renderer.render_listing(page_type, site, config)
        out.append(Output(paths.listing_path(page_type), html.encode(), STAGE_LISTINGS))
    llms = renderer.render_llms_txt(site, config).encode()
    out.append(Output(paths.LLMS_TXT, llms, STAGE_LISTINGS))
    sitemap = renderer.render_sitemap(site, config).encode()
    out.append(Output(paths.SITEMAP, sitemap, STAGE_LISTINGS))
    nav_script = renderer.render_nav_script(site, split).encode()
    out.append(Output(paths.NAV_SCRIPT, nav_script, STAGE_LISTINGS))
    search_index = renderer.render_search_index(site).encode()
    out.append(Output(paths.SEARCH_INDEX, search_index, STAGE_LISTINGS))
    not_found = renderer.render_not_found(site, config).encode()
    out.append(Output(paths.NOT_FOUND, not_found, STAGE_LISTINGS))
    index = renderer.render_index(site, config).encode()
    out.append(Output(paths.INDEX, index, STAGE_INDEX))
    if redirects:
        taken = {o.path for o in out}
        taken.update(path for slug in site.entries for path in paths.page_files(slug))
        out.extend(redirect_outputs(redirects, taken))
    return out, split


@dataclass(frozen=True, slots=True)
class Shards:
    """The search shards' input key and split prefixes, and the published shards kept
    (not built again: same titles and page terms as the last build)."""

    key: str
    split: list[str] | None
    reused: Mapping[str, str]


def reusable_shards(
    previous: Manifest | None,
    site: SiteView,
    terms: Mapping[str, search.PageTerms],
    full: bool,
) -> Shards:
    """The search shards of the last build are kept when their input did not change."""
    key = search.input_key(site.entries.values(), terms)
    if previous is None or full or previous.search.get("key") != key:
        return Shards(key, None, {})
    folder = f"{search.FOLDER}/"
    reused = {p: h for p, h in previous.files.items() if p.startswith(folder)}
    return Shards(key, [str(k) for k in previous.search.get("split", [])], reused)
