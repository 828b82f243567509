"""``biblioteca enrich [--once] [--publish]``: the enrichment worker on the change log.

Without ``--once`` it follows the log until interrupted (what ``biblioteca serve`` runs
in a thread); ``--once`` drains the backlog and exits (1 when a change failed);
``--publish`` drains the change log's outbox to the Pub/Sub topic instead (Firestore).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.services.enrich import Drained

DEFAULT_INTERVAL_S = 1.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "enrich", help="enrich the pages written since the last run (proposals to review)"
    )
    parser.add_argument("--once", action="store_true", help="drain the backlog, then exit")
    parser.add_argument(
        "--publish",
        action="store_true",
        help="publish the logged changes to BIBLIOTECA_ENRICH_TOPIC instead (Firestore)",
    )
    parser.add_argument(
        "--interval",
        type=float,
        default=DEFAULT_INTERVAL_S,
        metavar="S",
        help=f"seconds between two looks at the log (default {DEFAULT_INTERVAL_S})",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


def summary(drained: Drained) -> str:
    lines = [
        f"enrich: {drained.changes} change(s), {drained.enriched} enriched, "
        f"{drained.proposals} proposal(s), {drained.failed} to retry, {drained.dead} set aside"
    ]
    for result in drained.results:
        if result.proposals:
            lines.append(f"  {result.slug} v{result.version}: {', '.join(result.proposals)}")
        if result.error:
            state = "set aside" if result.dead else f"attempt {result.attempts}"
            lines.append(f"  {result.slug} v{result.version}: {state}: {result.error}")
    if drained.proposals:
        lines.append("review them: biblioteca proposals --by enrich")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    if w.settings.enrich == "off":
        emit(args, {"enrich": "off"}, "enrich: off (BIBLIOTECA_ENRICH=off)")
        return 0
    if args.publish:
        published = w.publish_changes(anywhere=True)
        emit(args, {"published": published}, f"published {published} page change(s)")
        return 0
    worker = w.enrichment()
    if args.once:
        drained = worker.drain()
        emit(args, drained.body(), summary(drained))
        return 1 if drained.failed or drained.dead else 0
    interval = max(0.1, float(args.interval))
    try:
        while True:
            drained = worker.drain()
            if drained.changes:
                emit(args, drained.body(), summary(drained))
            time.sleep(interval)
    except KeyboardInterrupt:
        return 0
