"""``biblioteca mcp``: the agents' tools over stdio (the Model Context Protocol), on the
configured store; read-only unless started with ``--allow-writes``.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import setup
from shared.errors import Unauthorized
from shared.mcp.stdio import serve
from shared.mcp.tools import Caller


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp", help="serve the wiki's tools to an agent over stdio (Model Context Protocol)"
    )
    parser.add_argument(
        "--allow-writes",
        action="store_true",
        help="let the agent call propose_page and propose_update (drafts and versioned "
        "updates, through the write path); without it the tools only read",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)  # logs to stderr: stdout carries the protocol and nothing else
    # The local user owns the local store: the command line is their credential, and
    # --allow-writes is how they lend it to the agent.
    caller = Caller(
        may_write=args.allow_writes,
        refusal=None
        if args.allow_writes
        else Unauthorized(
            "this biblioteca mcp is read-only: restart it with --allow-writes to let "
            "agents propose pages"
        ),
    )
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    return serve(stdin, stdout, wiring(), caller)
