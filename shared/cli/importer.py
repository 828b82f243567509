"""``biblioteca import DIR``: Markdown files (front matter optional) -> pages."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import cli_actor, emit, index_snapshot_line, progress_bar, setup
from shared.importing.dialects import DIALECTS
from shared.importing.shards import TASK_COUNT, TASK_INDEX, Shard, parse_shard, shard_from_env
from shared.schema import PAGE_TYPES, STATUSES
from shared.services.fidelity import Fidelity
from shared.services.importer import ImportReport, import_directory


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("import", help="import a folder of Markdown files as pages")
    parser.add_argument("directory", type=Path, metavar="DIR")
    parser.add_argument(
        "--type",
        choices=PAGE_TYPES,
        help="type of files whose front matter has none (default: inferred from each "
        "page's kind: reference pages are reference, the rest guide)",
    )
    parser.add_argument(
        "--status", choices=STATUSES, help="status of files whose front matter has none"
    )
    parser.add_argument(
        "--repo",
        type=Path,
        metavar="ROOT",
        help="repository root that includes, snippets and API references resolve against "
        "(default: the folder of the mkdocs config found, else the nearest .git above DIR)",
    )
    parser.add_argument(
        "--assets",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder whose files the pages link site-absolutely (/images/x.png is "
        "DIR/images/x.png); repeatable",
    )
    parser.add_argument(
        "--sync",
        action="store_true",
        help="archive the pages this DIR imported earlier whose files are gone",
    )
    parser.add_argument(
        "--dialect",
        choices=sorted(DIALECTS),
        help="read the tree as this generator's (default: detected from its configuration)",
    )
    parser.add_argument(
        "--tree",
        metavar="NAME",
        help="the name this tree's pages are known by for --sync (default: the git remote "
        "of DIR's checkout and DIR's path in it, else that path)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a page lost words or shows source syntax (fidelity lossy or raw); "
        "the pages are imported all the same",
    )
    _add_shard(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def _add_shard(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="import only shard I of N, files split by a stable hash of their path; the N "
        "shards together write what one import writes. I counts from 0 (N is shard 0 "
        f"again, so 1..N works too). Default: {TASK_INDEX} of {TASK_COUNT} when both are "
        "set (a Cloud Run job's tasks)",
    )


def _shard(text: str) -> Shard:
    """argparse's reading of ``--shard``: a bad value is a usage error naming the flag."""
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def chosen_shard(args: argparse.Namespace) -> Shard | None:
    """``--shard``, else the Cloud Run task's shard from the environment (said on stderr);
    a malformed environment raises ``ValueError``."""
    if args.shard is not None:
        return args.shard  # type: ignore[no-any-return]
    shard = shard_from_env(os.environ)
    if shard is not None:
        print(
            f"biblioteca import: shard {shard.index}/{shard.count} "
            f"(from {TASK_INDEX} and {TASK_COUNT})",
            file=sys.stderr,
        )
    return shard


def run(args: argparse.Namespace) -> int:
    setup(args)
    for folder in [args.directory, *args.assets]:
        if not folder.is_dir():
            print(f"biblioteca import: {folder} is not a directory", file=sys.stderr)
            return 2
    if args.repo is not None and not args.repo.is_dir():
        print(f"biblioteca import: --repo {args.repo} is not a directory", file=sys.stderr)
        return 2
    try:
        shard = chosen_shard(args)
    except ValueError as exc:
        print(f"biblioteca import: {exc}", file=sys.stderr)
        return 2
    w = wiring()
    report = import_directory(
        args.directory,
        w.store,
        w.embedder,
        default_type=args.type,
        default_status=args.status,
        repo=args.repo,
        code_url=w.settings.code_url,
        progress=progress_bar("import", "page", quiet=args.json),
        assets=tuple(args.assets),
        sync=args.sync,
        by=cli_actor(w.settings),
        dialect=args.dialect,
        tree_label=args.tree,
        shard=shard,
    )
    lines = [summary_line(report, args.sync)]
    if report.constructs:
        lines.append("  constructs " + constructs_line(report.constructs.as_dict()))
    if report.dialect:
        lines.append(f"  dialect {report.dialect['name']} ({report.dialect['why']})")
    if report.fidelity.pages:  # no page imported: nothing was measured
        lines += fidelity_lines(report.fidelity)
    lines += failure_lines(report.failed)
    lines += [f"  warning {w['file']}: {w['warning']}" for w in report.warnings]
    if report.created + report.updated:
        lines.append(index_snapshot_line(w))
    unfaithful = args.strict and not report.fidelity.faithful
    if unfaithful:
        lines.append(
            f"  --strict: {len(report.fidelity.lossy)} pages lost words, "
            f"{len(report.fidelity.raw_files())} show source syntax"
        )
    emit(args, report.as_dict(), "\n".join(lines))
    return 1 if report.failed or unfaithful else 0


def summary_line(report: ImportReport, sync: bool) -> str:
    """``created 3, updated 1, unchanged 40, failed 0, warnings 2; …``: the counts first."""
    summary = (
        f"created {report.created}, updated {report.updated}, unchanged {report.unchanged}, "
        f"failed {len(report.failed)}, warnings {len(report.warnings)}"
    )
    if sync:
        summary += f", retired {report.retired}"
    if report.assets:
        summary += f"; {report.assets} assets taken"
    if report.nav is not None:
        summary += f"; mkdocs.yml nav kept ({report.nav} pages placed)"
    if report.shard is not None:
        summary += f"; shard {report.shard.index}/{report.shard.count}"
    return summary


def constructs_line(counts: dict[str, dict[str, int]]) -> str:
    """``mkdocstrings 163 rendered, autoref 713 mapped 38 dropped, …`` (kinds sorted)."""
    parts = []
    for kind, outcomes in counts.items():
        shown = " ".join(f"{n} {outcome}" for outcome, n in outcomes.items() if n)
        parts.append(f"{kind} {shown}")
    return ", ".join(parts)


SHOWN_FILES = 3  # files named on a line that stands for many
SHOWN_PAGES = 50  # lossy or raw pages named one a line; --json lists them all


def fidelity_lines(fidelity: Fidelity) -> list[str]:
    """The fidelity line (pages measured, lossy, raw, unknown), then each lossy page with
    the share of its words kept and each raw page with the syntax it shows."""
    raw: dict[str, list[str]] = {}
    for entry in fidelity.raw:
        raw.setdefault(entry["file"], []).append(f"{entry['construct']} «{entry['sample']}»")
    lines = [
        f"  fidelity {fidelity.pages} pages: {len(fidelity.lossy)} lost words, "
        f"{len(raw)} show source syntax, {sum(fidelity.unknown.values())} unknown constructs"
    ]
    lines += [
        f"  lossy   {e['file']}: kept {e['kept']:.0%} of its words"
        for e in fidelity.lossy[:SHOWN_PAGES]
    ]
    lines += _more(len(fidelity.lossy), "lossy")
    lines += [
        f"  raw     {file}: {'; '.join(shown)}" for file, shown in list(raw.items())[:SHOWN_PAGES]
    ]
    lines += _more(len(raw), "raw")
    if fidelity.unknown:
        counts = ", ".join(f"{name} {n}" for name, n in fidelity.unknown.items())
        lines.append(f"  unknown {counts}")
    return lines


def _more(count: int, what: str) -> list[str]:
    left = count - SHOWN_PAGES
    return [f"  {what}   and {left} more pages (--json lists them all)"] if left > 0 else []


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
