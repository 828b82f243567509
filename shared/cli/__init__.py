"""``biblioteca`` — the command line: serve, import, index-code, rebuild, reindex, drafts,
gaps, freshness, ask and mcp.

Each subcommand lives in its own module with ``register(subparsers)``; its handler
returns the exit status: 0 success, 1 when an item failed, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from shared.errors import BibliotecaError

# Module names under shared.cli, in the order ``--help`` lists them.
COMMANDS = (
    "serve",
    "importer",
    "index_code",
    "rebuild",
    "reindex",
    "drafts",
    "gaps",
    "freshness",
    "ask",
    "mcp",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="biblioteca",
        description="Biblioteca: the wiki's write path, answers, archive and site, locally.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"shared.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except BibliotecaError as exc:
        where = f" ({exc.field})" if exc.field else ""
        print(f"biblioteca: {exc.message}{where}", file=sys.stderr)
        return 2 if exc.status == 400 else 1
    except KeyboardInterrupt:
        return 130
