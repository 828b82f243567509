"""``biblioteca feedback``: votes and reports grouped by page, each with its answer's trace
("which page version produced this wrong answer")."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.services.feedback_digest import PageVotes, by_page
from shared.text.since import describe, parse_since

DEFAULT_SINCE = "7d"
EXCERPT = 160


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "feedback", help="list readers' and agents' feedback by page, with each answer's trace"
    )
    parser.add_argument(
        "--since",
        default=DEFAULT_SINCE,
        help="a duration (7d, 12h, 2w) or an ISO date; default 7d",
    )
    parser.add_argument("--json", action="store_true", help="print the groups as JSON")
    parser.set_defaults(handler=run)


def _short(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


def _when(iso: str) -> str:
    return iso[:16].replace("T", " ")


def lines(groups: list[PageVotes], since: str) -> str:
    """The groups for a terminal: a header per page, then each vote and its trace."""
    if not groups:
        return f"no feedback {since}"
    out: list[str] = []
    for group in groups:
        name = group["slug"] or "(no page: the answers cited nothing)"
        out.append(
            f"{name}  — {group['down']} down, {group['up']} up, latest {_when(group['latest'])}"
        )
        for item in group["items"]:
            head = f"  {'👎 down' if item['rating'] == 'down' else '👍 up'}"
            if item["reason"]:
                head += f" [{item['reason']}]"
            head += f"  {_when(item['at'])}  via {item['origin']}"
            out.append(head)
            if item["comment"]:
                out.append(f"      comment: {_short(item['comment'])}")
            trace = item["trace"]
            if trace is None:
                if item["question"]:
                    out.append(f"      question: {_short(item['question'])}")
                continue
            for n, earlier in enumerate(trace.get("thread") or [], start=1):
                out.append(f"      thread {n}: {_short(earlier)}")
            out.append(f"      question: {_short(trace['question'])}")
            if trace.get("standalone"):
                out.append(f"      read as:  {_short(trace['standalone'])}")
            out.append(f"      answer:   {_short(trace['answer'])}")
            cited = ", ".join(
                f"{s['slug']} v{s['version'] if s['version'] is not None else '?'} ({s['score']})"
                for s in trace["sources"]
            )
            out.append(f"      sources:  {cited or 'none'}")
            out.append(
                f"      model {trace['model']} · confidence {trace['confidence']} · "
                f"answer {trace['answer_id']} at {_when(trace['created_at'])}"
            )
    count = sum(len(g["items"]) for g in groups)
    out.append(f"{count} item(s) on {len(groups)} page(s) {since}")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    setup(args)
    since = parse_since(args.since)
    groups = by_page(wiring().store.feedback.list(since=since))
    payload = {
        "since": since.isoformat(),
        "count": sum(len(g["items"]) for g in groups),
        "pages": groups,
    }
    emit(args, payload, lines(groups, describe(args.since)))
    return 0
