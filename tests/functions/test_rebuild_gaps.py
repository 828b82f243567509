"""Gap signals anonymous traffic grows stay off the rebuild's path: each question's vector
is kept with its hit, so the curator report embeds nothing, and an incremental build with
nothing to build costs about the same with 2,000 signals as with none."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.api.models import AskRequest
from shared.bootstrap import Wiring
from shared.config import get_settings
from shared.services import ask as asking
from shared.services.site_build import build_site
from tests.fixtures.embedder import HashingEmbedder
from tests.functions.test_rebuild import put


class Counting(HashingEmbedder):
    """The deterministic embedder, counting the documents it embeds."""

    documents = 0

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.documents += len(texts)
        return super().embed_documents(texts)


def weak_questions(store: Any, embedder: Counting, count: int) -> None:
    """``count`` distinct questions the wiki answers weakly, recorded as ``ask`` does."""
    for i in range(count):
        question = asking.as_question(
            AskRequest.parse(
                {"question": f"¿Cómo se configura el módulo {i} del servicio {i * 7}?"}
            )
        )
        vector = embedder.embed_query(question.text)
        asking.record_hit(
            store,
            question,
            [],
            "local",
            1.0,
            confidence="low",
            best_fused=0.0,
            vector=vector,
            embedder=embedder.name,
        )


def incremental(store: Any, embedder: Counting) -> tuple[float, dict[str, Any]]:
    w = Wiring(get_settings(), store=store, embedder=embedder)
    best, body = float("inf"), {}
    for _ in range(3):  # the best of three: the machine is shared
        started = time.perf_counter()
        report = build_site(
            w.settings,
            store=store,
            publisher=w.publisher(),
            curator_report=w.curator_report(),
            embedder=embedder,
        )
        best = min(best, time.perf_counter() - started)
        body = report.response().body()
        assert body["status"] == "ok", body
    return best, body


def test_a_rebuild_with_2000_signals_costs_about_what_one_with_none_does(store: Any) -> None:
    """Nothing is embedded for the curator report (what made it 94.5 s against 36–56 ms
    with the local model: every signal re-embedded) and its time is in timings_ms. The
    cost ratio is bench/gap_signals.py's to measure; the bound here (50× a build of at
    least 100 ms) is meant for a gross regression, not a busy machine's noise."""
    embedder = Counting()
    put(store, "concept—a")
    incremental(store, embedder)  # the first (full) build
    none, _ = incremental(store, embedder)
    weak_questions(store, embedder, 2000)
    embedder.documents = 0
    many, body = incremental(store, embedder)
    assert embedder.documents == 0
    assert "curator_report" in body["timings_ms"]
    # Against a floor of 100 ms, a real wiki's incremental build: on the emulator, reading
    # 2,000 hits alone takes ~0.5 s (a bare 50 ms baseline made a 10× bound flake at 11,
    # and an absolute 1 s bound failed at 1.06 s on a loaded CI machine).
    assert many / max(none, 0.1) < 50, (many, none)
