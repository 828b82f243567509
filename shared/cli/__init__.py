"""``biblioteca`` — the command line: serve, import, index-code, rebuild, reindex, drafts,
show, accept, reject, proposals, enrich, history, diff, revert, duplicates, merge, feedback,
status, gaps,
freshness, ask and mcp.

Each subcommand lives in its own module with ``register(subparsers)``; its handler
returns the exit status: 0 success, 1 when an item failed, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from shared.cli import examples
from shared.cli.output import plain
from shared.errors import BibliotecaError

# Module names under shared.cli, in the order ``--help`` lists them, by command name.
COMMANDS = (
    "serve",
    "importer",
    "index_code",
    "rebuild",
    "reindex",
    "drafts",
    "show",
    "accept",
    "reject",
    "proposals",
    "enrich",
    "history",
    "diff",
    "revert",
    "duplicates",
    "merge",
    "feedback",
    "status",
    "gaps",
    "freshness",
    "ask",
    "mcp",
)
NAMES = {"importer": "import", "index_code": "index-code"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the arguments, only the chosen command's module is imported.

    Each command's module imports what it runs (flask for serve, the ask services…):
    importing all of them to parse ``biblioteca rebuild`` cost about half a second of
    start-up. The other commands are still named, so a mistyped one is refused the same.
    """
    parser = _Parser(
        prog="biblioteca",
        description="Biblioteca: the wiki's write path, answers, archive and site, locally.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    chosen = _chosen(argv)
    for name in COMMANDS:
        command = NAMES.get(name, name)
        if chosen is None or chosen == command:
            importlib.import_module(f"shared.cli.{name}").register(subparsers)
            examples.attach(command, subparsers.choices[command])
        else:
            subparsers.add_parser(command)
    return parser


def _chosen(argv: Sequence[str] | None) -> str | None:
    """The command named by ``argv`` when it is one of ours (else every module loads)."""
    for arg in sys.argv[1:] if argv is None else argv:
        if not arg.startswith("-"):
            known = {NAMES.get(name, name) for name in COMMANDS}
            return arg if arg in known else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser(argv).parse_args(argv)
    from shared.cli.store_choice import after, choose

    try:
        choice = choose(str(args.command))  # before any setting is read
        prepare = getattr(args, "prepare", None)
        if prepare is not None:  # a command that sets its environment before any read
            prepare(args)
        _announce_store(args, choice.why)
        status = int(args.handler(args))
        after(str(args.command), choice, status)
        return status
    except BibliotecaError as exc:
        where = f" ({exc.field})" if exc.field else ""
        print(plain(f"biblioteca: {exc.full_message}{where}"), file=sys.stderr)
        return 2 if exc.status == 400 else 1
    except KeyboardInterrupt:
        return 130
    finally:
        # A command that answered a question may have started storing the search index
        # in a thread of its own: the wiring lets it finish, so the process never exits
        # in the middle of it (an interpreter torn down under a running save can abort).
        from shared.bootstrap import close

        close()


def _announce_store(args: argparse.Namespace, why: str) -> None:
    """Every command uses the store: say which one, and why, on stderr (stdout is the
    result)."""
    from shared.bootstrap import open_store
    from shared.cli.store_note import announce
    from shared.config import get_settings

    settings = get_settings()
    announce(str(args.command), args, settings, lambda: open_store(settings), why)
