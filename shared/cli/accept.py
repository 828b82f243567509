"""``biblioteca accept SLUG|PROPOSAL``: promote a draft, or apply a proposal as a new
version (a proposal whose page moved on is refused: exit 1, nothing written); with
``--version N``, also refused when the page is no longer at the version reviewed."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import cli_actor, emit, setup
from shared.cli.review_text import decided
from shared.services.review import accept


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "accept", help="promote a draft (active) or apply a proposal (a new version)"
    )
    parser.add_argument("target", metavar="SLUG|PROPOSAL")
    parser.add_argument(
        "--version",
        type=int,
        metavar="N",
        help="the page's version you reviewed (as `show` printed it): refused, nothing "
        "written, if the draft or the proposal's page moved since",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    result = accept(
        args.target, w.store, w.embedder, actor=cli_actor(w.settings), version=args.version
    )
    emit(args, result, decided(result))
    return 0
