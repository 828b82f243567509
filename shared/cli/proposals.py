"""``biblioteca proposals [--by ACTOR] [--json]``: the open proposals, oldest first, of
one author (``--by enrich`` lists every enricher's); read one with ``biblioteca show``,
then ``accept`` or ``reject`` it, or accept an author's all at once (``accept --by``)."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.cli.review_text import when
from shared.services.bulk_review import open_proposals
from shared.services.review_views import ProposalRow


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("proposals", help="list the open proposals, by author")
    parser.add_argument(
        "--by", metavar="ACTOR", help="only this author's (enrich: every enricher's)"
    )
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(handler=run)


def table(rows: list[ProposalRow]) -> str:
    if not rows:
        return "no proposals waiting"
    cells = [
        [
            r["id"],
            r["slug"],
            r["actor"],
            f"v{r['base_version']}",
            ", ".join(r["changes"]),
            when(r["created_at"]),
        ]
        for r in rows
    ]
    header = ["PROPOSAL", "PAGE", "BY", "AGAINST", "CHANGES", "CREATED"]
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    return "\n".join(
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *cells]
    )


def run(args: argparse.Namespace) -> int:
    setup(args)
    rows = open_proposals(wiring().store, args.by)
    emit(args, {"proposals": rows}, table(rows))
    return 0
