"""``biblioteca history SLUG [--json]``: a page's revisions, newest first."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.cli.review_text import revisions_table
from shared.services.history import history


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "history", help="a page's revisions: when, by whom, what changed (newest first)"
    )
    parser.add_argument("slug", metavar="SLUG")
    parser.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    parser.add_argument("--json", action="store_true", help="print the revisions as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    found = history(args.slug, wiring().store, limit=max(args.limit, 1))
    emit(args, found.body(), revisions_table(found.slug, found.revisions))
    return 0
