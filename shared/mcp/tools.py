"""The agents' tools: what each takes (a view of a request model), says, and answers.

Reading tools (search, get_page, ask, pages_citing) serve every caller the transport lets
in, and so does report_issue (a ``down`` vote in the feedback store, as the widget's 👎);
propose_page and propose_update need write credentials, checked before their
arguments, and go through the write path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from shared.api.models import (
    AskRequest,
    AskResponse,
    FeedbackRequest,
    FeedbackResponse,
    PagesCitingRequest,
    PagesCitingResponse,
    PageView,
    ProposeResponse,
    SearchResponse,
    WikiCreateRequest,
    WikiUpdateRequest,
    WriteResponse,
)
from shared.bootstrap import Wiring
from shared.errors import BibliotecaError, Conflict
from shared.json_value import JsonObject
from shared.mcp.inputs import ToolInput, output_schema
from shared.mcp.messages import ToolDefinition
from shared.services import review
from shared.services.duplicates import duplicate_of
from shared.services.feedback import record_feedback
from shared.services.reading import page_view

PROPOSER = "mcp"  # ``generated.by`` of a proposed page that does not say who wrote it
MCP_ACTOR = "mcp"  # what an agent's writes are attributed to: mcp:<client name>


@dataclass(frozen=True)
class Caller:
    """Who calls, as the transport knows: whether they may write (else ``refusal`` says
    why), and the key of the per-client rate limit (None: not limited, as over stdio)."""

    may_write: bool
    refusal: BibliotecaError | None = None
    client_id: str | None = None
    actor: str = MCP_ACTOR  # who the revisions and proposals name: mcp:<client name>


Run = Callable[[Any, Wiring, Caller], JsonObject]  # the response model's body


@dataclass(frozen=True)
class Tool:
    """One tool: its name and words for agents, its arguments (a view of a request model),
    the response model its result matches, and the work; ``writes``: needs credentials."""

    name: str
    title: str
    description: str
    input: ToolInput
    output: type[BaseModel]
    run: Run
    writes: bool = False
    records: bool = False  # keeps what the caller says (feedback), without write credentials

    def definition(self) -> ToolDefinition:
        """The tool as ``tools/list`` shows it."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input.schema(),
            "outputSchema": output_schema(self.output),
            "annotations": {
                "title": self.title,
                "readOnlyHint": not (self.writes or self.records),
                "destructiveHint": False,
                "idempotentHint": not self.writes,
                "openWorldHint": False,
            },
        }

    def call(
        self, arguments: Mapping[str, Any] | None, wiring: Wiring, caller: Caller
    ) -> JsonObject:
        """Credentials first (a refused writer's arguments are not even read), then the
        arguments, then the work; any ``BibliotecaError`` is the caller's to see."""
        if self.writes and not caller.may_write:
            raise caller.refusal or BibliotecaError("writes are not allowed here")
        return self.run(self.input.parse(arguments), wiring, caller)


# -- what the tools share ----------------------------------------------------------------


def _rate_limited(caller: Caller, w: Wiring) -> None:
    # The tools that run a model count against the caller's ``ask`` budget.
    if caller.client_id is not None:
        w.limiter("ask").check(caller.client_id)


# -- the tools: each parses its arguments (``Tool.call``), calls one service, answers ---


def _search(request: AskRequest, w: Wiring, caller: Caller) -> JsonObject:
    _rate_limited(caller, w)
    return w.search(request, client_id=None if caller.may_write else caller.client_id).body()


def _get_page(request: WikiUpdateRequest, w: Wiring, caller: Caller) -> JsonObject:
    return page_view(
        request.slug, w.store, unpublished=caller.may_write, site_url=w.settings.site_url
    ).body()


def _ask(request: AskRequest, w: Wiring, caller: Caller) -> JsonObject:
    _rate_limited(caller, w)
    # The tool never archives: ``archive`` is not one of its arguments.
    return w.ask(request, authorized=False, client_id=caller.client_id or "", origin="mcp").body()


def _propose_page(request: WikiCreateRequest, w: Wiring, caller: Caller) -> JsonObject:
    # A page that restates one readers already have is a second answer to one question:
    # the agent is told which page to propose_update instead.
    title = request.front_matter.title
    same = duplicate_of(title, request.content, w.store, w.embedder)
    if same is not None:
        raise Conflict(
            f"this page duplicates the published page '{same}': call propose_update with "
            f"slug '{same}' to add what it lacks instead of proposing a second page",
            field="content",
        )
    return review.propose_page(
        request, w.store, w.embedder, actor=caller.actor, proposer=PROPOSER
    ).body()


def _propose_update(request: WikiUpdateRequest, w: Wiring, caller: Caller) -> JsonObject:
    return w.propose_update(request, actor=caller.actor).body()


def _pages_citing(request: PagesCitingRequest, w: Wiring, caller: Caller) -> JsonObject:
    del caller
    return w.pages_citing(request.path).body()


# Over stdio the caller is the local user: one client for the "one vote per answer" rule.
LOCAL_CLIENT = "mcp-stdio"


def _report_issue(request: FeedbackRequest, w: Wiring, caller: Caller) -> JsonObject:
    if caller.client_id is not None:
        w.limiter("feedback").check(caller.client_id)
    return record_feedback(
        request,
        w.store,
        client_id=caller.client_id or LOCAL_CLIENT,
        authorized=caller.may_write,
        origin="mcp",
    ).body()


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="search",
        title="Search the wiki",
        description=(
            "Search the team's wiki (Biblioteca; pages mostly in Spanish, queries in Spanish "
            "or English) for the passages that best match a query. Returns up to `limit` "
            "passages, best first, each with its page's slug, title, section heading, a "
            "snippet, a 0..1 relevance score, the page's freshness (fresh, stale, unknown: "
            "whether the code it cites still exists) and its URL. Only published pages are "
            "searched. Passages that clearly match come first; after them, passages that only "
            "share words with the query, with their low score. Confidence 'low' means the wiki "
            "may not cover the query; an empty list means no page shares its words or meaning "
            "(the query is recorded so curators can fill the gap). `type` keeps pages of one "
            "type (concept, decision, entity, feature, runbook, guide, reference); `tag` "
            "pages with that tag. Read a whole page with get_page.\n"
            'Example: {"query": "¿Cómo se promueve un borrador?", "limit": 5, "type": "runbook"}'
        ),
        input=ToolInput(
            AskRequest,
            {"query": "question", "limit": "limit", "type": "source_type", "tag": "tag"},
            fixed={"mode": "help"},
        ),
        output=SearchResponse,
        run=_search,
    ),
    Tool(
        name="get_page",
        title="Read a wiki page",
        description=(
            "Read one wiki page in full: its Markdown content, its front matter (title, type, "
            "status, sources, related, tags, category, generated), its version (pass it as "
            "expected_version to propose_update), created_at/updated_at, freshness and URL. "
            "Published pages are open to every caller; drafts and archived pages only to "
            "callers with write credentials. An unknown slug is a not_found error.\n"
            'Example: {"slug": "runbook—promover-un-borrador"}'
        ),
        input=ToolInput(WikiUpdateRequest, {"slug": "slug"}),
        output=PageView,
        run=_get_page,
    ),
    Tool(
        name="ask",
        title="Ask the wiki",
        description=(
            "Ask the wiki a question and get a short answer in Markdown, written from the "
            "wiki's passages and citing them as [n], with those sources (slug, title, heading, "
            "score, snippet), the model that wrote it and a confidence: 'low' means the wiki "
            "does not seem to cover the question and the answer says so. `unsupported` lists "
            "code names in the answer that no passage or code index supports. Pass its "
            "answer_id to report_issue if the answer is wrong. Use search and "
            "get_page when you need the exact text; ask for a quick synthesized answer.\n"
            'Example: {"question": "How do I rebuild the site after changing a template?"}'
        ),
        input=ToolInput(AskRequest, {"question": "question"}, fixed={"mode": "help"}),
        output=AskResponse,
        run=_ask,
    ),
    Tool(
        name="propose_page",
        title="Propose a new page",
        description=(
            "Propose a new wiki page (needs write credentials). It is stored as a draft for a "
            "human curator (its status is always draft, whatever you pass), is neither "
            "searched nor published until the curator promotes it, and its slug is derived "
            "from type and title (type—title, with -2, -3… if taken). `generated` defaults "
            "to {by: 'mcp', at: now}. front_matter takes title and type (required: concept, "
            "decision, entity, feature, runbook, guide or reference), sources (code paths, "
            "commits, docs, wiki slugs), related (slugs), tags and category. Returns the new "
            "slug and version. Invalid input is an error whose `field` names the culprit, "
            "e.g. front_matter.type: fix that field and call again. A page that duplicates "
            "a published one is refused naming that page: propose_update it instead.\n"
            'Example: {"content": "# Rotar el certificado\\n\\n1. Ejecuta `deploy/certs.sh`.", '
            '"front_matter": {"title": "Rotar el certificado", "type": "runbook", '
            '"tags": ["tls"], "sources": [{"type": "code", "ref": "deploy/certs.sh"}]}}'
        ),
        input=ToolInput(WikiCreateRequest, {"content": "content", "front_matter": "front_matter"}),
        output=WriteResponse,
        run=_propose_page,
        writes=True,
    ),
    Tool(
        name="propose_update",
        title="Propose a change to a page",
        description=(
            "Propose a change to an existing page's content and/or front matter (needs write "
            "credentials). A published (active) page is not changed: the change is kept as a "
            "proposal for a human curator (status 'proposed', its id in `proposal`), who "
            "accepts or rejects it; a draft is edited at once (status 'updated'). "
            "expected_version is the version you read with get_page: if the "
            "page changed since, the error is version_conflict; read it again, re-apply your "
            "change and retry. A key in update_metadata replaces the stored value (lists are "
            "replaced, not merged; null clears); content, when given, replaces the whole "
            "body. The page's status is the curator's and cannot be changed here. A change "
            "that changes nothing answers status 'unchanged' and keeps the version. Invalid "
            "input is an error whose `field` names the culprit, e.g. "
            "update_metadata.sources[0].\n"
            'Example: {"slug": "runbook—rotar-el-certificado", "expected_version": 3, '
            '"update_metadata": {"tags": ["tls", "seguridad"]}}'
        ),
        input=ToolInput(
            WikiUpdateRequest,
            {
                "slug": "slug",
                "expected_version": "expected_version",
                "content": "content",
                "update_metadata": "update_metadata",
            },
            required=("expected_version",),
        ),
        output=ProposeResponse,
        run=_propose_update,
        writes=True,
    ),
    Tool(
        name="report_issue",
        title="Report a problem with a page or an answer",
        description=(
            "Tell the wiki's curators that a page (slug) or an answer you got from ask "
            "(its answer_id) is wrong: it lands in their feedback queue as a thumbs-down, "
            "with the answer's trace (which page versions produced it). reason is one of "
            "incorrect, outdated (e.g. it cites code that moved), missing (the wiki lacks "
            "this), unclear, other; comment says what is wrong and, if you know, what is "
            "right (at most 2,000 characters). Give slug or answer_id (an unknown one is a "
            "not_found error). Reporting the same page or answer again replaces your "
            "earlier report. It never changes the page or the ranking: to fix a page, "
            "use propose_update.\n"
            'Example: {"slug": "runbook—rotar-el-certificado", "reason": "outdated", '
            '"comment": "deploy/certs/rotate.sh moved to ops/certs/rotate.sh"}'
        ),
        input=ToolInput(
            FeedbackRequest,
            {"slug": "slug", "answer_id": "answer_id", "reason": "reason", "comment": "comment"},
            required=("reason", "comment"),
            fixed={"rating": "down"},
        ),
        output=FeedbackResponse,
        run=_report_issue,
        records=True,
    ),
    Tool(
        name="pages_citing",
        title="Pages that cite a code path",
        description=(
            "List the published pages whose sources or text cite a code path: the pages to "
            "review when you change, move or delete that file. Paths compare case-"
            "insensitively on '/' boundaries, both ways: 'services/wiki.py' finds pages "
            "citing 'shared/services/wiki.py', and a page citing 'services/wiki.py' is listed "
            "for 'shared/services/wiki.py'. Each page says which of its paths matched and "
            "where (sources, content).\n"
            'Example: {"path": "shared/services/wiki.py"}'
        ),
        input=ToolInput(PagesCitingRequest, {"path": "path"}),
        output=PagesCitingResponse,
        run=_pages_citing,
    ),
)

BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
