"""The widget streaming through a real ``biblioteca serve``: text as it comes, Stop, follow-ups.

The slow answers come from a fake OpenAI-compatible server that waits between tokens
(``BIBLIOTECA_LLM=openai``), so the test can see text on the page before the answer
ends and stop it midway; the follow-up test uses the offline answerer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import (
    ANSWER,
    ask,
    isolated_env,
    open_with_keyboard,
    run_cli,
    wait_for_status,
)
from tests.fixtures.openai import FakeOpenAI, serve_fake_openai

pytestmark = pytest.mark.browser

PAGE = """---
title: Copias de seguridad
type: runbook
---
# Copias de seguridad

Las copias de seguridad de la base de datos se hacen cada noche y se guardan treinta días.
Para restaurar una copia, detén el servicio y sigue el procedimiento de restauración.

## Restaurar

La restauración tarda unos diez minutos y se hace con `biblioteca restore`.
"""
SLOW_ANSWER = (
    "Las copias se hacen cada noche y se guardan treinta días [1]. Para restaurar una, "
    "detén el servicio y sigue el procedimiento de restauración [1]. Tarda unos diez "
    "minutos [1]."
)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A data dir with one imported page and a built site."""
    work = tmp_path_factory.mktemp("widget-stream")
    (work / "docs").mkdir()
    (work / "docs" / "copias.md").write_text(PAGE, encoding="utf-8")
    env = isolated_env(str(work / "data"))
    run_cli(env, "import", str(work / "docs"))
    run_cli(env, "rebuild")
    assert (Path(env["BIBLIOTECA_DATA_DIR"]) / "site" / "copias" / "index.html").is_file()
    return env["BIBLIOTECA_DATA_DIR"]


@pytest.fixture(scope="module")
def slow_model() -> Iterator[FakeOpenAI]:
    fake, server = serve_fake_openai()
    fake.answer = SLOW_ANSWER
    fake.token_delay_s = 0.25  # 27 tokens: about 7 s for the whole answer
    yield fake
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def slow_site(data: str, slow_model: FakeOpenAI, serve_shared: Any) -> str:
    env = {
        "BIBLIOTECA_DATA_DIR": data,
        "BIBLIOTECA_LLM": "openai",
        "BIBLIOTECA_LLM_BASE_URL": slow_model.url,
        "BIBLIOTECA_LLM_MODEL": "slow-model",
    }
    return str(serve_shared(env))


def live_text(page: Any) -> str:
    return str(page.evaluate("(document.querySelector('.bib-live') || {}).textContent || ''"))


def test_the_answer_shows_as_it_is_written_then_settles(page: Any, slow_site: str) -> None:
    """Text appears while the model still writes (Stop offered); done replaces it, checked."""
    page.goto(f"{slow_site}/copias/")
    open_with_keyboard(page)
    ask(page, "¿Cuánto tiempo se guardan las copias?")
    page.wait_for_function(
        "() => ((document.querySelector('.bib-live') || {}).textContent || '').length > 0",
        timeout=20_000,
    )
    early = live_text(page)
    assert early
    assert len(early) < len(SLOW_ANSWER) // 2  # seen long before the end
    assert page.locator(".bib-cancel").inner_text() == "Detener"
    page.wait_for_selector(".bib-feedback", timeout=30_000)  # the done event: a whole answer
    assert page.locator(".bib-live").count() == 0
    assert "se guardan treinta días" in page.inner_text(ANSWER)
    assert page.locator(".bib-cite").count() >= 1
    assert page.locator(".bib-cancel").is_hidden()


def test_stop_ends_the_answer_midway_and_keeps_what_was_written(page: Any, slow_site: str) -> None:
    """Stop aborts the stream: the partial text stays, marked, and nothing more arrives."""
    page.goto(f"{slow_site}/copias/")
    open_with_keyboard(page)
    ask(page, "¿Cómo restauro una copia?")
    page.wait_for_function(
        "() => ((document.querySelector('.bib-live') || {}).textContent || '').length > 10",
        timeout=20_000,
    )
    page.locator(".bib-cancel").click()
    assert wait_for_status(page, "Detenida").startswith("Detenida")
    stopped = live_text(page)
    page.wait_for_timeout(1200)  # several tokens' worth
    assert live_text(page) == stopped
    assert 0 < len(stopped) < len(SLOW_ANSWER)
    assert page.locator(".bib-stopped").count() == 1
    assert page.locator(".bib-feedback").count() == 0
    assert page.locator(".bib-submit").is_enabled()


def test_a_follow_up_is_sent_with_the_conversation(page: Any, data: str, serve_shared: Any) -> None:
    """The second question carries the first as history; the thread shows it; a new
    conversation forgets it."""
    site = str(serve_shared({"BIBLIOTECA_DATA_DIR": data}))
    bodies: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            bodies.append(json.loads(r.post_data or "{}")) if r.url.endswith("/ask") else None
        ),
    )
    page.goto(f"{site}/copias/")
    open_with_keyboard(page)
    ask(page, "¿Cuántos días se guardan las copias de seguridad?")
    page.wait_for_selector(".bib-feedback", timeout=30_000)
    page.locator(".bib-input").fill("")
    page.locator(".bib-input").focus()
    ask(page, "¿y cómo se restauran?")
    page.wait_for_function("() => document.querySelectorAll('.bib-turn').length === 1")
    page.wait_for_selector(".bib-feedback", timeout=30_000)

    assert bodies[0]["stream"] is True
    assert "history" not in bodies[0]
    assert [t["question"] for t in bodies[1]["history"]] == [
        "¿Cuántos días se guardan las copias de seguridad?"
    ]
    assert bodies[1]["history"][0]["answer"]
    assert page.locator(".bib-turn").inner_text() == bodies[0]["question"]
    assert "restaur" in page.inner_text(ANSWER).lower()
    page.locator(".bib-new").click()
    assert page.locator(".bib-thread").is_hidden()
    assert page.locator(".bib-answer").inner_text() == ""
