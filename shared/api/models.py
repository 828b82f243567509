"""The bodies of every HTTP function as pydantic models: requests in, responses out.

One source for three consumers: they validate requests (``RequestBody.parse``: an
``InvalidInput`` or ``PayloadTooLarge`` at the contract's field path), they generate
``openapi.json`` (``shared.api.openapi``), and they are the schemas agents' tools will use.

A request's schema states the canonical form of each field; the server also accepts
the friendly forms the contract lists (a source given as a path string, a related
page as ``{"slug": ...}``, ``mode`` of any value), documented in each description.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Optional, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from shared.errors import ErrorCode, InvalidInput, PayloadTooLarge
from shared.json_value import JsonObject
from shared.normalize import MAX_SOURCES, normalize_related
from shared.records import FreshnessState, Kind
from shared.retrieval.tokens import strip_invisible
from shared.schema import FRONT_MATTER_KEYS, FrontMatter, Page, invalid_input, parse_front_matter
from shared.text.code_paths import clean_path
from shared.text.slugs import MAX_SLUG, SLUG_RE, slug_problem

MAX_CONTENT_BYTES = 512 * 1024  # a page's content, and an archived answer (413 past it)
MAX_QUESTION_CHARS = 2000
DEFAULT_LIMIT = 6
MAX_LIMIT = 20
MAX_REPO = 200
MAX_MODEL = 200


# -- requests ---------------------------------------------------------------------------


class RequestBody(BaseModel):
    """A request body: strict JSON types, unknown keys refused, errors at their field.

    A failed check reads ``<field> must be <its description>`` (or ``<field> is required:
    …``), so the document and the error say the same thing; checks with more to say
    raise their own ``InvalidInput`` at the field.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _known_keys_first(cls, data: Any) -> Any:
        # Before any field: an unknown key is what the caller most needs to hear about.
        if cls.model_config.get("extra") == "forbid" and isinstance(data, dict):
            allowed = tuple(cls.model_fields)
            for key in data:
                if key not in allowed:
                    raise InvalidInput(
                        f"unknown field '{_quoted(key)}'; allowed: {', '.join(allowed)}",
                        field=key,
                    )
        return data

    @classmethod
    def parse(cls, body: Any) -> Self:
        """Validate a decoded JSON body; ``InvalidInput`` names the field at fault."""
        try:
            return cls.model_validate(body)
        except ValidationError as exc:
            raise cls._error(exc) from exc

    @classmethod
    def _error(cls, exc: ValidationError) -> InvalidInput:
        error = exc.errors()[0]
        where = invalid_input(exc).field
        # The innermost field the path names, through nested request models (history[i]).
        model: Any = cls
        field = None
        for part in error["loc"]:
            if isinstance(part, int):
                continue
            fields = getattr(model, "model_fields", {})
            field = fields.get(str(part))
            if field is None:
                break
            inner = [a for a in getattr(field.annotation, "__args__", ()) if isinstance(a, type)]
            model = next((a for a in inner if issubclass(a, BaseModel)), field.annotation)
        if field is None or not field.description:
            return invalid_input(exc)
        description = field.description[0].lower() + field.description[1:].rstrip(".")
        if error["type"] == "missing":
            return InvalidInput(f"{where} is required: {description}", field=where)
        return InvalidInput(f"{where} must be {description}", field=where)


def _quoted(key: str) -> str:
    return key if len(key) <= 60 else f"{key[:60]}…"  # a caller's key, quoted not echoed


def _within_a_page(value: str, field: str) -> str:
    if len(value.encode("utf-8")) > MAX_CONTENT_BYTES:
        raise PayloadTooLarge(
            f"{field} is larger than {MAX_CONTENT_BYTES // 1024} KiB", field=field
        )
    return value


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("blank")
    return value


def _checked_slug(value: str) -> str:
    problem = slug_problem(value)
    if problem is not None:
        raise InvalidInput(f"invalid slug '{value[:220]}': {problem}", field="slug")
    return value


def _slug_first(value: object) -> object:
    # Before the pattern: the message says what is wrong with this slug.
    return _checked_slug(value) if isinstance(value, str) else value


def _page_sized(value: str, info: ValidationInfo) -> str:
    return _within_a_page(value, info.field_name or "content")


# The checks several request models share, each written once.
# A page slug: what is wrong with it said first, then the pattern and the length.
Slug = Annotated[
    str,
    Field(pattern=SLUG_RE.pattern, max_length=MAX_SLUG),
    BeforeValidator(_slug_first),  # wraps the pattern: runs first
]
# Markdown that fits a page (413 payload_too_large past it, at the field).
PageText = Annotated[str, AfterValidator(_page_sized)]
# A flag whose null is its default: false.
NullIsFalse = Annotated[
    bool,
    BeforeValidator(
        lambda value: False if value is None else value, json_schema_input_type=bool | None
    ),
]
# A flag only a JSON true sets: any other value (null, "yes", 1) is false.
OnlyTrue = Annotated[bool, BeforeValidator(lambda value: value is True, json_schema_input_type=Any)]

_SLUG = (
    "A page slug: lowercase ASCII letters, digits, '-', '_' and '—' as separator, "
    "starting and ending with a letter or digit, at most 200 characters, not a function name."
)
_CONTENT = "A string of Markdown: the page's body, at most 512 KiB in UTF-8."


class WikiCreateRequest(RequestBody):
    """``POST /wiki_create``: a new page."""

    slug: Slug | None = Field(
        default=None, description=_SLUG + " Derived from type and title when absent."
    )
    content: PageText = Field(description=_CONTENT)
    front_matter: FrontMatter = Field(
        description="A JSON object: the page's front matter (title and type required)."
    )

    @field_validator("front_matter", mode="before")
    @classmethod
    def _front_matter(cls, value: object) -> FrontMatter:
        # The one schema, with its friendly normalization and its own field paths.
        return parse_front_matter(value, "front_matter")


# The front matter with every key optional: what ``update_metadata`` may carry. Derived
# from the one schema (its types and descriptions), used only to document the field.
FrontMatterPatch = create_model(  # type: ignore[call-overload]
    "FrontMatterPatch",
    __config__=ConfigDict(extra="forbid"),
    __doc__="Front-matter keys to replace; a key left out keeps its stored value.",
    **{
        name: (Optional[info.annotation], Field(default=None, description=info.description))  # noqa: UP045
        for name, info in FrontMatter.model_fields.items()
    },
)


class WikiUpdateRequest(RequestBody):
    """``POST /wiki_update``: new content and/or metadata for an existing page."""

    slug: Slug = Field(description=_SLUG)
    content: PageText | None = Field(default=None, description=_CONTENT + " Absent: kept.")
    update_metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="A JSON object of front-matter keys whose values replace the stored ones "
        "(lists are replaced, not merged; null clears a field).",
    )
    expected_version: int | None = Field(
        default=None,
        ge=1,
        description="A positive integer: the version the update was made against "
        "(409 version_conflict when the page has moved on).",
    )

    @field_validator("update_metadata", mode="before", json_schema_input_type=FrontMatterPatch)
    @classmethod
    def _metadata(cls, value: object) -> object:
        if value is None:
            return {}
        if isinstance(value, dict):
            for key in value:
                if key not in FRONT_MATTER_KEYS:
                    raise InvalidInput(
                        f"unknown field '{_quoted(key)}'; allowed: {', '.join(FRONT_MATTER_KEYS)}",
                        field=f"update_metadata.{key}",
                    )
        return value  # values are checked with the stored page they complete


MAX_HISTORY_TURNS = 6
# An earlier answer as the widget got it back: a model's runs to a few thousand characters.
MAX_HISTORY_ANSWER_CHARS = 20_000


class Turn(RequestBody):
    """One earlier question of the conversation and the answer it got (other keys are
    ignored, as in ``AskRequest``)."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)

    question: str = Field(
        max_length=MAX_QUESTION_CHARS,
        pattern=r"\S",
        description="A non-blank string of at most 2,000 characters: an earlier question.",
    )
    answer: str = Field(
        default="",
        max_length=MAX_HISTORY_ANSWER_CHARS,
        description="A string of at most 20,000 characters: the answer it got.",
    )

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        text = strip_invisible(_non_blank(value)).strip()
        if not text:
            raise ValueError("no visible characters")
        return text


class AskRequest(RequestBody):
    """``POST /ask``: a question for the wiki. Unknown keys are ignored (the widget's)."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)

    question: str = Field(
        max_length=MAX_QUESTION_CHARS,
        pattern=r"\S",
        description="A non-blank string of at most 2,000 characters: the question.",
    )
    mode: Literal["help", "tutor"] = Field(
        default="help",
        description="'tutor' to answer without retrieval; any other value is 'help'.",
    )
    source_type: str | None = Field(
        default=None, description="A string or null: only pages of this type (runbook, …)."
    )
    category: str | None = Field(
        default=None, description="A string or null: only pages of this category."
    )
    tag: str | None = Field(
        default=None, description="A string or null: only pages carrying this tag."
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description="An integer from 1 to 20 (default 6): how many passages to use.",
    )
    archive: OnlyTrue = Field(
        default=False,
        description="True to send the answer through the archive gates (write credentials, "
        "or BIBLIOTECA_ARCHIVE_FROM_WIDGET=1); any other value is false.",
    )
    stream: OnlyTrue = Field(
        default=False,
        description="True to answer text/event-stream: an event 'sources', then 'delta' "
        "events with text, then 'done' with the whole response body; any other value is "
        "false.",
    )
    history: list[Turn] = Field(
        default_factory=list,
        max_length=MAX_HISTORY_TURNS,
        description="At most 6 earlier turns of the conversation, oldest first: the "
        "question is read as a follow-up of them.",
    )

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("blank")
        text = strip_invisible(value).strip()
        if not text:
            raise InvalidInput("question has no visible characters", field="question")
        return text

    @field_validator("mode", mode="before", json_schema_input_type=Any)
    @classmethod
    def _mode(cls, value: object) -> str:
        return "tutor" if value == "tutor" else "help"

    @field_validator("source_type", "category", "tag")
    @classmethod
    def _filter(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    @field_validator(
        "limit",
        mode="before",
        json_schema_input_type=Annotated[int, Field(ge=1, le=MAX_LIMIT)] | None,
    )
    @classmethod
    def _limit(cls, value: object) -> object:
        return DEFAULT_LIMIT if value is None else value

    @field_validator("history", mode="before", json_schema_input_type=list[Turn] | None)
    @classmethod
    def _history(cls, value: object) -> object:
        return [] if value is None else value


# The draft cites every source as a wiki source plus the question itself: one less than a
# page's cap leaves room for that query source.
MAX_ARCHIVE_SOURCES = MAX_SOURCES - 1


class ArchiveRequest(RequestBody):
    """``POST /archive``: a question and its answer, for the archive gates."""

    question: str = Field(
        max_length=MAX_QUESTION_CHARS,
        pattern=r"\S",
        description="A non-blank string of at most 2,000 characters: the question asked.",
    )
    answer: PageText = Field(
        pattern=r"\S", description="A non-blank string of Markdown, at most 512 KiB: the answer."
    )
    sources: list[str] = Field(
        default_factory=list,
        description="A list of the slugs of the pages the answer used (an entry may also be "
        "an object with 'slug').",
    )
    model: str | None = Field(
        default=None,
        description="A non-blank string of at most 200 characters: the model that wrote the "
        "answer (default: this deployment's answerer).",
    )

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        return _non_blank(value).strip()

    @field_validator("answer")
    @classmethod
    def _answer(cls, value: str) -> str:
        return _non_blank(value)

    @field_validator("sources", mode="before", json_schema_input_type=list[str] | None)
    @classmethod
    def _sources(cls, value: object) -> list[str]:
        return normalize_related(value, "sources", cap=MAX_ARCHIVE_SOURCES)

    @field_validator("model")
    @classmethod
    def _model(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not 0 < len(value.strip()) <= MAX_MODEL:
            raise ValueError("blank or too long")
        return value.strip()


def check_repo(value: str) -> str:
    """A repository name, trimmed: non-blank, at most 200 printable characters."""
    name = value.strip()
    if not name or len(name) > MAX_REPO or any(ord(c) < 32 for c in name):
        raise InvalidInput(
            f"repo is a name of at most {MAX_REPO} printable characters", field="repo"
        )
    return name


class IndexCodeRequest(RequestBody):
    """``POST /index_code``: the file paths of one repository."""

    repo: str = Field(
        description="A non-blank string of at most 200 printable characters: the repository."
    )
    paths: list[str] = Field(
        description="A list of file paths inside the repository (no '.' or '..' segments, "
        "at most 1,024 characters each); duplicates count once."
    )
    replace: NullIsFalse = Field(
        default=False,
        description="True or false (default false): remove this repository's indexed paths "
        "that are not in the list.",
    )

    @field_validator("repo")
    @classmethod
    def _repo(cls, value: str) -> str:
        return check_repo(value)

    @field_validator("paths")
    @classmethod
    def _paths(cls, value: list[str]) -> list[str]:
        out: dict[str, None] = {}
        for i, raw in enumerate(value):
            path, problem = clean_path(raw)
            if problem is not None:
                raise InvalidInput(f"{problem}: {raw[:120]!r}", field=f"paths[{i}]")
            out[path] = None
        return list(out)


class RebuildRequest(RequestBody):
    """``POST /rebuild``: build the static site (the scheduler sends ``{"full": false}``)."""

    full: NullIsFalse = Field(
        default=False,
        description="True or false (default false): render every page, not only what changed.",
    )


class PagesCitingRequest(RequestBody):
    """The agents' ``pages_citing`` tool (MCP): one code path, no HTTP function of its own."""

    path: str = Field(
        description="A file path in a repository, e.g. shared/services/wiki.py (no '.' or '..' "
        "segments, at most 1,024 characters); a shorter suffix such as services/wiki.py, or "
        "the file name alone, matches every longer path that ends with it."
    )

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        path, problem = clean_path(value)
        if problem is not None:
            raise InvalidInput(f"{problem}: {value[:120]!r}", field="path")
        return path


MAX_HISTORY = 100


class WikiHistoryRequest(RequestBody):
    """``POST /wiki_history``: a page's revisions, newest first (write credentials)."""

    slug: Slug = Field(description=_SLUG)
    limit: int = Field(
        default=20,
        ge=1,
        le=MAX_HISTORY,
        description="An integer from 1 to 100 (default 20): how many revisions, newest first.",
    )


DEFAULT_MIN_SCORE = 0.5


class DuplicatesRequest(RequestBody):
    """``POST /wiki_duplicates``: the duplicate groups found (write credentials)."""

    min_score: float = Field(
        default=DEFAULT_MIN_SCORE,
        ge=0.0,
        le=1.0,
        description="A number from 0 to 1 (default 0.5): leave out groups scored below it.",
    )


MAX_COMMENT_CHARS = 2000
MAX_ANSWER_ID = 64


class FeedbackRequest(RequestBody):
    """``POST /feedback``: a vote on an answer (``answer_id``) or a report on a page (``slug``)."""

    question: str | None = Field(
        default=None,
        max_length=MAX_QUESTION_CHARS,
        description="A string of at most 2,000 characters or null: the question asked "
        "(the answer's trace keeps it already).",
    )
    answer_id: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_-]+$",
        max_length=MAX_ANSWER_ID,
        description="A string or null: the answer_id of a help-mode ask answer (letters, "
        "digits, '-', '_', at most 64); answer_id or slug is required.",
    )
    rating: Literal["up", "down"] = Field(description="'up' or 'down'.")
    reason: Literal["incorrect", "outdated", "missing", "unclear", "other"] | None = Field(
        default=None,
        description="One of incorrect, outdated, missing, unclear, other, or null; only with "
        "rating 'down'.",
    )
    comment: str | None = Field(
        default=None,
        max_length=MAX_COMMENT_CHARS,
        description="A string of at most 2,000 characters or null: what was wrong.",
    )
    slug: Slug | None = Field(
        default=None,
        description="A page slug or null: the page the feedback is about (an agent reporting "
        "a page without an answer).",
    )

    @field_validator("question", "comment")
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        if value is None:
            return None
        return strip_invisible(value).strip() or None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.reason is not None and self.rating != "down":
            raise InvalidInput("reason goes only with rating 'down'", field="reason")
        if self.answer_id is None and self.slug is None:
            raise InvalidInput(
                "answer_id is required: the answer's id, or a page's slug", field="answer_id"
            )
        return self


# -- responses --------------------------------------------------------------------------
# Responses may carry more fields than these (the contract's rule), so none forbids extras;
# the error body is the exception: its keys are exactly the contract's.


class ResponseBody(BaseModel):
    """A response body; clients ignore fields they do not know.

    A service builds one (mypy checks each field against the model) and the edge sends
    ``body()``: a field left None is absent, as the contract's optional fields are, and
    the keys come in the order the model declares them."""

    model_config = ConfigDict(extra="allow")

    def body(self) -> JsonObject:
        """The JSON object this response is sent as."""
        return self.model_dump(mode="json", exclude_none=True)


class ErrorBody(BaseModel):
    """Every error: a message, the contract's code and, when one input field is at fault,
    the path to it in the request body."""

    model_config = ConfigDict(extra="forbid")

    error: str = Field(description="A human-readable message.")
    code: ErrorCode
    field: str | None = Field(
        default=None, description="The path of the faulty field, e.g. front_matter.sources[2]."
    )


class PublicPage(FrontMatter):
    """A page as responses show it: its front matter as stored plus its bookkeeping."""

    model_config = ConfigDict(extra="allow")

    slug: str
    version: int = Field(ge=1)
    created_at: datetime
    updated_at: datetime

    @classmethod
    def fields_of(cls, page: Page) -> dict[str, Any]:
        """The fields a view of ``page`` starts from: its front matter and bookkeeping."""
        return {
            **dict(page.front_matter),
            "slug": page.slug,
            "version": page.version,
            "created_at": page.created_at,
            "updated_at": page.updated_at,
        }

    @classmethod
    def of(cls, page: Page) -> PublicPage:
        """``page`` as responses show it. Made from a page already validated, so not
        validated again: the front matter's byte cap would count the bookkeeping too."""
        return cls.model_construct(**cls.fields_of(page))

    def body(self) -> JsonObject:
        """The JSON object the contract's ``page`` is: the front matter as stored
        (``FrontMatter.dump``: a null ``category`` or ``generated`` stays, a missing
        ``description`` and a source's missing ``last_seen`` are left out), then the
        bookkeeping, its timestamps in ``isoformat()`` (``+00:00``, as stored)."""
        data = self.dump()
        data["created_at"] = self.created_at.isoformat()
        data["updated_at"] = self.updated_at.isoformat()
        return data


def _with_page(response: ResponseBody, page: PublicPage) -> JsonObject:
    # ``body()``'s rule (a field left None is absent) for the response's own fields, the
    # contract's page (its nulls kept) in its place.
    data = response.model_dump(mode="json", exclude_none=True)
    data["page"] = page.body()
    return data


class WriteResponse(ResponseBody):
    """What a write did (``created`` 201, ``updated`` or ``unchanged`` 200)."""

    status: Literal["created", "updated", "unchanged"]
    slug: str
    version: int = Field(ge=1)
    page: PublicPage

    @classmethod
    def of(cls, status: Literal["created", "updated", "unchanged"], page: Page) -> WriteResponse:
        return cls(status=status, slug=page.slug, version=page.version, page=PublicPage.of(page))

    def body(self) -> JsonObject:
        return _with_page(self, self.page)


class ProposeResponse(ResponseBody):
    """What the agents' ``propose_update`` did: a draft or archived page is edited at once
    (``updated``/``unchanged``); a change to an ``active`` page waits for a curator as
    the proposal ``proposal`` (``proposed``; ``page`` is the page as it still is)."""

    status: Literal["updated", "unchanged", "proposed"]
    slug: str
    version: int = Field(ge=1, description="The page's version now (a proposal changes none).")
    page: PublicPage
    proposal: str | None = Field(
        default=None, description="With status proposed: its id (p-…), for the curator."
    )

    @classmethod
    def of(
        cls,
        status: Literal["updated", "unchanged", "proposed"],
        page: Page,
        proposal: str | None = None,
    ) -> ProposeResponse:
        return cls(
            status=status,
            slug=page.slug,
            version=page.version,
            page=PublicPage.of(page),
            proposal=proposal,
        )

    def body(self) -> JsonObject:
        return _with_page(self, self.page)


class RevisionEntry(ResponseBody):
    """One version of a page: when, by whom, and what it changed."""

    version: int = Field(ge=1)
    at: str = Field(description="When it was written, ISO 8601 in UTC.")
    actor: str = Field(
        description="Who wrote it: a credential's name (BIBLIOTECA_API_TOKENS; default for "
        "BIBLIOTECA_API_TOKEN), import:<tree>, archive, mcp:<client>, iam[:<email>] or the "
        "command line's actor."
    )
    changed: list[str] = Field(
        description="content and the front-matter keys whose value this version changed."
    )
    note: str | None = Field(
        default=None, description="Why, when a review step wrote it (accepted, reverted…)."
    )


class WikiHistoryResponse(ResponseBody):
    """A page's revisions, newest first (at most ``limit``; older ones may be past the
    retention, BIBLIOTECA_REVISIONS_KEEP)."""

    slug: str
    revisions: list[RevisionEntry]


class AskSource(ResponseBody):
    """One passage an answer used, best first."""

    slug: str
    title: str
    heading: str = Field(description="The passage's heading path, as plain text.")
    url: str = Field(
        description=(
            "The page's address with the anchor of the passage's heading (the id the site "
            "renders for it): absolute under BIBLIOTECA_SITE_URL, else relative to the "
            "site's root."
        )
    )
    score: float = Field(description="How relevant the passage is to the question, 0..1.")
    snippet: str = Field(description="The start of the passage's prose, as plain text.")
    freshness: FreshnessState = Field(
        description=(
            "Whether the code paths the page cites still exist in the code index: fresh, "
            "stale (some are gone), or unknown (it cites none, only paths outside the indexed "
            "repositories' top-level folders, or the index is empty)."
        )
    )
    kind: Kind | None = Field(
        default=None,
        description=(
            "What kind of page it is (guide, reference, tutorial, changelog, landing): a "
            "how-to question is answered from a guide first, a parameter from the reference."
        ),
    )


class AskArchive(ResponseBody):
    """Whether the answer went through the archive gates, and what they decided."""

    attempted: bool
    archived: bool | None = None
    reason: str
    slug: str | None = None
    proposal: str | None = Field(
        default=None,
        description="The proposal recorded on the page it duplicates (duplicate-of:<slug>).",
    )


class Grounding(ResponseBody):
    """The grounding gate's check of the code paths an answer cites."""

    checked: bool
    cited: int = Field(ge=0)
    resolved: int = Field(ge=0)
    unresolved: list[str]


class AskResponse(ResponseBody):
    """An answer in Markdown with the wiki passages it cites as ``[n]``."""

    answer_id: str | None = Field(
        default=None,
        description="Help mode only: the id POST /feedback takes to rate this answer (the "
        "server keeps the answer's trace for at least 30 days).",
    )
    answer: str
    sources: list[AskSource]
    model: str
    chunks_used: int = Field(ge=0)
    duration_ms: float = Field(ge=0)
    mode: Literal["help", "tutor"]
    confidence: Literal["high", "low"] | None = Field(
        default=None,
        description="Help mode only: low when the evidence is weak (the answer then opens "
        "by saying the wiki does not seem to cover the question).",
    )
    archive: AskArchive
    timings: dict[str, float] | None = Field(
        default=None, description="embed_ms, search_ms and generate_ms."
    )
    standalone_question: str | None = Field(
        default=None,
        description="With a history: the question as it was read on its own (searched and "
        "answered), when it differs from the one asked.",
    )
    grounding: Grounding | None = Field(
        default=None,
        description="Help mode: the grounding gate's check of the code paths the answer cites.",
    )
    unsupported: list[str] | None = Field(
        default=None,
        description="Code identifiers or paths the answer names that appear in no passage "
        "sent and not in the code index (present only when there are some).",
    )


class ArchiveResponse(ResponseBody):
    """The archive gates' decision (always a 200)."""

    archived: bool
    reason: str = Field(description="'archived', or the gate that refused, e.g. triage:short.")
    slug: str | None = Field(default=None, description="The draft, or the page it duplicates.")
    proposal: str | None = Field(
        default=None,
        description="duplicate-of:<slug>: the proposal recorded on that page, when the "
        "answer had something the page lacks.",
    )
    grounding: Grounding | None = None


class IndexCodeResponse(ResponseBody):
    """How many distinct paths of the repository the index now holds."""

    repo: str
    indexed: int = Field(ge=0)


class FailedPage(ResponseBody):
    slug: str
    field: str = Field(description="The path inside the page's front matter.")
    error: str


class BrokenLink(ResponseBody):
    """An internal address of the built site that leads nowhere (what a crawler finds)."""

    slug: str = Field(description="The page (or other built file) the address is on.")
    target: str = Field(
        description="Where it leads: a page's slug, 'slug#anchor', or an asset's path."
    )
    kind: Literal["page", "anchor", "asset"] = Field(
        description="'page': no such page; 'anchor': no such id there; 'asset': no such file."
    )


class StaleLease(ResponseBody):
    """A lease a stopped build never gave back, which this run waited out and took over."""

    owner: str
    expired_at: str


class RebuildReport(ResponseBody):
    """The rebuild's report: always the body, whatever the status (the contract's exception).

    When the build could not run at all it also carries the error body's fields.
    """

    status: Literal["ok", "failed", "rebuild_in_progress"]
    built: int = Field(ge=0)
    unchanged: int = Field(ge=0)
    removed: int = Field(ge=0)
    failed: list[FailedPage]
    broken_links: list[BrokenLink]
    duration_ms: int = Field(ge=0)
    full: bool = Field(description="Whether every page was rendered (the request's full).")
    timings_ms: dict[str, float] = Field(
        description="How long each phase of the build took, in milliseconds."
    )
    stale_lease: StaleLease | None = None
    error: str | None = None
    code: ErrorCode | None = None
    field: str | None = None


class FeedbackResponse(ResponseBody):
    """The feedback was recorded; a repeat from one client on one answer has the same id."""

    recorded: Literal[True]
    id: str


# -- what the agents' tools (MCP) answer besides the functions' bodies --------------------

_FRESHNESS = (
    "Whether the code paths the page cites still exist in the code index: fresh, stale "
    "(some are gone), or unknown (it cites none, only code outside the indexed repositories, "
    "or nothing says yet)."
)
_URL = (
    "The page on the published site: absolute when BIBLIOTECA_SITE_URL is set, else relative "
    "to the site's root."
)


class SearchHit(AskSource):
    """One passage found by ``search``: ``ask``'s source (its ``url`` at its heading)."""


class SearchResponse(ResponseBody):
    """The passages that match a query, best first (only published pages are searched)."""

    results: list[SearchHit]
    confidence: Literal["high", "low"] = Field(
        description="'low' when nothing matched well: the wiki does not seem to cover it."
    )


class PageView(PublicPage):
    """A whole page: front matter, bookkeeping (``version`` is what ``propose_update`` needs),
    its Markdown, freshness and URL."""

    content: str
    freshness: FreshnessState = Field(description=_FRESHNESS)
    url: str = Field(description=_URL)


class CitingPage(ResponseBody):
    """A published page that cites the code path asked about."""

    slug: str
    title: str
    type: str
    cites: list[str] = Field(description="The matching paths, as the page spells them.")
    where: list[Literal["sources", "content"]] = Field(
        description="Whether the page cites them among its sources, in its text, or both."
    )
    freshness: FreshnessState = Field(description=_FRESHNESS)
    url: str = Field(description=_URL)


class PagesCitingResponse(ResponseBody):
    """Every published page whose sources or content cite the path, by slug."""

    path: str = Field(description="The path asked about, normalized.")
    pages: list[CitingPage]


# The request and success response of each function, in the contract's order.


class DuplicatePage(ResponseBody):
    """One page of a duplicate group, as the run saw it."""

    slug: str
    title: str
    lang: str = Field(description="The language its text is written in: es or en.")
    status: str


class DuplicatePassage(ResponseBody):
    """Where two pages say the same thing (or, for a conflict, the values they state)."""

    slug: str
    heading: str
    text: str


class DuplicateGroup(ResponseBody):
    """Pages that duplicate each other, of one kind, with how sure the run is."""

    kind: Literal["copy", "overlap", "translation", "conflict"]
    score: float = Field(description="0..1: how sure the run is that the pages duplicate.")
    pages: list[DuplicatePage]
    passages: list[DuplicatePassage]
    note: str | None = Field(
        default=None,
        description="For a conflict the code index can settle: which value it holds true.",
    )


class DuplicatesResponse(ResponseBody):
    """``POST /wiki_duplicates`` and ``biblioteca duplicates --json``."""

    groups: list[DuplicateGroup]


ENDPOINTS: dict[str, tuple[type[RequestBody], type[BaseModel], int]] = {
    "wiki_create": (WikiCreateRequest, WriteResponse, 201),
    "wiki_update": (WikiUpdateRequest, WriteResponse, 200),
    "ask": (AskRequest, AskResponse, 200),
    "archive": (ArchiveRequest, ArchiveResponse, 200),
    "index_code": (IndexCodeRequest, IndexCodeResponse, 200),
    "rebuild": (RebuildRequest, RebuildReport, 200),
    "feedback": (FeedbackRequest, FeedbackResponse, 200),
    "wiki_history": (WikiHistoryRequest, WikiHistoryResponse, 200),
    "wiki_duplicates": (DuplicatesRequest, DuplicatesResponse, 200),
}
