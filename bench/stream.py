"""Time to first text against the whole answer, streamed, with an upstream that delays tokens.

A fake OpenAI-compatible server (tests/fixtures/openai.py) writes a ~60-token answer
with ``--delay`` seconds between tokens; ``ask`` runs on the demo wiki (the real offline
embedder) with ``BIBLIOTECA_LLM=openai``, through functions-framework's WSGI app, and
the bench reads the response as a client would: the moment the first ``delta`` event's
bytes come out, and the moment ``done`` does. The same question without ``stream`` is
the whole-answer baseline, measured in the same run. Median of ``--runs``.

    .venv/bin/python bench/stream.py [--delay 0.03] [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.openai import serve_fake_openai  # noqa: E402

QUESTION = "¿Cómo se promueve un borrador?"
ANSWER = (
    "Un borrador se promueve cuando un curador lo revisa y cambia su estado a active con "
    "wiki_update [1]. Antes conviene leer sus fuentes, comprobar que el código que cita "
    "existe todavía y corregir lo que haga falta en el texto [1]. Una vez activo, la "
    "página aparece en las respuestas y en el sitio tras la siguiente reconstrucción [2]."
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delay", type=float, default=0.03, help="seconds between tokens")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    fake, server = serve_fake_openai()
    fake.answer = ANSWER
    fake.token_delay_s = args.delay
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(
            {
                "BIBLIOTECA_DATA_DIR": f"{tmp}/data",
                "BIBLIOTECA_LLM": "openai",
                "BIBLIOTECA_LLM_BASE_URL": fake.url,
                "BIBLIOTECA_LLM_MODEL": "delayed",
            }
        )
        import functions_framework

        from shared.bootstrap import wiring
        from shared.demo import load_demo_if_empty

        w = wiring()
        load_demo_if_empty(w.store, w.embedder)
        app = functions_framework.create_app(  # type: ignore[no-untyped-call]
            "ask", str(ROOT / "functions" / "ask" / "main.py")
        )
        client = app.test_client()
        client.post("/", json={"question": QUESTION})  # warm: model, indexes, connection

        first: list[float] = []
        streamed: list[float] = []
        whole: list[float] = []
        for _ in range(args.runs):
            started = time.perf_counter()
            reply = client.post("/", json={"question": QUESTION, "stream": True}, buffered=False)
            seen = b""
            got_first = None
            for part in reply.response:
                seen += part
                if got_first is None and b"event: delta" in seen:
                    got_first = time.perf_counter() - started
            assert b"event: done" in seen, seen[-300:]
            streamed.append(time.perf_counter() - started)
            first.append(got_first or float("nan"))
            started = time.perf_counter()
            assert client.post("/", json={"question": QUESTION}).status_code == 200
            whole.append(time.perf_counter() - started)
    server.shutdown()

    tokens = len(fake.pieces())
    result = {
        "tokens": tokens,
        "delay_s": args.delay,
        "first_text_ms": round(statistics.median(first) * 1000),
        "streamed_done_ms": round(statistics.median(streamed) * 1000),
        "whole_answer_ms": round(statistics.median(whole) * 1000),
    }
    result["first_text_over_whole"] = round(result["first_text_ms"] / result["whole_answer_ms"], 3)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:22s} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
