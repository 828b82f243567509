"""``biblioteca freshness``: check every page against the code index again, or list stale ones.

``index_code`` rechecks the pages citing what changed; this full pass is the repair for
a store written before freshness existed, or after the code index was edited by hand.
"""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.gates.staleness import public
from shared.services.freshness import recheck_all


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "freshness", help="recheck every page against the code index; list the stale ones"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    store = wiring().store
    result = recheck_all(store)
    pages = [
        (r.slug, public(r.freshness))
        for r in store.pages.list()
        if r.freshness is not None and r.freshness.state == "stale"
    ]
    stale = [{"slug": slug, **freshness} for slug, freshness in pages]
    lines = [f"checked {result.read} page(s), {result.changed} changed; {len(stale)} stale"]
    for slug, freshness in pages:
        for path in freshness["missing"]:
            hint = freshness["suggestions"].get(path)
            lines.append(f"  {slug}: {path}" + (f" (moved to {hint}?)" if hint else ""))
    emit(args, {**result.body(), "stale": stale}, "\n".join(lines))
    return 0
