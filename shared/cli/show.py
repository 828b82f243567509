"""``biblioteca show SLUG|PROPOSAL [--json]``: what a curator reads before deciding."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.cli.review_text import shown
from shared.services.review import show


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "show",
        help="a page or proposal in full: text, sources, grounding, freshness, history "
        "(a proposal: its diff against the page)",
    )
    parser.add_argument("target", metavar="SLUG|PROPOSAL")
    parser.add_argument("--json", action="store_true", help="print it as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    view = show(args.target, wiring().store)
    emit(args, view, shown(view))
    return 0
