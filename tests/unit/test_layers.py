"""The import direction the README promises: entry point -> service -> the features of the
core -> the stored form and text rules -> ports and records -> the foundation, adapters
behind the ports, and only the composition root and the edge knowing adapters.

Each module of ``shared/`` (and each ``functions/*/main.py``) is put in one layer by its
path; every import of another layer must go down this list. The core's features
(retrieval, gates, dialects, site, the loop) are siblings: none imports another, so each
can change without the others; what two of them share lives in the stored form below
them. The scribes' agents (de-duplication, enrichment) sit above the features they read
with. Every import form counts: ``import shared.x``, ``from shared.x import y``,
``from shared import x`` and relative imports, inside functions and ``TYPE_CHECKING``
blocks too. A new module lands in a layer by where it is written, so the rule needs no
upkeep.
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
    "agents",
    "features",
    "form",
    "ports",
    "records",
    "foundation",
)
_EDGE = {"http", "request_body", "cli", "mcp", "demo", "__main__"}
_ADAPTERS = {"store", "providers", "publish"}
# The scribes' agents read pages with the features' own rules (retrieval's sentences,
# the gates' prose) and keep their pure state in forms the stores encode.
_AGENTS = {"enrich", "dedup"}
_FEATURES = {"retrieval", "gates", "dialects", "importing", "site", "loop"}
# Packages that are one feature: the import's one parse and named transforms
# (``importing``) read the dialects' constructs.
_SAME_FEATURE = {"importing": "dialects"}
_FORM = {"text", "mkdocs", "normalize", "schema", "stored"}
_FOUNDATION = {"config", "errors", "logs", "clock", "json_value", "workers"}
# Adapters implement ports and may use pure helpers (chunk keys, snapshot encoding), but a
# service never reaches an adapter: it is handed one by the root.
_FORBIDDEN = {("services", "adapters")}


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "functions":
        return "entry"
    top = parts[1] if len(parts) > 1 else ""
    if not top:  # the package's own __init__: nothing but its docstring
        return "foundation"
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
    if top in _AGENTS:
        return "agents"
    if top in _FEATURES:
        return "features"
    if top in _FORM:
        return "form"
    if top == "ports":
        return "ports"
    if top == "records":  # the values the ports carry, below them
        return "records"
    if top in _FOUNDATION:
        return "foundation"
    raise AssertionError(f"{module}: no layer; name its package in tests/unit/test_layers.py")


def feature(module: str) -> str | None:
    """The core feature a module belongs to (``retrieval``, ``site``…), or None."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in _FEATURES:
        return None
    return _SAME_FEATURE.get(parts[1], parts[1])


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in [*(ROOT / "shared").rglob("*.py"), *(ROOT / "functions").glob("*/main.py")]:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found.append((name, path))
    return found


def _wrong(module: str, path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    return wrong_imports(module, source, package=path.name == "__init__.py")


def imports_of(module: str, source: str, *, package: bool = False) -> list[tuple[int, str]]:
    """Every ``shared`` module that ``source`` (the text of ``module``, a package's
    ``__init__`` when ``package``) imports, in every form: ``from shared import x`` is
    ``shared.x``, a relative import is resolved."""
    here = module.split(".") if package else module.split(".")[:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here[: len(here) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # ``from pkg import name``: name may be a module of pkg; count it as one.
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in out if name.split(".")[0] == "shared"]


def wrong_imports(module: str, source: str, *, package: bool = False) -> list[str]:
    mine = layer(module)
    wrong = []
    for line, imported in imports_of(module, source, package=package):
        theirs = _known_layer(imported)
        if theirs is None:
            continue
        upward = ORDER.index(theirs) < ORDER.index(mine)
        across = mine == theirs == "features" and feature(module) != feature(imported)
        if upward or across or (mine, theirs) in _FORBIDDEN:
            wrong.append(f"{module}:{line} ({mine}) imports {imported} ({theirs})")
    return wrong


def _known_layer(imported: str) -> str | None:
    """The layer of an imported name; ``shared.x.name`` may name an object of ``shared.x``,
    so the longest prefix that is a module decides (``shared`` alone is no module's layer)."""
    parts = imported.split(".")
    if len(parts) < 2:
        return None
    return layer(imported)


def test_every_import_goes_down_the_layers() -> None:
    """No feature of the core imports another, a service, the root or the edge; nothing
    below the features imports one; no service imports an adapter."""
    wrong = [
        f"{path.relative_to(ROOT)}: {problem}"
        for module, path in _modules()
        for problem in _wrong(module, path)
    ]
    assert wrong == []


def test_every_module_has_a_layer() -> None:
    """A package no layer names fails here instead of passing unseen."""
    assert {layer(module) for module, _ in _modules()} <= set(ORDER)


def test_the_rule_sees_every_forbidden_form() -> None:
    """The rule itself, on the forms that once slipped through: ``from shared import x``,
    a relative import, a lazy import, one feature importing another, and the stored form
    importing a feature."""
    cases = {
        ("shared.text.language", "from shared.retrieval import glossary\n"),
        ("shared.dialects.mdx", "from shared.site.md_html import ALLOWED_TAGS\n"),
        ("shared.site.renderer", "from ..gates import staleness\n"),
        ("shared.retrieval.answer_checks", "def f():\n    import shared.gates.code_paths\n"),
        ("shared.gates.meta", "from shared import bootstrap\n"),
        ("shared.services.ask", "from shared.store import sqlite\n"),
        ("shared.schema", "from shared.site import nav\n"),
    }
    for module, source in cases:
        assert wrong_imports(module, source), f"{module}: {source!r} passed"
    assert wrong_imports("shared.site.renderer", "from shared.text import plaintext\n") == []
    assert wrong_imports("shared.site.renderer", "from . import nav\n") == []
    assert wrong_imports("shared.services.ask", "from shared import retrieval\n") == []


def test_the_text_rules_sit_under_the_rest_of_the_core() -> None:
    """The stored form and text rules use only the foundation, the records and each other."""
    allowed = {"form", "records", "foundation"}
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {imported}"
        for module, path in _modules()
        if layer(module) == "form"
        for line, imported in imports_of(
            module, path.read_text(encoding="utf-8"), package=path.name == "__init__.py"
        )
        if _known_layer(imported) not in allowed | {None}
    ]
    assert wrong == []
