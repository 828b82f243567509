"""The help widget in a real headless chromium, against a scripted local ``/ask`` server."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.helpers import (
    ANSWER,
    LAUNCHER,
    PANEL,
    SOURCE_LINKS,
    ask,
    focused_class,
    open_with_keyboard,
    status_text,
    wait_for_status,
)
from tests.browser.stub_ask import Reply, StubAsk, default_answer

pytestmark = pytest.mark.browser

HOSTILE = "\n\n".join(
    [
        'Mira <img src=x onerror="window.__pwned = 1"> esto.',
        "<script>window.__pwned = 2</script>",
        "[haz clic](javascript:window.__pwned=3) y [datos](data:text/html,<script>x</script>)",
        '- <a href="javascript:window.__pwned=4">enlace</a>',
        '**<svg onload="window.__pwned=5">** y `<iframe src="javascript:1">`',
        '```html\n<img src=y onerror="window.__pwned=6">\n```',
    ]
)


def test_keyboard_user_asks_and_gets_answer_with_source_links(page: Any, stub: StubAsk) -> None:
    """Tab to the launcher, Enter, type, Enter: the answer and a link per source appear."""
    page.goto(stub.page())
    open_with_keyboard(page)
    assert page.get_attribute(LAUNCHER, "aria-expanded") == "true"

    ask(page, "¿Cómo instalo?")
    page.wait_for_selector(ANSWER)

    assert page.inner_text(ANSWER).startswith("Una respuesta [1]")
    links = page.locator(SOURCE_LINKS)
    assert links.count() == 1
    assert links.first.inner_text() == "Primeros pasos"
    expected = f"{stub.base}/site/{quote('guide—primeros-pasos')}/"
    assert links.first.get_attribute("href") == expected
    cite = page.locator(".bib-cite")
    assert cite.get_attribute("href") == expected
    assert stub.requests == [
        {
            "_content_type": "application/json",
            "question": "¿Cómo instalo?",
            "mode": "help",
            "stream": True,
        }
    ]


def test_escape_closes_panel_and_focus_returns_to_launcher(page: Any, stub: StubAsk) -> None:
    """Escape closes the dialog and puts focus back on the launcher."""
    page.goto(stub.page())
    open_with_keyboard(page)
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{PANEL}:not([open])", state="attached")
    assert "bib-launcher" in focused_class(page)
    assert page.get_attribute(LAUNCHER, "aria-expanded") == "false"


def test_tab_stays_inside_open_panel(page: Any, stub: StubAsk) -> None:
    """With the panel open, Tab and Shift+Tab cycle among the panel's own controls."""
    page.goto(stub.page())
    open_with_keyboard(page)
    inside = "document.querySelector('.bib-panel').contains(document.activeElement)"
    for key in ["Tab"] * 5 + ["Shift+Tab"] * 7:
        page.keyboard.press(key)
        assert page.evaluate(inside), f"focus left the panel after {key}"


def test_hostile_answer_markup_is_shown_as_text_and_never_runs(page: Any, stub: StubAsk) -> None:
    """HTML, script and javascript:/data: links in an answer stay inert text."""
    body = default_answer(HOSTILE)
    body["sources"].append(
        {"slug": "javascript:alert(1)", "title": '<img src=x onerror="window.__pwned=7">'}
    )
    stub.queue(Reply(body=body))
    page.goto(stub.page())
    open_with_keyboard(page)
    ask(page, "muéstrame algo peligroso")
    page.wait_for_selector(ANSWER)
    page.wait_for_timeout(300)  # an injected <img> would have fired onerror by now

    assert page.evaluate("window.__pwned") is None
    assert page.locator("img, script:not([src]), svg, iframe").count() == 0
    answer = page.inner_text(ANSWER)
    assert '<img src=x onerror="window.__pwned = 1">' in answer
    assert "<script>window.__pwned = 2</script>" in answer
    hrefs = page.eval_on_selector_all(".bib-answer a", "links => links.map(a => a.href)")
    assert not [h for h in hrefs if not h.startswith(stub.base)], hrefs
    assert "haz clic" in answer  # the refused link keeps its words
    sources = page.locator(".bib-sources-list li")
    assert sources.count() == 2
    assert sources.nth(1).locator("a").count() == 0  # a slug that is not a slug gets no link
    assert '<img src=x onerror="window.__pwned=7">' in sources.nth(1).inner_text()


def test_rate_limited_answer_says_when_to_retry(page: Any, stub: StubAsk) -> None:
    """A 429 shows the Retry-After wait, in the page's language."""
    stub.queue(
        Reply(
            status=429,
            body={"error": "rate limited", "code": "rate_limited"},
            headers={"Retry-After": "17"},
        )
    )
    page.goto(stub.page(lang="es"))
    open_with_keyboard(page)
    ask(page, "¿otra vez?")
    text = wait_for_status(page, "17")
    assert text == "Demasiadas preguntas seguidas. Vuelve a intentarlo dentro de 17 segundos."
    assert page.locator(ANSWER).count() == 0
    assert page.is_enabled(".bib-submit")


@pytest.mark.parametrize("status", [500, 503])
def test_server_error_shows_a_clear_message(page: Any, stub: StubAsk, status: int) -> None:
    """A 5xx says the service has a problem and names the status."""
    stub.queue(Reply(status=status, body={"error": "internal error", "code": "internal_error"}))
    page.goto(stub.page())
    open_with_keyboard(page)
    ask(page, "hello?")
    text = wait_for_status(page, f"HTTP {status}")
    assert text.startswith("The help service has a problem right now")


def test_bad_request_shows_the_server_message(page: Any, stub: StubAsk) -> None:
    """A 4xx shows the contract's human-readable ``error`` text."""
    stub.queue(
        Reply(
            status=400,
            body={
                "error": "question must be at most 2000 characters",
                "code": "validation_error",
                "field": "question",
            },
        )
    )
    page.goto(stub.page())
    open_with_keyboard(page)
    ask(page, "x")
    text = wait_for_status(page, "2000")
    assert text == "The question was not accepted: question must be at most 2000 characters"


def test_offline_browser_says_so(page: Any, stub: StubAsk) -> None:
    """With the network off, the widget says the user is offline and sends nothing."""
    page.goto(stub.page())
    open_with_keyboard(page)
    page.context.set_offline(True)
    ask(page, "¿hay alguien?")
    text = wait_for_status(page, "offline")
    assert text.startswith("You appear to be offline")
    assert stub.requests == []


def test_unreachable_service_is_a_network_error(page: Any, stub: StubAsk) -> None:
    """When the ask URL does not answer at all, the message says it could not be reached."""
    page.goto(stub.page(**{"ask-url": "http://127.0.0.1:9/ask"}))
    open_with_keyboard(page)
    ask(page, "¿hola?")
    text = wait_for_status(page, "Could not reach")
    assert "Check your connection" in text


def test_progress_is_shown_and_cancel_stops_waiting(page: Any, stub: StubAsk) -> None:
    """While waiting the panel shows progress and Cancel; Cancel ends the wait at once."""
    stub.queue(Reply(body=default_answer(), delay_s=3))
    page.goto(stub.page())
    open_with_keyboard(page)
    ask(page, "lento")
    page.wait_for_selector(".bib-spinner")
    assert page.get_attribute(".bib-answer", "aria-busy") == "true"
    assert not page.is_enabled(".bib-submit")
    page.click(".bib-cancel")
    assert wait_for_status(page, "Cancelled") == "Cancelled."
    assert page.get_attribute(".bib-answer", "aria-busy") == "false"
    assert page.is_hidden(".bib-cancel")
    assert page.locator(ANSWER).count() == 0


def test_slow_answer_times_out(page: Any, stub: StubAsk) -> None:
    """``data-timeout`` bounds the wait; the request is aborted with a message."""
    stub.queue(Reply(body=default_answer(), delay_s=3))
    page.goto(stub.page(timeout="1"))
    open_with_keyboard(page)
    ask(page, "lento")
    text = wait_for_status(page, "No answer after 1 seconds")
    assert "shorter question" in text


def test_filters_and_limit_come_from_data_attributes(page: Any, stub: StubAsk) -> None:
    """``data-source-type``/``category``/``tag``/``limit`` are posted with the question."""
    page.goto(
        stub.page(**{"source-type": "runbook", "category": "ops", "tag": "deploy"}, limit="3")
    )
    open_with_keyboard(page)
    ask(page, "¿cómo despliego?")
    page.wait_for_selector(ANSWER)
    assert stub.requests[0] == {
        "_content_type": "application/json",
        "question": "¿cómo despliego?",
        "mode": "help",
        "stream": True,
        "limit": 3,
        "source_type": "runbook",
        "category": "ops",
        "tag": "deploy",
    }


def test_blank_question_is_not_sent(page: Any, stub: StubAsk) -> None:
    """Enter on an empty box asks for a question instead of posting one."""
    page.goto(stub.page())
    open_with_keyboard(page)
    page.keyboard.press("Enter")
    assert status_text(page) == "Write a question first."
    assert stub.requests == []


def test_included_twice_adds_one_widget_and_one_global(page: Any, stub: StubAsk) -> None:
    """Two script tags give one launcher; the script's only global is BibliotecaWidget."""
    page.goto(f"{stub.base}/site/plain/")
    before = set(page.evaluate("Object.getOwnPropertyNames(window)"))
    for _ in range(2):
        page.add_script_tag(url=f"{stub.base}/site/static/widget.js")
    page.wait_for_selector(LAUNCHER)
    after = set(page.evaluate("Object.getOwnPropertyNames(window)"))
    assert after - before == {"BibliotecaWidget"}
    assert page.locator(".bib-root").count() == 1

    page.goto(stub.page(twice="1"))
    page.wait_for_selector(LAUNCHER)
    assert page.locator(".bib-root").count() == 1


def test_spanish_strings_follow_data_lang(page: Any, stub: StubAsk) -> None:
    """``data-lang="es"`` gives Spanish labels; without it the page's ``lang`` decides."""
    page.goto(stub.page(lang="es"))
    assert page.inner_text(LAUNCHER).strip() == "?Preguntar a la documentación".replace("?", "?\n")
    page.goto(stub.page(html_lang="es-ES"))
    assert page.get_attribute(".bib-close", "aria-label") == "Cerrar"
    page.goto(stub.page(html_lang="fr"))
    assert page.get_attribute(".bib-close", "aria-label") == "Close"


MARKDOWN = """Intro with **bold**, *em*, `a<b>` and [a page](/otra/) [1][2] [9].

- one
- two with [[guide—primeros-pasos|the guide]]
  continued

1. first
2. second

```python
print("<b>hi</b>")
```

> quoted"""


def test_markdown_subset_builds_the_expected_elements(page: Any, stub: StubAsk) -> None:
    """Paragraphs, lists, code, fences, emphasis, links, wiki links and citations."""
    page.goto(stub.page())
    page.wait_for_selector(LAUNCHER)
    sources = [{"slug": "a", "title": "Page A"}, {"slug": "b", "title": "Page B"}]
    shape = page.evaluate(
        """([md, sources]) => {
            const box = document.createElement('div');
            box.appendChild(BibliotecaWidget.renderMarkdown(md, sources));
            const all = s => [...box.querySelectorAll(s)];
            return {
                blocks: [...box.children].map(e => e.tagName),
                strong: all('strong').map(e => e.textContent),
                em: all('em').map(e => e.textContent),
                code: all('p code').map(e => e.textContent),
                pre: all('pre code').map(e => [e.className, e.textContent]),
                ul: all('ul > li').map(e => e.textContent),
                ol: all('ol > li').map(e => e.textContent),
                links: all('a').map(e => [e.textContent, e.getAttribute('href')]),
                quote: all('blockquote').map(e => e.textContent),
            };
        }""",
        [MARKDOWN, sources],
    )
    root = f"{stub.base}/site/"
    assert shape["blocks"] == ["P", "UL", "OL", "PRE", "BLOCKQUOTE"]
    assert shape["strong"] == ["bold"]
    assert shape["em"] == ["em"]
    assert shape["code"] == ["a<b>"]
    assert shape["pre"] == [["language-python", 'print("<b>hi</b>")']]
    assert [" ".join(li.split()) for li in shape["ul"]] == ["one", "two with the guide continued"]
    assert shape["ol"] == ["first", "second"]
    assert shape["links"] == [
        ["a page", f"{stub.base}/otra/"],
        ["1", f"{root}a/"],
        ["2", f"{root}b/"],
        ["the guide", f"{root}{quote('guide—primeros-pasos')}/"],
    ]
    assert shape["quote"] == ["quoted"]


def test_low_confidence_answer_is_shown_as_approximate(page: Any, stub: StubAsk) -> None:
    """confidence "low": a notice before the answer, the answer marked apart; "high": neither."""
    weak = default_answer(
        "La wiki no parece tratar esto directamente; lo más cercano:\n\nAlgo [1]."
    )
    weak["confidence"] = "low"
    strong = default_answer()
    strong["confidence"] = "high"
    stub.queue(Reply(body=weak), Reply(body=strong))
    page.goto(stub.page(lang="es"))
    open_with_keyboard(page)
    ask(page, "¿Cómo configuro Django?")
    page.wait_for_selector(ANSWER)

    notice = page.locator(".bib-answer .bib-hedge")
    assert notice.inner_text() == (
        "Respuesta aproximada: la wiki no parece tratar esta pregunta directamente."
    )
    assert notice.get_attribute("role") == "note"
    answer = page.locator(".bib-answer .bib-markdown-low")
    assert answer.get_attribute("aria-describedby") == notice.get_attribute("id")
    assert answer.evaluate("e => getComputedStyle(e).borderLeftStyle") == "dashed"
    assert page.evaluate(
        "() => { const r = document.querySelector('.bib-hedge').getBoundingClientRect();"
        " return r.width > 0 && r.height > 0; }"
    )

    page.fill(".bib-input", "¿Y CORS?")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('.bib-hedge')")
    page.wait_for_selector(ANSWER)
    assert page.locator(".bib-markdown-low").count() == 0


# -- 👍/👎 under an answer ---------------------------------------------------------------


def _answer_with_id() -> Reply:
    return Reply(body={**default_answer(), "answer_id": "a" * 32})


def test_keyboard_thumbs_up_in_english_posts_once_and_thanks(page: Any, stub: StubAsk) -> None:
    """English labels; Space on 👍 marks it pressed, posts the vote to the sibling
    /feedback URL with the answer's id and question, and the live region thanks."""
    stub.queue(_answer_with_id(), Reply(body={"recorded": True, "id": "f1"}))
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.goto(stub.page(lang="en"))
    open_with_keyboard(page)
    ask(page, "How do I install it?")
    page.wait_for_selector(".bib-feedback")
    up = page.locator(".bib-vote-up")
    assert up.get_attribute("aria-label") == "Yes, this answer helped"
    assert page.locator(".bib-vote-down").get_attribute("aria-label") == (
        "No, this answer did not help"
    )
    assert page.locator(".bib-feedback").get_attribute("role") == "group"

    up.focus()
    page.keyboard.press("Space")
    page.wait_for_function(
        "() => document.querySelector('.bib-feedback-status').textContent.length > 0"
    )

    assert page.locator(".bib-feedback-status").inner_text() == "Thanks for your feedback."
    assert up.get_attribute("aria-pressed") == "true"
    assert posts == [f"{stub.base}/ask", f"{stub.base}/feedback"]
    assert stub.requests[-1] == {
        "_content_type": "application/json",
        "rating": "up",
        "answer_id": "a" * 32,
        "question": "How do I install it?",
    }


def test_thumbs_down_with_the_keyboard_and_a_refused_post_says_so(page: Any, stub: StubAsk) -> None:
    """👎 opens the chips with focus on the first; Enter picks it; a 429 from /feedback is
    said in the live region and the controls come back for another try."""
    stub.queue(_answer_with_id(), Reply(status=429, body={"error": "slow down"}))
    page.goto(stub.page(lang="en"))
    open_with_keyboard(page)
    ask(page, "How do I install it?")
    page.wait_for_selector(".bib-feedback")
    page.locator(".bib-vote-down").focus()
    page.keyboard.press("Enter")
    assert "bib-chip" in focused_class(page)
    labels = page.locator(".bib-chip").all_inner_texts()
    assert labels == ["Incorrect", "Outdated", "Missing information", "Unclear", "Other"]
    page.keyboard.press("Enter")  # the first chip: incorrect
    assert page.locator(".bib-chip").first.get_attribute("aria-pressed") == "true"
    page.locator(".bib-feedback-send").click()
    page.wait_for_function(
        "() => document.querySelector('.bib-feedback-status').textContent.length > 0"
    )

    assert page.locator(".bib-feedback-status").inner_text() == (
        "Your feedback could not be sent (HTTP 429)."
    )
    assert page.locator(".bib-feedback-send").is_enabled()
    assert stub.requests[-1]["rating"] == "down"
    assert stub.requests[-1]["reason"] == "incorrect"
    assert "comment" not in stub.requests[-1]


def test_an_answer_without_an_id_has_no_thumbs(page: Any, stub: StubAsk) -> None:
    """Tutor answers and older servers carry no answer_id: nothing to rate."""
    page.goto(stub.page())
    open_with_keyboard(page)
    ask(page, "¿Cómo instalo?")
    page.wait_for_selector(ANSWER)
    assert page.locator(".bib-feedback").count() == 0


def test_sources_show_each_page_once_with_its_headings_under_it(page: Any, stub: StubAsk) -> None:
    """Three passages of one page and one of another: two entries, the first page's
    headings listed under it with their citation numbers; a link without words shows the
    page's title; a fence's title is shown above its code, not as ```[.env]."""
    body = default_answer(
        "Ver [[guide—primeros-pasos]] [1].\n\n```[.env]\nAPI_KEY=1\n```\n\n"
        '```sh title="setup.sh"\nexport A=1\n```'
    )
    first = body["sources"][0]
    body["sources"] = [
        first,
        first | {"heading": "Configuración"},
        {"slug": "guide—otra", "title": "Otra guía", "heading": "Otra guía", "score": 0.5},
        first | {"heading": "Uso"},
    ]
    stub.queue(Reply(body=body))
    page.goto(stub.page())
    open_with_keyboard(page)
    ask(page, "¿Cómo instalo?")
    page.wait_for_selector(ANSWER)

    entries = page.locator(".bib-sources-list > li")
    assert entries.count() == 2
    parts = entries.nth(0).locator(".bib-source-part")
    assert [parts.nth(i).inner_text() for i in range(3)] == [
        "Instalación [1]",
        "Configuración [2]",
        "Uso [4]",
    ]
    assert entries.nth(1).inner_text().startswith("Otra guía [3]")
    answer = page.locator(ANSWER)
    assert answer.locator("a").first.inner_text() == "Primeros pasos"
    assert "guide—primeros-pasos" not in answer.inner_text()
    titles = answer.locator(".bib-code-title")
    assert [titles.nth(i).inner_text() for i in range(titles.count())] == [".env", "setup.sh"]
    assert "```" not in answer.inner_text()
    assert "[.env]" not in answer.inner_text()
    assert answer.locator("pre code.language-sh").count() == 1
