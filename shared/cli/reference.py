"""``docs/cli.md``, the command-line reference, generated from the parser itself.

Every subcommand's usage, help and options come from the ``argparse`` definitions the
``biblioteca`` command runs, so the page cannot drift from the code: ``python -m
shared.cli.reference`` rewrites it (``--check`` only compares; a unit test runs the check).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shared.api.reference import generate
from shared.cli.examples import EXAMPLES

FILE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"

_INTRO = """# Command-line reference

Generated from the parser by `make docs` (`python -m shared.cli.reference`); do not edit by
hand: a unit test fails when this page and the parser disagree.

`make install` puts `biblioteca` in `.venv/bin` (also `python -m shared`). Exit status 0 on
success, 1 when any item failed (after processing the others), 2 on usage errors. Output
is for people by default; `--json`, where a command has it, is for scripts. Every command
first says on stderr which store it uses (`BIBLIOTECA_STORE`, `BIBLIOTECA_DATA_DIR`, see
the README's configuration table).
"""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps no public list of its subcommands
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        names = ", ".join(action.option_strings) or (action.metavar or action.dest)
        value = ""
        if action.option_strings and action.nargs != 0:
            value = " " + str(action.metavar or action.dest.upper())
        parts = [" ".join((action.help or "").split())]
        if action.choices is not None and not isinstance(action.choices, dict):
            parts.append("One of: " + ", ".join(f"`{c}`" for c in action.choices))
        # A flag's default is its absence; a help that states its default (one read from
        # the environment, such as $PORT) says it better than the value seen here.
        stated = "default" in parts[0].lower()
        if action.option_strings and action.nargs != 0 and not stated and action.default:
            parts.append(f"Default `{action.default}`")
        meaning = ". ".join(p.rstrip(".") for p in parts if p) + ("." if any(parts) else "")
        rows.append(f"| `{names}{value}` | {meaning.replace('|', chr(92) + '|')} |")
    return rows


def text() -> str:
    from shared.cli import build_parser

    parser = build_parser([])  # no command chosen: every command's module registers
    helps = _helps(parser)
    lines = [_INTRO]
    for name, sub in _subparsers(parser).items():
        usage = " ".join(sub.format_usage().split()).removeprefix("usage: ")
        lines += [f"## biblioteca {name}", "", helps.get(name, "").strip(), ""]
        lines += ["```", usage, "```", ""]
        if sub.description:
            lines += [" ".join(sub.description.split()), ""]
        rows = _option_rows(sub)
        if rows:
            lines += ["| argument | meaning |", "|---|---|", *rows, ""]
        shown = EXAMPLES.get(name, ())
        if shown:
            lines += ["Examples:", "", "```sh", *shown, "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    return generate(FILE, text, __doc__.split("\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
