"""Cold start: importing each function's main.py beside the floor, in the same run; and
``--first-answer``: process start to the first answer of a fresh ``ask`` instance.

The floor is a fresh interpreter importing functions-framework, pydantic, httpx and
google-cloud-firestore (what any function of this stack pays). Each figure is the
fastest of ``--runs`` fresh interpreters, so a busy machine inflates it least. A last
row, when the official MCP SDK is installed (a test dependency), is what ``mcp`` would
cost built on the SDK's server instead of ``shared/mcp``: why it is not.

    .venv/bin/python bench/cold_start.py [--runs 8] [--json]
    .venv/bin/python bench/cold_start.py --first-answer [--runs 5]

``--first-answer`` loads the demo wiki into a temporary store once, then times fresh
interpreters that import ``functions/ask/main.py``, build functions-framework's app and
answer one help question on the offline default (the local embedder and extractive
answerer) through its test client, beside the interpreter's floors (``python -c pass``,
``import shared``) measured in the same run: with the converted, memory-mapped model
(``BIBLIOTECA_MODEL_CACHE``, as deployed) and with the wheel's own loading (``off``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOOR = "import functions_framework, pydantic, httpx, google.cloud.firestore"
LOAD = (
    "import importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('main', sys.argv[1])\n"
    "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
)
# The SDK's low-level server and its streamable HTTP session manager (ASGI): what a
# function serving MCP through the SDK would import on top of its own main.py.
SDK_SERVER = "import mcp.server.lowlevel, mcp.server.streamable_http_manager\n"


def fastest(args: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, *args], cwd=ROOT, check=True, env=env, stdout=subprocess.DEVNULL
        )
        best = min(best, time.perf_counter() - started)
    return best


FIRST_ANSWER = (
    "import functions_framework, sys\n"
    "app = functions_framework.create_app('ask', sys.argv[1])\n"
    "reply = app.test_client().post('/', json={'question': sys.argv[2]})\n"
    "assert reply.status_code == 200 and reply.get_json()['sources'], reply.get_data()\n"
)
QUESTION = "¿Cómo se promueve un borrador?"


def first_answer(runs: int, as_json: bool) -> int:
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("BIBLIOTECA_")},
            "BIBLIOTECA_DATA_DIR": f"{tmp}/data",
            "BIBLIOTECA_MODEL_CACHE": f"{tmp}/models",
        }
        # As deployed: the wiki is there, the model converted, and an earlier instance's
        # first question stored the lexical index's snapshot (docs/scale.md).
        load = (
            "import functions_framework, sys\n"
            "from shared.bootstrap import wiring\n"
            "from shared.demo import load_demo_if_empty\n"
            "w = wiring()\n"
            "assert load_demo_if_empty(w.store, w.embedder) > 0\n"
            "app = functions_framework.create_app('ask', sys.argv[1])\n"
            "assert app.test_client().post('/', json={'question': 'x'}).status_code == 200\n"
            "w.close()  # the snapshot save it started ends before the process\n"
        )
        main_py = str(ROOT / "functions" / "ask" / "main.py")
        subprocess.run(
            [sys.executable, "-c", load, main_py],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        ask = ["-c", FIRST_ANSWER, str(ROOT / "functions" / "ask" / "main.py"), QUESTION]
        rows = {
            "python -c pass": fastest(["-c", "pass"], runs, env),
            "import shared": fastest(["-c", "import shared.bootstrap"], runs, env),
            "first answer, model mapped": fastest(ask, runs, env),
            "first answer, wheel loading": fastest(
                ask, runs, {**env, "BIBLIOTECA_MODEL_CACHE": "off"}
            ),
        }
    if as_json:
        print(json.dumps({k: round(v * 1000) for k, v in rows.items()}))
    else:
        for name, seconds in rows.items():
            print(f"{name:28s} {seconds * 1000:6.0f} ms")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--first-answer", action="store_true")
    args = parser.parse_args()
    if args.first_answer:
        return first_answer(args.runs, args.json)
    floor = fastest(["-c", FLOOR], args.runs)
    rows = {"floor": floor}
    for main_py in sorted((ROOT / "functions").glob("*/main.py")):
        rows[main_py.parent.name] = fastest(["-c", LOAD, str(main_py)], args.runs)
    if importlib.util.find_spec("mcp") is not None:
        main_py = ROOT / "functions" / "mcp" / "main.py"
        rows["mcp+sdk"] = fastest(["-c", LOAD + SDK_SERVER, str(main_py)], args.runs)
    if args.json:
        print(
            json.dumps(
                {
                    k: {"ms": round(v * 1000), "x_floor": round(v / floor, 2)}
                    for k, v in rows.items()
                }
            )
        )
    else:
        for name, seconds in rows.items():
            print(f"{name:12s} {seconds * 1000:6.0f} ms  {seconds / floor:4.2f}x floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
