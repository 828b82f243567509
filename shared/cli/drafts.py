"""``biblioteca drafts``: the curator's queue, oldest first; read one with ``biblioteca
show``, then ``accept`` or ``reject`` it."""

from __future__ import annotations

import argparse
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.records import PageRecord

TITLE_WIDTH = 60


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("drafts", help="list draft pages waiting for a curator")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(handler=run)


def draft_row(record: PageRecord) -> dict[str, Any]:
    """One draft as the listing shows it."""
    generated = record.front_matter.get("generated")
    return {
        "slug": record.slug,
        "title": str(record.front_matter.get("title", "")),
        "created_at": record.created_at.isoformat(),
        "generated_by": generated.get("by") if isinstance(generated, dict) else None,
    }


def table(rows: list[dict[str, Any]]) -> str:
    """Aligned columns for a terminal; long titles are cut."""
    if not rows:
        return "no drafts waiting"
    cells = [
        [
            r["slug"],
            r["title"] if len(r["title"]) <= TITLE_WIDTH else r["title"][: TITLE_WIDTH - 1] + "…",
            r["created_at"][:16].replace("T", " "),
            r["generated_by"] or "-",
        ]
        for r in rows
    ]
    header = ["SLUG", "TITLE", "CREATED", "BY"]
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    lines = [
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *cells]
    ]
    lines.append(
        f"{len(rows)} draft(s); read one with biblioteca show SLUG, then biblioteca accept "
        "SLUG or biblioteca reject SLUG --reason R"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    setup(args)
    records = wiring().store.pages.list(status="draft")
    rows = [draft_row(r) for r in sorted(records, key=lambda r: (r.created_at, r.slug))]
    emit(args, {"drafts": rows, "count": len(rows)}, table(rows))
    return 0
