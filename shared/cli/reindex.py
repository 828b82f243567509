"""``biblioteca reindex``: re-chunk and re-embed every page (after changing the embedder)."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, index_snapshot_line, progress_bar, setup
from shared.services.reindex import reindex


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("reindex", help="re-chunk and re-embed every page")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    embedder = w.embedder
    report = reindex(w.store, embedder, progress=progress_bar("reindex", "page", quiet=args.json))
    lines = [
        f"reindexed {report.reindexed}, unchanged {report.unchanged}, "
        f"failed {len(report.failed)} (embedder {embedder.name})"
    ]
    lines += [f"  failed  {f['slug']}: {f['error']}" for f in report.failed]
    if report.reindexed:
        lines.append(index_snapshot_line(w))
    emit(args, {**report.as_dict(), "embedder": embedder.name}, "\n".join(lines))
    return 1 if report.failed else 0
