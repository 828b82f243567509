"""``biblioteca diff SLUG [A [B]]``: the unified diff of two versions (default the last two)."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import setup
from shared.services.history import diff


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff", help="the unified diff of two versions of a page (default: the last two)"
    )
    parser.add_argument("slug", metavar="SLUG")
    parser.add_argument("a", metavar="A", type=int, nargs="?", help="the older version")
    parser.add_argument("b", metavar="B", type=int, nargs="?", help="the newer (default: now)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    text = diff(args.slug, wiring().store, args.a, args.b)
    print(text or "(no difference)")
    return 0
