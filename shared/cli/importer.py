"""``biblioteca import DIR``: Markdown files (front matter optional) -> pages."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import cli_actor, emit, index_snapshot_line, progress_bar, setup
from shared.schema import PAGE_TYPES, STATUSES
from shared.services.importer import import_directory


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("import", help="import a folder of Markdown files as pages")
    parser.add_argument("directory", type=Path, metavar="DIR")
    parser.add_argument(
        "--type", choices=PAGE_TYPES, help="type of files whose front matter has none"
    )
    parser.add_argument(
        "--status", choices=STATUSES, help="status of files whose front matter has none"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup(args)
    if not args.directory.is_dir():
        print(f"biblioteca import: {args.directory} is not a directory", file=sys.stderr)
        return 2
    w = wiring()
    report = import_directory(
        args.directory,
        w.store,
        w.embedder,
        default_type=args.type,
        default_status=args.status,
        progress=progress_bar("import", "page", quiet=args.json),
        by=cli_actor(w.settings),
    )
    summary = (
        f"created {report.created}, updated {report.updated}, unchanged {report.unchanged}, "
        f"failed {len(report.failed)}, warnings {len(report.warnings)}"
    )
    if report.nav is not None:
        summary += f"; mkdocs.yml nav kept ({report.nav} pages placed)"
    lines = [summary]
    lines += failure_lines(report.failed)
    lines += [f"  warning {w['file']}: {w['warning']}" for w in report.warnings]
    if report.created + report.updated:
        lines.append(index_snapshot_line(w.store))
    emit(args, report.as_dict(), "\n".join(lines))
    return 1 if report.failed else 0


SHOWN_FILES = 3  # files named on a line that stands for many


def failure_lines(failed: list[dict[str, str]]) -> list[str]:
    """One line per distinct failure: 97 files without a type are one line, not 97."""
    groups: dict[tuple[str, str], list[str]] = {}
    for failure in failed:
        groups.setdefault((failure["error"], failure["field"]), []).append(failure["file"])
    lines = []
    for (error, field), files in groups.items():
        where = f" ({field})" if field else ""
        if len(files) == 1:
            lines.append(f"  failed  {files[0]}: {error}{where}")
            continue
        shown = ", ".join(files[:SHOWN_FILES])
        more = f" and {len(files) - SHOWN_FILES} more" if len(files) > SHOWN_FILES else ""
        lines.append(f"  failed  {len(files)} files: {error}{where}: {shown}{more}")
    return lines
