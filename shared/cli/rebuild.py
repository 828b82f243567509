"""``biblioteca rebuild [--full]``: build the static site and print the report."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.services.site_build import OK


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("rebuild", help="build the static site (incremental)")
    parser.add_argument(
        "--full", action="store_true", help="render every page, not only what changed"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    settings = w.settings
    report = w.rebuild(full=args.full)
    body = report.response().body()
    lines = [
        f"{report.status}: built {report.built}, unchanged {report.unchanged}, "
        f"removed {report.removed}, failed {len(report.failed)}, "
        f"broken links {len(report.broken_links)} in {report.duration_ms} ms "
        f"({'full' if report.full else 'incremental'}) -> {settings.site_location}"
    ]
    if report.error is not None:
        lines.append(f"  error: {report.error.message}")
    lines += [
        f"  failed  {f.slug}: {f.error}" + (f" ({f.field})" if f.field else "")
        for f in report.failed
    ]
    lines += [
        f"  broken  {b['slug']} -> {b['target']} ({b.get('kind', 'page')})"
        for b in report.broken_links[:50]
    ]
    if len(report.broken_links) > 50:
        lines.append(f"  … and {len(report.broken_links) - 50} more broken links (see the report)")
    lines.append(f"curator report: {settings.report_location}")
    emit(args, body, "\n".join(lines))
    return 0 if report.status == OK else 1
