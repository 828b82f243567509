"""Sorting stored pages for a build: published, drafts, and pages that fail the schema.

Pages may have been written behind the API's back (older schema, manual edits), so
each is validated again with the one schema; a failure (``PageFailure``) names the field
inside the front matter (``sources[0]``), never stops the others, and is logged at ERROR.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from pydantic import ValidationError

from shared.errors import InvalidInput, PayloadTooLarge
from shared.json_value import JsonObject
from shared.logs import get_logger
from shared.records import PageRecord
from shared.schema import Page
from shared.services.site_build.report import PageFailure
from shared.services.wiki import to_page
from shared.site.manifest import ARCHIVED, DRAFT, INVALID, Held
from shared.text.slugs import slug_problem

_log = get_logger("rebuild")
_UNPUBLISHED = ("draft", "archived")


@dataclass
class Sorted:
    """The pages of one build, by what the site does with them."""

    published: dict[str, Page] = field(default_factory=dict)
    failed: list[PageFailure] = field(default_factory=list)
    drafts: list[JsonObject] = field(default_factory=list)  # the curator report's rows
    held: dict[str, Held] = field(default_factory=dict)  # every page not published

    def settle(self) -> None:
        """Failures by slug, drafts newest first (the curator report's order)."""
        self.failed.sort(key=lambda f: f.slug)
        self.drafts.sort(key=lambda d: str(d["updated_at"]), reverse=True)


def validate(record: PageRecord) -> Page | PageFailure:
    """The page, or what is wrong with it."""
    slug = record.slug if isinstance(record.slug, str) else repr(record.slug)
    problem = slug_problem(slug)
    if problem is not None:
        return PageFailure(slug, "slug", problem)
    if not isinstance(record.front_matter, Mapping):
        return PageFailure(slug, "", "the front matter is not an object")
    try:
        return to_page(record, field="")
    except (InvalidInput, PayloadTooLarge) as exc:  # a list past its cap, stored behind our back
        return PageFailure(slug, exc.field or "", exc.message)
    except ValidationError as exc:  # a stored field outside the front matter (content, version)
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        return PageFailure(slug, where, f"{where}: {error['msg']}")


def _raw_status(record: PageRecord) -> str:
    fm = record.front_matter
    value = fm.get("status", "active") if isinstance(fm, Mapping) else "active"
    return value.strip().lower() if isinstance(value, str) else ""


def _raw_title(record: PageRecord) -> str:
    fm = record.front_matter
    value = fm.get("title", "") if isinstance(fm, Mapping) else ""
    return str(value)[:200]


def sort_records(records: Iterable[PageRecord]) -> Sorted:
    """Validate every record: active pages are published, drafts listed, failures named.

    A draft or archived page that fails the schema is not published anyway: it is shown
    to the curator (drafts) but does not fail the build.
    """
    out = Sorted()
    for record in records:
        _sort(record, out)
    out.settle()
    return out


def remember(pages: Sorted, read: Collection[str], held: Mapping[str, Held]) -> None:
    """Add the unpublished pages not read this run, as the last build's manifest holds them."""
    for slug, page in held.items():
        if slug in read or slug in pages.held:
            continue
        pages.held[slug] = page
        if page.kind == DRAFT and page.info is not None:
            pages.drafts.append(dict(page.info))
        elif page.kind == INVALID and page.info is not None:
            pages.failed.append(PageFailure.from_json(page.info))
    pages.settle()


def _sort(record: PageRecord, out: Sorted) -> None:
    outcome = validate(record)
    if isinstance(outcome, Page):
        if outcome.status == "active":
            out.published[outcome.slug] = outcome
        elif outcome.status == "draft":
            generated = outcome.front_matter.generated
            draft: JsonObject = {
                "slug": outcome.slug,
                "title": outcome.title,
                "updated_at": outcome.updated_at.isoformat(),
                "generated_by": generated.by if generated else None,
                "problem": None,
            }
            out.drafts.append(draft)
            out.held[outcome.slug] = Held(DRAFT, draft)
        else:
            target = outcome.front_matter.redirect_to  # a merged page leads to its target
            out.held[outcome.slug] = Held(ARCHIVED, {"redirect_to": target} if target else None)
        return
    status = _raw_status(record)
    if status in _UNPUBLISHED:
        if status == "draft":
            draft = {
                "slug": outcome.slug,
                "title": _raw_title(record),
                "updated_at": str(record.updated_at),
                "generated_by": None,
                "problem": f"{outcome.field}: {outcome.error}",
            }
            out.drafts.append(draft)
            out.held[outcome.slug] = Held(DRAFT, draft)
        else:
            out.held[outcome.slug] = Held(ARCHIVED)
        return
    _log.error(
        "page '%s' left out of the site: %s (%s)",
        outcome.slug,
        outcome.error,
        outcome.field,
        extra={"slug": outcome.slug, "field": outcome.field},
    )
    out.failed.append(outcome)
    out.held[outcome.slug] = Held(INVALID, outcome.to_json())
