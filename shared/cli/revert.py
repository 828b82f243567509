"""``biblioteca revert SLUG --to N``: a new version whose content and front matter are
version N's, attributed to the command line's actor."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import cli_actor, emit, setup
from shared.services.history import revert


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "revert", help="write a new version of a page whose text and front matter are N's"
    )
    parser.add_argument("slug", metavar="SLUG")
    parser.add_argument("--to", type=int, required=True, metavar="N", help="the version")
    parser.add_argument("--json", action="store_true", help="print the write's result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    result = revert(args.slug, args.to, w.store, w.embedder, actor=cli_actor(w.settings))
    body = result.response().body()
    if result.status == "unchanged":
        line = f"{args.slug} is already what version {args.to} was: nothing written"
    else:
        line = f"reverted {args.slug} to version {args.to}: now v{result.page.version}"
    emit(args, body, line)
    return 0
