"""Cold start: importing each function's main.py beside the floor, in the same run.

The floor is a fresh interpreter importing functions-framework, pydantic, httpx and
google-cloud-firestore (what any function of this stack pays). Each figure is the
fastest of ``--runs`` fresh interpreters, so a busy machine inflates it least. A last
row, when the official MCP SDK is installed (a test dependency), is what ``mcp`` would
cost built on the SDK's server instead of ``shared/mcp``: why it is not.

    .venv/bin/python bench/cold_start.py [--runs 8] [--json]
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


def fastest(args: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, *args], cwd=ROOT, check=True)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
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
