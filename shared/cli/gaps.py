"""``biblioteca gaps``: what people asked that the wiki could not answer well."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, plain, setup
from shared.services.gaps import GapReport, find_gaps
from shared.text.since import parse_since

SAMPLE_WIDTH = 70


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "gaps", help="questions the wiki answered badly, grouped across languages"
    )
    parser.add_argument(
        "--since", default="7d", help="a duration (7d, 12h, 2w) or an ISO date; default 7d"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def _cut(text: str) -> str:
    text = plain(text)
    return text if len(text) <= SAMPLE_WIDTH else text[: SAMPLE_WIDTH - 1] + "…"


def human(report: GapReport) -> str:
    if not report.open and not report.closed:
        return f"no gaps since {report.since:%Y-%m-%d %H:%M}"
    lines = [f"{len(report.open)} open gap(s) since {report.since:%Y-%m-%d %H:%M}"]
    for gap in report.open:
        pages = ", ".join(p["slug"] for p in gap.pages()) or "none"
        lines.append(f"\n[{gap.id}] asked {gap.count}x, last {gap.last_seen:%Y-%m-%d %H:%M}")
        lines.extend(f"  - {_cut(q)}" for q in gap.samples())
        lines.append(f"  pages reached: {pages}")
    if report.closed:
        lines.append(f"\n{len(report.closed)} closed gap(s)")
        for gap in report.closed:
            assert gap.closed is not None
            lines.append(
                f"  [{gap.id}] {_cut(gap.samples()[0])} -> answered from {gap.closed.slug} "
                f"on {gap.closed.at:%Y-%m-%d %H:%M}"
            )
    if report.open:
        lines.append("\nwanted pages:")
        lines.extend(f"  - {_cut(w['question'])} ({w['asked']}x)" for w in report.wanted_pages())
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    setup(args)
    since = parse_since(args.since)
    w = wiring()
    report = find_gaps(w.store, w.embedder, since=since)
    emit(args, report.body(), human(report))
    return 0
