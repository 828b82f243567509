"""``biblioteca reindex``: re-chunk and re-embed every page (after changing the embedder)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tqdm import tqdm

from shared.cli.output import emit, setup
from shared.config import get_settings
from shared.providers.factory import embedder_for
from shared.services.reindex import reindex
from shared.store import open_store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("reindex", help="re-chunk and re-embed every page")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    settings = get_settings()
    interactive = sys.stderr.isatty() and not args.json

    def progress(pages: Any) -> Any:
        return tqdm(pages, desc="reindex", unit="page", disable=not interactive, file=sys.stderr)

    embedder = embedder_for(settings)
    report = reindex(open_store(settings), embedder, progress=progress)
    lines = [
        f"reindexed {report.reindexed}, unchanged {report.unchanged}, "
        f"failed {len(report.failed)} (embedder {embedder.name})"
    ]
    lines += [f"  failed  {f['slug']}: {f['error']}" for f in report.failed]
    emit(args, {**report.as_dict(), "embedder": embedder.name}, "\n".join(lines))
    return 1 if report.failed else 0
