"""``biblioteca ask "question" [--mode tutor]``: the ``ask`` function from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from typing import Any

from shared.api.models import DEFAULT_LIMIT, MAX_LIMIT, AskRequest, AskResponse
from shared.bootstrap import wiring
from shared.cli import serve_state
from shared.cli.output import emit, setup
from shared.cli.store_note import describe
from shared.config import Settings, get_settings
from shared.json_value import JsonObject
from shared.text import wikilinks

ASK_TIMEOUT_S = 60.0  # a serve's first answer loads its model; later ones take milliseconds


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
    request = AskRequest.parse(body)  # a bad option is refused here, whoever answers
    response = _from_running_serve(settings, body)
    if response is None:
        if settings.embedder == "local":
            print(
                "biblioteca ask: loading the embedding model in this process, so this "
                "answer takes a few seconds; a running `biblioteca serve` keeps it loaded "
                "and `biblioteca ask` then answers through it",
                file=sys.stderr,
            )
        # The command line runs with the operator's own rights: no archive from here.
        response = wiring(settings).ask(request, authorized=False).body()
    answer = AskResponse.model_validate(response)  # read typed; printed as it came
    lines = [wikilinks.as_text(answer.answer), ""]  # a link shows its page's title
    lines += [
        f"[{i}] {s.title} › {s.heading}  ({s.slug}, {s.score:.3f})"
        for i, s in enumerate(answer.sources, start=1)
    ]
    lines.append(f"-- {answer.model}, {answer.duration_ms:.0f} ms")
    emit(args, response, "\n".join(lines))
    return 0


def _from_running_serve(settings: Settings, body: JsonObject) -> JsonObject | None:
    """The answer of a running ``serve`` on the same store (its model is warm), or None."""
    url = serve_state.running(settings, describe(settings))
    if url is None:
        return None
    request = urllib.request.Request(  # noqa: S310 - running() returns http:// only
        f"{url}ask",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=ASK_TIMEOUT_S) as reply:  # noqa: S310
            response = json.loads(reply.read())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        print(
            f"biblioteca ask: the serve at {url} did not answer ({exc}): answering here",
            file=sys.stderr,
        )
        return None
    if not isinstance(response, dict) or "answer" not in response:
        return None
    print(f"biblioteca ask: answered by the running serve at {url}", file=sys.stderr)
    return response
