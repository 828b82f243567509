"""How the review commands print for a person: a revision table, a page or proposal to
read before deciding, the result of a decision (``--json`` prints the data itself)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shared.api.models import RevisionEntry
from shared.cli.drafts import TITLE_WIDTH
from shared.json_value import JsonObject
from shared.services.review_views import Shown


def when(iso: str | None) -> str:
    return (iso or "?")[:16].replace("T", " ")


def revisions_table(slug: str, revisions: Sequence[RevisionEntry]) -> str:
    if not revisions:
        return f"{slug}: no revisions kept (written before revisions were kept?)"
    rows = [
        [f"v{r.version}", when(r.at), r.actor, ", ".join(r.changed) or "-", r.note or ""]
        for r in revisions
    ]
    header = ["VERSION", "AT", "ACTOR", "CHANGED", "NOTE"]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def _source(source: Any) -> str:
    if isinstance(source, dict):
        return f"{source.get('type', '?')}: {source.get('ref', '?')}"
    return str(source)


def shown(view: Shown) -> str:
    """``biblioteca show``: what is decided on first, the text last (it may be long)."""
    lines: list[str] = []
    proposal = view.get("proposal")
    if proposal is not None:
        lines.append(
            f"proposal {proposal['id']} ({proposal['status']}) by {proposal['actor']} at "
            f"{when(proposal['created_at'])}, against v{proposal['base_version']} of "
            f"{view['slug']}: changes {', '.join(proposal['changes'])}"
        )
        if proposal.get("reason"):
            lines.append(f"reason:    {proposal['reason']}")
        if proposal["page_moved_on"]:
            lines.append(
                f"!! the page moved on since (it is v{view['version']}): accepting it is a "
                "conflict; the diff below is against the page as it is now !!"
            )
        if proposal.get("invalid"):
            lines.append(f"!! it no longer applies: {proposal['invalid']} !!")
    title = str(view.get("title") or "")
    if len(title) > TITLE_WIDTH * 2:
        title = title[: TITLE_WIDTH * 2 - 1] + "…"
    lines += [
        f"page:      {view['slug']} — {title}",
        f"status:    {view['status']} · {view['type']} · v{view['version']} · "
        f"created {when(view['created_at'])} · updated {when(view['updated_at'])}",
    ]
    generated = view.get("generated")
    if isinstance(generated, dict):
        kind = " (an archived answer)" if view.get("archived_answer") else ""
        lines.append(f"written:   by {generated.get('by')} at {when(generated.get('at'))}{kind}")
    sources = view.get("sources") or []
    lines.append(f"sources:   {len(sources)}")
    lines += [f"  - {_source(s)}" for s in sources]
    grounding = view["grounding"]
    if grounding["cited"]:
        unresolved = ", ".join(grounding["unresolved"]) or "none"
        checked = "" if grounding["checked"] else " (the code index could not say)"
        lines.append(
            f"grounding: {grounding['resolved']}/{grounding['cited']} cited code paths "
            f"resolve{checked}; unresolved: {unresolved}"
        )
    else:
        lines.append("grounding: cites no code path")
    freshness = view["freshness"]
    missing = f" (missing: {', '.join(freshness['missing'])})" if freshness["missing"] else ""
    lines.append(f"freshness: {freshness['state']}{missing}")
    lines.append("history:")
    history = [RevisionEntry.model_validate(entry) for entry in view["history"]]
    lines += ["  " + line for line in revisions_table(view["slug"], history).splitlines()]
    if proposal is not None:
        lines += ["", "diff (the page now → with the proposal):", proposal["diff"] or "(none)"]
    lines += ["", "─" * 72, view["content"].rstrip(), "─" * 72]
    target = proposal["id"] if proposal is not None else view["slug"]
    if view["status"] == "draft" or (proposal is not None and proposal["status"] == "open"):
        lines.append(f"decide: biblioteca accept {target} | biblioteca reject {target} --reason …")
    return "\n".join(lines)


def decided(result: JsonObject) -> str:
    """The line an accept or reject prints."""
    slug, status = result.get("slug", "?"), result.get("status")
    proposal = result.get("proposal")
    about = f"proposal {proposal} for {slug}" if proposal else slug
    if status == "rejected":
        reason = f" ({result['reason']})" if result.get("reason") else ""
        archived = "" if proposal else ", archived"
        return f"rejected {about}{archived}{reason}"
    page = result.get("page")
    status = page.get("status", "?") if isinstance(page, Mapping) else "?"
    return f"accepted {about}: now v{result.get('version')}, {status}"
