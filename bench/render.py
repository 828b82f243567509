"""Body rendering cost: hostile 200 KB pages and the FastAPI corpus, now and at an older commit.

    .venv/bin/python bench/render.py [--before REV] [--json]

``--before`` loads ``shared/site/markdown.py`` as it was at REV (a commit whose renderer
was one module, e.g. d70ae4a) and renders the same inputs with it in the same run.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = (
    Path(
        os.environ.get("BIBLIOTECA_TEST_CORPUS") or ROOT.parent / "shared" / "corpus" / "fastapi-es"
    )
    / "docs"
)
SIZE = 200_000

HOSTILE: dict[str, str] = {
    "'[[' repeated": "[[" * (SIZE // 2),
    "'[[abc ' repeated": "[[abc " * (SIZE // 6),
    "'[' repeated": "[" * SIZE,
    "'[' repeated, one ']' at the end": "[" * SIZE + "]",
    "a heading ending in '{ #xxx…'": "# a { #" + "x" * SIZE + "\n",
    "10,000 equal headings": "## Uso\n\n" * 10_000,
    "'<abbr>' then '</dfn>' x 8,000": "<abbr>" * 8000 + "</dfn>" * 8000,
}


def renderer_at(rev: str) -> Callable[[str], Any]:
    """``render_body`` of ``shared/site/markdown.py`` at ``rev``, as a module of its own."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:shared/site/markdown.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "markdown_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("markdown_before", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.render_body  # type: ignore[no-any-return]


def seconds(render: Callable[[str], Any], texts: list[str]) -> float:
    started = time.perf_counter()
    for text in texts:
        render(text)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also render with the renderer at REV")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from shared.site.markdown import render_body

    renderers: dict[str, Callable[[str], Any]] = {"now": render_body}
    if args.before:
        renderers["before"] = renderer_at(args.before)
    corpus = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*.md"))]
    gc.disable()  # as builds do (site_build.run._collector_paused)
    rows: dict[str, dict[str, float]] = {}
    for name, render in renderers.items():
        render("warm up")
        # The corpus: best of three, so one busy moment does not decide.
        rows.setdefault(f"corpus ({len(corpus)} pages)", {})[name] = min(
            seconds(render, corpus) for _ in range(3)
        )
        for case, text in HOSTILE.items():
            rows.setdefault(case, {})[name] = seconds(render, [text])
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'input':40s} " + " ".join(f"{n:>10s}" for n in renderers) + "   before/now")
    for case, times in rows.items():
        ratio = f"{times['before'] / times['now']:10.1f}" if "before" in times else ""
        cells = " ".join(f"{times[n]:9.2f}s" for n in renderers)
        print(f"{case:40s} {cells} {ratio}")


if __name__ == "__main__":
    main()
