"""An example for every command, shown at the end of its ``--help`` and in docs/cli.md.

Kept in one table so a new command cannot land without one: a unit test fails when a
command the parser knows has no entry here.
"""

from __future__ import annotations

import argparse

EXAMPLES: dict[str, tuple[str, ...]] = {
    "serve": (
        "biblioteca serve --port 8080",
        "BIBLIOTECA_API_TOKEN=dev-token biblioteca serve --demo",
    ),
    "import": (
        "biblioteca import docs --sync",
        "biblioteca import docs --repo . --assets static --json",
        "biblioteca import docs --sync --shard 0/4",
    ),
    "index-code": (
        "biblioteca index-code --repo .",
        "git ls-files > paths.txt && biblioteca index-code --paths-file paths.txt --repo-name app",
    ),
    "rebuild": ("biblioteca rebuild", "biblioteca rebuild --full"),
    "reindex": ("biblioteca reindex",),
    "drafts": ("biblioteca drafts", "biblioteca drafts --json"),
    "show": ("biblioteca show concept—puertas-del-archivo", "biblioteca show p-3f2a9c"),
    "accept": (
        "biblioteca accept concept—puertas-del-archivo",
        "biblioteca accept p-3f2a9c --version 4",
        "biblioteca accept --by enrich:sources",
    ),
    "duplicates": ("biblioteca duplicates", "biblioteca duplicates --min-score 0.8 --json"),
    "merge": ("biblioteca merge guide—pool-de-conexiones runbook—pool --reason 'la misma guía'",),
    "proposals": ("biblioteca proposals", "biblioteca proposals --by enrich --json"),
    "enrich": ("biblioteca enrich --once", "biblioteca enrich --interval 5"),
    "reject": ("biblioteca reject p-3f2a9c --reason 'ya está en la guía'",),
    "history": ("biblioteca history runbook—promover-un-borrador",),
    "diff": ("biblioteca diff runbook—promover-un-borrador", "biblioteca diff guide—x 2 4"),
    "revert": ("biblioteca revert runbook—promover-un-borrador --to 3",),
    "feedback": ("biblioteca feedback --since 7d", "biblioteca feedback --json"),
    "status": ("biblioteca status", "biblioteca status --json"),
    "gaps": ("biblioteca gaps --since 30d",),
    "freshness": ("biblioteca freshness",),
    "ask": (
        'biblioteca ask "¿Cómo se promueve un borrador?"',
        'biblioteca ask "What is a slug?" --mode tutor',
    ),
    "mcp": ("biblioteca mcp", "biblioteca mcp --allow-writes"),
}


def attach(name: str, parser: argparse.ArgumentParser) -> None:
    """Show ``name``'s examples at the end of its ``--help``, as written."""
    examples = EXAMPLES.get(name)
    if not examples:
        return
    parser.epilog = "examples:\n" + "\n".join(f"  {line}" for line in examples)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
