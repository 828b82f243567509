"""The import direction the README promises: entry point -> service -> pure core -> ports,
adapters behind the ports, and only the composition root and the edge knowing adapters.

Each module of ``shared/`` (and each ``functions/*/main.py``) is put in one layer by its
path; every ``import`` of another layer must go down this list (or to the shared
foundation: settings, errors, logs). A new module lands in a
layer by where it is written, so the rule needs no upkeep.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Top to bottom; a layer may import itself and any layer below it.
ORDER = (
    "entry",
    "edge",
    "root",
    "services",
    "api",
    "adapters",
    "core",
    "ports",
    "records",
    "foundation",
)
_EDGE = {"http", "request_body", "cli", "mcp", "demo", "__main__"}
_ADAPTERS = {"store", "providers", "publish"}
_FOUNDATION = {"config", "errors", "logs", "clock"}
# Adapters implement ports and may use pure helpers (chunk keys, snapshot encoding), but a
# service never reaches an adapter: it is handed one by the root.
_FORBIDDEN = {("services", "adapters")}


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "functions":
        return "entry"
    top = parts[1] if len(parts) > 1 else ""
    if top in _EDGE:
        return "edge"
    if top == "bootstrap":
        return "root"
    if top == "services":
        return "services"
    if top in _ADAPTERS:
        return "adapters"
    if top == "api":  # the request and response models, built on the one schema
        return "api"
    if top == "ports":
        return "ports"
    if top == "records":  # the values the ports carry, below them
        return "records"
    if top in _FOUNDATION:
        return "foundation"
    return "core"


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in [*(ROOT / "shared").rglob("*.py"), *(ROOT / "functions").glob("*/main.py")]:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found.append((name, path))
    return found


def _imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return [(line, name) for line, name in out if name.split(".")[0] == "shared"]


def test_every_import_goes_down_the_layers() -> None:
    """No pure core, port or adapter imports a service, the root or the edge; no service
    imports an adapter (imports inside functions and TYPE_CHECKING blocks count too)."""
    wrong = []
    for module, path in _modules():
        mine = layer(module)
        for line, imported in _imports(path):
            theirs = layer(imported)
            upward = ORDER.index(theirs) < ORDER.index(mine)
            if upward or (mine, theirs) in _FORBIDDEN:
                wrong.append(
                    f"{path.relative_to(ROOT)}:{line} ({mine}) imports {imported} ({theirs})"
                )
    assert wrong == []


def test_the_layer_rule_sees_a_wrong_import() -> None:
    """The rule itself: a core module importing a service, or a service an adapter, is wrong."""
    assert ORDER.index(layer("shared.services.ask")) < ORDER.index(layer("shared.retrieval.x"))
    assert ("services", layer("shared.store.sqlite")) in _FORBIDDEN
    assert layer("functions.ask.main") == "entry"
    assert layer("shared.cli.serve") == "edge"
    assert ORDER.index(layer("shared.ports")) < ORDER.index(layer("shared.records"))


def test_the_moved_modules_land_in_their_layers() -> None:
    """The text rules and the loop's pure parts are core, the clock is foundation (every
    layer reads it, the stores too), the demo package is edge (it imports the wiki)."""
    assert layer("shared.text.fold") == layer("shared.text.since") == "core"
    assert layer("shared.loop.gap_groups") == layer("shared.gates.staleness") == "core"
    assert layer("shared.clock") == "foundation"
    assert layer("shared.demo") == "edge"


# What the text rules may build on: the foundation and two leaf modules of plain data and
# syntax. Everything else (retrieval, the site, gates) uses them, so they use none of it.
_TEXT_BASE = ("shared.text", "shared.clock", "shared.errors", "shared.mkdocs")
_TEXT_LEAVES = {"shared.retrieval.glossary"}


def _named_imports(path: Path) -> list[tuple[int, str]]:
    """Like ``_imports``, with ``from shared import x`` read as ``shared.x``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "shared":
            out += [(node.lineno, f"shared.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in out if name.split(".")[0] == "shared"]


def test_the_text_rules_sit_under_the_rest_of_the_core() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {imported}"
        for module, path in _modules()
        if module.startswith("shared.text")
        for line, imported in _named_imports(path)
        if not imported.startswith(_TEXT_BASE) and imported not in _TEXT_LEAVES
    ]
    assert wrong == []
