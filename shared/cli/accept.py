"""``biblioteca accept SLUG|PROPOSAL``: promote a draft, or apply a proposal as a new
version (a proposal whose page moved on is refused: exit 1, nothing written); with
``--version N``, also refused when the page is no longer at the version reviewed.
``biblioteca accept --by ACTOR`` applies every open proposal of one author (an
enricher's: ``--by enrich:sources``); those that cannot be applied stay open, exit 1."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import cli_actor, emit, setup
from shared.cli.review_text import decided
from shared.services.review import accept


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "accept", help="promote a draft (active) or apply a proposal (a new version)"
    )
    parser.add_argument("target", metavar="SLUG|PROPOSAL", nargs="?")
    parser.add_argument(
        "--version",
        type=int,
        metavar="N",
        help="the page's version you reviewed (as `show` printed it): refused, nothing "
        "written, if the draft or the proposal's page moved since",
    )
    parser.add_argument(
        "--by", metavar="ACTOR", help="accept every open proposal of this author instead"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    if args.by is not None and args.target:
        return _usage("give a SLUG|PROPOSAL or --by ACTOR, not both")
    if args.by is not None and args.version is not None:
        return _usage("--version N goes with one SLUG|PROPOSAL, not with --by")
    if args.by is not None:
        return _accept_by(args)
    if not args.target:
        return _usage("name a SLUG|PROPOSAL, or give --by ACTOR")
    result = accept(
        args.target, w.store, w.embedder, actor=cli_actor(w.settings), version=args.version
    )
    emit(args, result, decided(result))
    return 0


def _usage(message: str) -> int:
    print(f"biblioteca accept: error: {message}", file=sys.stderr)
    return 2


def _accept_by(args: argparse.Namespace) -> int:
    from shared.services.bulk_review import accept_by

    w = wiring()
    done = accept_by(args.by, w.store, w.embedder, curator=cli_actor(w.settings))
    lines = [f"accepted {len(done.accepted)} proposal(s) of {args.by}"]
    lines += [f"  {a['proposal']} -> {a['slug']} v{a['version']}" for a in done.accepted]
    if done.refused:
        lines.append(f"left open {len(done.refused)}:")
        lines += [f"  {r['proposal']} ({r['slug']}): {r['error']}" for r in done.refused]
    emit(args, done.body(), "\n".join(lines))
    return 1 if done.refused else 0
