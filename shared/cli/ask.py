"""``biblioteca ask "question" [--mode tutor]``: the ``ask`` function from the command line."""

from __future__ import annotations

import argparse
from typing import Any

from shared.api.models import DEFAULT_LIMIT, MAX_LIMIT, AskRequest
from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.config import get_settings
from shared.services.ask import ask


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("ask", help="ask the wiki a question")
    parser.add_argument("question")
    parser.add_argument("--mode", choices=("help", "tutor"), default="help")
    parser.add_argument("--type", dest="source_type", help="only pages of this type")
    parser.add_argument("--category", help="only pages of this category")
    parser.add_argument("--tag", help="only pages carrying this tag")
    parser.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"chunks to use, 1..{MAX_LIMIT} (default {DEFAULT_LIMIT})",
    )
    parser.add_argument("--json", action="store_true", help="print the whole response as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    settings = get_settings()
    body = {
        "question": args.question,
        "mode": args.mode,
        "source_type": args.source_type,
        "category": args.category,
        "tag": args.tag,
        "limit": args.limit,
    }
    # The command line runs with the operator's own rights: no archive from here.
    w = wiring(settings)
    response = ask(
        AskRequest.parse(body),
        settings,
        authorized=False,
        store=w.store,
        embedder=w.embedder,
        answerer=w.answerer(),
    )
    lines = [response["answer"], ""]
    lines += [
        f"[{i}] {s['title']} › {s['heading']}  ({s['slug']}, {s['score']:.3f})"
        for i, s in enumerate(response["sources"], start=1)
    ]
    lines.append(f"-- {response['model']}, {response['duration_ms']:.0f} ms")
    emit(args, response, "\n".join(lines))
    return 0
