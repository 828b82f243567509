"""What ``ask`` answers, through the real function: the demo wiki's own example, the hedge on
weak evidence (and its record for gap analytics), and a model's answer checked against its
sources (the local fake Gemini API).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from shared.bootstrap import build_embedder, open_store
from shared.config import get_settings
from shared.demo import DEMO_DIR
from shared.retrieval.extractive import HEDGE
from shared.services.importer import import_directory
from tests.fixtures.gemini import FakeGemini

# The ask/Gemini setup those tests use: one page, one question, the fake API switched on.
from tests.functions.test_ask_gemini import PAGE, QUESTION, fresh_limits, use_gemini

__all__ = ["fresh_limits"]  # an autouse fixture: each test starts with fresh rate limits

Client = Callable[[str], Any]


@pytest.fixture
def demo(env: dict[str, str]) -> None:
    """The demo wiki `make run` loads, imported into this test's store."""
    settings = get_settings()
    import_directory(DEMO_DIR, open_store(settings), build_embedder(settings))


def test_the_readme_example_answers_with_the_demo_pages_sentence(
    demo: None, client: Client
) -> None:
    """'¿Cómo se promueve un borrador?' quotes the runbook's answer, cited, confidently."""
    body = client("ask").post("/", json={"question": "¿Cómo se promueve un borrador?"}).get_json()
    assert "Se revisa y se cambia su estado a `active` con `wiki_update`." in body["answer"]
    assert body["sources"][0]["slug"] == "runbook—promover-un-borrador"
    assert body["answer"].index("wiki_update`.") < body["answer"].index("[1]")
    assert body["confidence"] == "high"
    assert "unsupported" not in body


def test_a_neighbouring_question_is_hedged_and_recorded_as_weak(demo: None, client: Client) -> None:
    """Weak evidence: the answer names what the wiki never mentions, confidence is low,
    and the utility hit carries that and the best fused score for gap analytics."""
    body = client("ask").post("/", json={"question": "How do I write a Django migration?"})
    body = body.get_json()
    assert body["confidence"] == "low"
    assert body["answer"].startswith("The wiki doesn't mention Django; the closest:")
    assert body["sources"]  # the closest passages are still given
    hit = open_store(get_settings()).events.recent("utility_hit")[0]
    assert hit["confidence"] == "low"
    assert 0 < hit["best_fused"] < 0.30


def test_a_models_citations_of_passages_never_sent_are_dropped(
    client: Client, auth: dict[str, str], gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One passage was sent: the model's [1] stays, its [4] goes."""
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    use_gemini(monkeypatch, gemini, embedder=False)
    gemini.answer = "`DB_POOL_SIZE` fija las conexiones [1][4]."
    body = client("ask").post("/", json=QUESTION).get_json()
    assert body["answer"] == "`DB_POOL_SIZE` fija las conexiones [1]."
    assert body["confidence"] == "high"


def test_a_model_answer_citing_nothing_is_low_confidence_and_says_so(
    client: Client, auth: dict[str, str], gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Passages were sent and none is cited: low confidence, the hedge opens the answer."""
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    use_gemini(monkeypatch, gemini, embedder=False)
    gemini.answer = "El pool se ajusta con una variable de entorno."
    body = client("ask").post("/", json=QUESTION).get_json()
    assert body["confidence"] == "low"
    assert body["answer"] == f"{HEDGE['es']}\n\nEl pool se ajusta con una variable de entorno."


def test_code_a_model_names_from_nowhere_is_listed_as_unsupported(
    client: Client, auth: dict[str, str], gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names and paths in no passage and not in the code index are listed; indexing the
    path takes it off the list; names the passage has are never listed."""
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    use_gemini(monkeypatch, gemini, embedder=False)
    gemini.answer = "Ajusta `DB_POOL_SIZE` [1] con `make_pool_bigger()` en `src/pool/tuning.py`."
    body = client("ask").post("/", json=QUESTION).get_json()
    assert body["unsupported"] == ["src/pool/tuning.py", "make_pool_bigger"]
    indexed = {"repo": "app", "paths": ["services/src/pool/tuning.py"]}
    assert client("index_code").post("/", json=indexed, headers=auth).status_code == 200
    body = client("ask").post("/", json=QUESTION).get_json()
    assert body["unsupported"] == ["make_pool_bigger"]
