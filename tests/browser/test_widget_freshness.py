"""The widget marks a stale source, in a real headless chromium (ES and EN)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import ANSWER, ask, open_with_keyboard
from tests.browser.stub_ask import Reply, StubAsk, default_answer

pytestmark = pytest.mark.browser


def _answer_with(*states: str) -> dict[str, Any]:
    body = default_answer("Una respuesta [1][2].")
    first = body["sources"][0]
    body["sources"] = [
        {**first, "slug": f"guide—p{i}", "title": f"Página {i}", "freshness": state}
        for i, state in enumerate(states)
    ]
    return body


@pytest.mark.parametrize(
    ("lang", "mark"), [("es", "puede estar desactualizada"), ("en", "may be outdated")]
)
def test_only_a_stale_source_gets_the_outdated_mark(
    page: Any, stub: StubAsk, lang: str, mark: str
) -> None:
    """A visible text mark (with its reason on hover) beside the stale source only."""
    stub.queue(Reply(body=_answer_with("fresh", "stale", "unknown")))
    page.goto(stub.page(lang=lang))
    open_with_keyboard(page)
    ask(page, "¿Cómo roto el certificado?")
    page.wait_for_selector(ANSWER)

    items = page.locator(".bib-sources-list li")
    assert items.count() == 3
    marks = [items.nth(i).locator(".bib-stale").count() for i in range(3)]
    assert marks == [0, 1, 0]
    stale = items.nth(1).locator(".bib-stale")
    assert stale.inner_text() == mark
    assert stale.get_attribute("title")
    assert stale.is_visible()
    assert mark in items.nth(1).inner_text()  # read out with the source, not colour alone
