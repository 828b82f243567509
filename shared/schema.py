"""The one page schema: validated at the API door, in the store, on import and at build.

``FrontMatter`` normalizes friendly input (see ``shared.normalize``) and forbids
unknown keys; ``parse_front_matter`` turns any failure into ``InvalidInput`` whose
``field`` is the path in the caller's body (``front_matter.sources[2]``).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from shared.errors import InvalidInput, PayloadTooLarge
from shared.json_value import JsonObject
from shared.normalize import as_utc_date, normalize_related, normalize_sources, normalize_tags
from shared.records import Freshness, Kind
from shared.text.kinds import KINDS
from shared.text.slugs import slug_problem

# A page's whole front matter as compact JSON: the lists' caps (200 each, tags of 64
# characters) leave room for long source paths, and nothing larger is copied around.
MAX_FRONT_MATTER_BYTES = 64 * 1024
# A title is one line: line breaks, tabs and other control characters (C0, C1, the Unicode
# line and paragraph separators) are folded with the spaces around them into one space.
_TITLE_BREAKS = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")

PageType = Literal["concept", "decision", "entity", "feature", "runbook", "guide", "reference"]
Status = Literal["draft", "active", "archived"]
SourceType = Literal["code", "commit", "doc", "wiki", "memory", "query"]
PAGE_TYPES: tuple[str, ...] = get_args(PageType)
STATUSES: tuple[str, ...] = get_args(Status)
FRONT_MATTER_KEYS = (
    "title",
    "type",
    "status",
    "sources",
    "related",
    "tags",
    "category",
    "generated",
    "description",
    "kind",
    "redirect_to",
)
MAX_DESCRIPTION = 300  # characters of ``description``: a meta description, not a summary


def _prefix(info: ValidationInfo, name: str) -> str:
    base = (info.context or {}).get("field", "front_matter")
    return f"{base}.{name}" if base else name


class Source(BaseModel):
    """Where a page's knowledge comes from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: SourceType
    ref: str = Field(min_length=1)
    last_seen: str | None = None

    @field_validator("last_seen")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        if value is not None and as_utc_date(value) != value:
            raise ValueError("last_seen must be a date YYYY-MM-DD")
        return value


class Generated(BaseModel):
    """Provenance of a machine-written page."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by: str = Field(min_length=1, max_length=200)
    at: datetime

    @field_serializer("at")
    def _iso(self, value: datetime) -> str:
        return value.isoformat()


class FrontMatter(BaseModel):
    """A page's metadata, the contract's table."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    title: str = Field(min_length=1, max_length=200)
    type: PageType
    status: Status = "active"
    sources: list[Source] = Field(default_factory=list)
    related: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    category: str | None = None
    generated: Generated | None = None
    # What the page is about in a sentence or two (Docusaurus and Starlight front matter
    # have it): the page's <meta name="description"> and its line in llms.txt.
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)
    # What kind of docs page this is (``shared.text.kinds``: guide, reference, tutorial,
    # changelog, landing): the import states it for every file, so answers can prefer a
    # tutorial or a reference page by the question; absent on pages written without one.
    kind: Kind | None = None
    # The page this one was merged into (``biblioteca merge``): its address leads there,
    # and links naming it resolve there. Only an archived page redirects.
    redirect_to: str | None = None

    @field_validator("title", mode="before")
    @classmethod
    def _one_line(cls, value: object) -> object:
        return _TITLE_BREAKS.sub(" ", value).strip() if isinstance(value, str) else value

    @field_validator("type", "status", "kind", mode="before")
    @classmethod
    def _enum_text(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("sources", mode="before")
    @classmethod
    def _sources(cls, value: object, info: ValidationInfo) -> object:
        return normalize_sources(value, _prefix(info, "sources"))

    @field_validator("related", mode="before")
    @classmethod
    def _related(cls, value: object, info: ValidationInfo) -> object:
        return normalize_related(value, _prefix(info, "related"))

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: object, info: ValidationInfo) -> object:
        return normalize_tags(value, _prefix(info, "tags"))

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("description", mode="before")
    @classmethod
    def _description(cls, value: object) -> object:
        """One line: a folded YAML block's line breaks are spaces; empty is none."""
        if isinstance(value, str):
            return " ".join(value.split()) or None
        return value

    @field_validator("redirect_to", mode="before")
    @classmethod
    def _redirect(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip() or None
        if isinstance(value, str) and (problem := slug_problem(value)) is not None:
            raise ValueError(f"redirect_to must be a page's slug: {problem}")
        return value

    @model_validator(mode="after")
    def _redirects_only_when_archived(self, info: ValidationInfo) -> FrontMatter:
        """A page readers still see cannot also send them elsewhere."""
        if self.redirect_to is not None and self.status != "archived":
            base = (info.context or {}).get("field", "front_matter")
            raise InvalidInput(
                f"redirect_to needs status archived (this page is {self.status}): only a "
                "page merged into another redirects",
                field=f"{base}.redirect_to" if base else "redirect_to",
            )
        return self

    @model_validator(mode="after")
    def _bounded(self, info: ValidationInfo) -> FrontMatter:
        """The whole front matter fits ``MAX_FRONT_MATTER_BYTES`` (checked before any
        embedding: it travels with the page to the store, the site and every index)."""
        size = len(json.dumps(self.dump(), ensure_ascii=False, separators=(",", ":")).encode())
        if size > MAX_FRONT_MATTER_BYTES:
            base = (info.context or {}).get("field", "front_matter")
            raise PayloadTooLarge(
                f"the front matter is {size} bytes as JSON: at most "
                f"{MAX_FRONT_MATTER_BYTES} are accepted",
                field=base or None,
            )
        return self

    def dump(self) -> JsonObject:
        """JSON-ready front matter; ``last_seen`` left out where not given, and
        ``description`` and ``kind`` where the page has none (most pages written through
        the API)."""
        data = self.model_dump(mode="json")
        data["sources"] = [{k: v for k, v in s.items() if v is not None} for s in data["sources"]]
        for optional in ("description", "kind", "redirect_to"):
            if data[optional] is None:
                del data[optional]
        return data


_MESSAGES = {
    "type": "type must be one of: " + ", ".join(PAGE_TYPES),
    "status": "status must be one of: " + ", ".join(STATUSES),
    "kind": "kind must be one of: " + ", ".join(KINDS),
}


def _loc_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def invalid_input(exc: ValidationError, field: str = "") -> InvalidInput:
    """Any pydantic ``ValidationError`` as our ``InvalidInput``, its field path prefixed."""
    return _as_invalid_input(exc, field)


def parse_front_matter(data: object, field: str = "front_matter") -> FrontMatter:
    """Validate ``data`` as front matter; errors name ``<field>.<path>`` (no prefix if '')."""
    if not isinstance(data, dict):
        raise InvalidInput("front matter must be a JSON object", field=field or None)
    try:
        return FrontMatter.model_validate(data, context={"field": field})
    except ValidationError as exc:
        raise _as_invalid_input(exc, field) from exc


def _as_invalid_input(exc: ValidationError, field: str) -> InvalidInput:
    error = exc.errors()[0]
    loc = tuple(error["loc"])
    path = _loc_path(loc)
    where = f"{field}.{path}" if field and path else (path or field)
    name = str(loc[0]) if loc else ""
    name = name if len(name) <= 60 else f"{name[:60]}…"  # a caller's key, quoted not echoed
    if error["type"] == "extra_forbidden" and len(loc) > 1:
        key = str(loc[-1])
        message = f"unknown key '{key[:60]}' in {_loc_path(loc[:-1])}"
    elif error["type"] == "extra_forbidden":
        message = f"unknown front-matter key '{name}'; allowed: " + ", ".join(FRONT_MATTER_KEYS)
    elif error["type"] == "missing":
        message = f"{path} is required"
    elif len(loc) == 1 and name in _MESSAGES:
        message = _MESSAGES[name]
    else:
        message = f"{path}: {error['msg']}"
    return InvalidInput(message, field=where or None)


class Page(BaseModel):
    """A stored page: its front matter, Markdown body and bookkeeping."""

    model_config = ConfigDict(frozen=True)

    slug: str
    front_matter: FrontMatter
    content: str
    version: int = Field(ge=1)
    created_at: datetime
    updated_at: datetime
    # Derived by the server, kept beside the front matter (never in ``PublicPage``).
    freshness: Freshness | None = None
    updated_by: str | None = None  # the actor of this version (``PageRecord.updated_by``)

    @property
    def status(self) -> Status:
        return self.front_matter.status

    @property
    def title(self) -> str:
        return self.front_matter.title
