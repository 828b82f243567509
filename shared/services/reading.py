"""What an agent reads: one page whole, as the ``get_page`` tool shows it."""

from __future__ import annotations

from shared.api.models import PageView
from shared.gates.staleness import state_of
from shared.ports import Store
from shared.services.wiki import read_page
from shared.site.paths import page_url


def page_view(slug: str, store: Store, *, unpublished: bool, site_url: str | None) -> PageView:
    """The page ``slug`` with its content, freshness and address on the published site;
    a draft or archived page only when ``unpublished`` (a caller that may write)."""
    page = read_page(slug, store, unpublished=unpublished)
    return PageView.model_construct(
        **PageView.fields_of(page),
        content=page.content,
        freshness=state_of(page.freshness),
        url=page_url(site_url, page.slug),
    )
