"""``biblioteca reject SLUG|PROPOSAL [--reason R]``: archive a draft, or close a proposal."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import cli_actor, emit, setup
from shared.cli.review_text import decided
from shared.services.review import reject


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "reject", help="archive a draft, or close a proposal, with an optional reason"
    )
    parser.add_argument("target", metavar="SLUG|PROPOSAL")
    parser.add_argument("--reason", default=None, metavar="R", help="why (kept with it)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    result = reject(
        args.target, w.store, w.embedder, actor=cli_actor(w.settings), reason=args.reason
    )
    emit(args, result, decided(result))
    return 0
