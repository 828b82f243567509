"""``biblioteca duplicates [--json] [--min-score S]``: the wiki's duplicate groups."""

from __future__ import annotations

import argparse
from typing import Any

from shared.api.models import DEFAULT_MIN_SCORE, DuplicatesResponse
from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.errors import InvalidInput


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "duplicates",
        help="pages that copy, overlap, translate or contradict each other (best first)",
    )
    parser.add_argument(
        "--min-score",
        type=float,
        default=DEFAULT_MIN_SCORE,
        metavar="S",
        help=f"leave out groups scored below S, 0..1 (default {DEFAULT_MIN_SCORE})",
    )
    parser.add_argument("--json", action="store_true", help="print the groups as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    if not 0.0 <= args.min_score <= 1.0:
        raise InvalidInput("--min-score must be a number from 0 to 1", field="min_score")
    found = wiring().duplicates(min_score=args.min_score)
    emit(args, found.body(), _text(found))
    return 0


def _text(found: DuplicatesResponse) -> str:
    if not found.groups:
        return "no duplicates found"
    lines = []
    for group in found.groups:
        pages = "  ".join(f"{p.slug} ({p.lang}, {p.status})" for p in group.pages)
        lines.append(f"{group.kind:<11} {group.score:.2f}  {pages}")
        for passage in group.passages:
            lines.append(f"    {passage.slug} › {passage.heading}: {passage.text[:120]}")
        if group.note:
            lines.append(f"    {group.note}")
    keep, other = (found.groups[0].pages[0].slug, found.groups[0].pages[1].slug)
    lines.append(f"\nto merge one into another: biblioteca merge {keep} {other}")
    return "\n".join(lines)
