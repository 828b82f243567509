"""``biblioteca status``: store, pages by status, the last rebuild (a failure loudly), what
waits for review, the last sync (import) and the feedback waiting. Exit status 1 when the
last rebuild failed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from shared.bootstrap import wiring
from shared.cli.output import emit, setup
from shared.json_value import JsonObject, JsonValue
from shared.services.status import (
    EnrichPart,
    RebuildPart,
    ReviewPart,
    Status,
    SyncPart,
    Unreadable,
    status,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "status", help="store, pages by status, last rebuild, feedback waiting"
    )
    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    parser.set_defaults(handler=run)


def _when(iso: str | None) -> str:
    return (iso or "?")[:19].replace("T", " ")


def _at(event: JsonObject) -> str | None:
    at = event.get("at")
    return at if isinstance(at, str) else None


def alarm(rebuild: RebuildPart | Unreadable) -> str | None:
    """The loud line for a failed last rebuild, or None."""
    if "error" in rebuild:
        return None
    last = rebuild["last"]
    if not rebuild["failed"] or not last:
        return None
    why = last.get("error") or f"{last.get('failed', 0)} page(s) failed"
    published = rebuild["published"]
    since = f"; the site is the one published {_when(published['built_at'])}" if published else ""
    return f"!! THE LAST REBUILD FAILED at {_when(_at(last))}: {why}{since} !!"


def lines(state: Status) -> str:
    out = []
    loud = alarm(state["rebuild"])
    if loud:
        out.append(loud)
    store = state["store"]
    out.append(f"store:     {store['kind']} ({store['where']})")
    pages = state["pages"]
    if "error" in pages:
        out.append(f"pages:     unreadable: {pages['error']}")
    else:
        by = ", ".join(f"{n} {s}" for s, n in pages["by_status"].items()) or "none"
        out.append(f"pages:     {pages['total']} ({by})")
        stale = pages["stale"]
        named = ", ".join(stale[:5]) + (", …" if len(stale) > 5 else "")
        out.append(
            f"stale:     {len(stale)}" + (f" ({named}) · biblioteca freshness" if stale else "")
        )
    rebuild = state["rebuild"]
    if "error" in rebuild:
        out.append(f"rebuild:   unreadable: {rebuild['error']}")
    elif rebuild["last"] is None:
        out.append("rebuild:   never run (biblioteca rebuild)")
    else:
        last = rebuild["last"]
        out.append(
            f"rebuild:   {last.get('status')} at {_when(_at(last))} · built "
            f"{last.get('built', 0)}, failed {last.get('failed', 0)}, broken links "
            f"{last.get('broken_links', 0)}"
        )
        if rebuild["published"]:
            published = rebuild["published"]
            out.append(
                f"published: build {published['build_id']} at {_when(published['built_at'])}"
            )
    out += _review_lines(state.get("review"), state.get("sync"))
    feedback = state["feedback"]
    if "error" in feedback:
        out.append(f"feedback:  unreadable: {feedback['error']}")
    else:
        out.append(
            f"feedback:  {feedback['count']} in the last {feedback['days']} days "
            f"({feedback['down']} down, {feedback['up']} up) · biblioteca feedback"
        )
    out += _enrich_lines(state.get("enrich"))
    gaps = state.get("gaps")
    if gaps is not None and "error" in gaps:
        out.append(f"gaps:      unreadable: {gaps['error']}")
    elif gaps is not None:
        out.append(
            f"gaps:      {gaps['open']} open, {gaps['closed']} closed in the last "
            f"{gaps['days']} days · biblioteca gaps"
        )
    return "\n".join(out)


def _enrich_lines(enrich: EnrichPart | Unreadable | None) -> list[str]:
    if enrich is None:
        return []
    if "error" in enrich:
        return [f"enrich:    unreadable: {enrich['error']}"]
    line = f"enrich:    {enrich['mode']}, {enrich['dead_letters']} change(s) set aside"
    out = [line + (" after 5 failures" if enrich["dead_letters"] else "")]
    out += [f"  {d['slug']} v{d['version']}: {d['error']}" for d in enrich["recent_dead"]]
    return out


def _review_lines(
    waiting: ReviewPart | Unreadable | None, sync: SyncPart | Unreadable | None
) -> list[str]:
    out: list[str] = []
    if waiting is not None and "error" in waiting:
        out.append(f"review:    unreadable: {waiting['error']}")
    elif waiting is not None:
        proposals = waiting["proposals"]
        out.append(
            f"review:    {waiting['drafts']} draft(s), {len(proposals)} proposal(s) waiting"
            + (" · biblioteca drafts, biblioteca show ID" if waiting["drafts"] or proposals else "")
        )
        out += [
            f"  {p['id']}  {p['slug']}  by {p['actor']} at {_when(p['created_at'])} "
            f"({', '.join(p['changes'])})"
            for p in proposals[:10]
        ]
        if len(proposals) > 10:
            out.append(f"  … and {len(proposals) - 10} more (biblioteca status --json)")
    last = None if sync is None or "error" in sync else sync["last"]
    if sync is not None and "error" in sync:
        out.append(f"sync:      unreadable: {sync['error']}")
    elif sync is not None and last is None:
        out.append("sync:      no import yet (biblioteca import DIR)")
    elif last is not None:
        by = f" by {last['by']}" if last.get("by") else ""
        retired = f", --sync retired {last.get('retired', 0)}" if last.get("sync") else ""
        shard = last.get("shard")  # a sharded import: the last shard to finish
        by += f" (shard {shard['index']}/{shard['count']})" if isinstance(shard, dict) else ""
        out.append(
            f"sync:      {last.get('actor')}{by} at {_when(_at(last))} · created "
            f"{last.get('created', 0)}, updated {last.get('updated', 0)}, unchanged "
            f"{last.get('unchanged', 0)}, failed {last.get('failed', 0)}{retired}"
        )
        out += _fidelity_lines(last.get("fidelity"))
    return out


def _fidelity_lines(fidelity: JsonValue) -> list[str]:
    """The last import's fidelity: pages that lost words or show source syntax, named."""
    if not fidelity or not isinstance(fidelity, Mapping):
        return []  # an import recorded before fidelity was measured
    files_value = fidelity.get("files")
    named = [str(f) for f in files_value] if isinstance(files_value, list) else []
    files = ", ".join(named[:5]) + (", … (--json)" if len(named) > 5 else "")
    return [
        f"fidelity:  {fidelity['pages']} pages · {fidelity['lossy']} lost words, "
        f"{fidelity['raw']} show source syntax, {fidelity['unknown']} unknown constructs"
        + (f" ({files})" if files else "")
    ]


def run(args: argparse.Namespace) -> int:
    setup(args)
    w = wiring()
    state = status(w.settings, w.store, w.embedder)
    emit(args, state, lines(state))
    rebuild = state["rebuild"]
    failed = "error" not in rebuild and rebuild["failed"]
    if failed and args.json:  # the JSON stays parseable; the alarm still reaches a person
        print(alarm(state["rebuild"]), file=sys.stderr)
    return 1 if failed else 0
