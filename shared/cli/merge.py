"""``biblioteca merge KEEP OTHER [--reason R]``: propose folding OTHER into KEEP."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import cli_actor, emit, setup
from shared.services.merge import propose


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "merge",
        help="propose merging OTHER into KEEP (a proposal p-…: show, accept or reject it)",
    )
    parser.add_argument("keep", metavar="KEEP", help="the page that stays")
    parser.add_argument("other", metavar="OTHER", help="the page archived into KEEP")
    parser.add_argument("--reason", default=None, metavar="R", help="why (kept with it)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    result = propose(
        args.keep, args.other, w.store, actor=cli_actor(w.settings), reason=args.reason
    )
    changes = ", ".join(result["changes"]) or "nothing but the redirect"
    emit(
        args,
        result,
        f"proposed {result['proposal']}: merge {args.other} into {args.keep} ({changes})\n"
        f"read it with `biblioteca show {result['proposal']}`, then accept or reject it",
    )
    return 0
