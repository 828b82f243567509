"""The agents' tools through the MCP core: per-argument checks, write rules, what each answers.

Messages go through ``shared.mcp.protocol.handle`` as both transports hand them over, on
the service tier's temporary SQLite store and deterministic embedder.
"""

from __future__ import annotations

import io
import json
import logging
import re
import uuid
from typing import Any

import pytest

from shared.bootstrap import Wiring, install, reset_limits, wiring
from shared.config import get_settings
from shared.errors import Unauthorized
from shared.mcp.protocol import PROTOCOL_VERSIONS, handle
from shared.mcp.stdio import client_actor, serve
from shared.mcp.tools import TOOLS, Caller
from shared.services import review
from tests.fixtures.contract import MCP_TOOLS
from tests.fixtures.embedder import HashingEmbedder
from tests.service.conftest import Call

WRITER = Caller(may_write=True)
READER = Caller(may_write=False, refusal=Unauthorized("no credentials"))


def rpc(method: str, params: Any = None, *, caller: Caller = WRITER) -> dict[str, Any]:
    """One request through the core; its response."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params is not None:
        message["params"] = params
    response = handle(message, wiring(get_settings()), caller)
    assert response is not None
    assert response["id"] == 7
    return response


def tool(name: str, arguments: Any, *, caller: Caller = WRITER) -> tuple[bool, dict[str, Any]]:
    """``(isError, what the tool said)``: its structured result, or its error body."""
    result = rpc("tools/call", {"name": name, "arguments": arguments}, caller=caller)["result"]
    said = json.loads(result["content"][0]["text"])
    if not result["isError"]:
        assert result["structuredContent"] == said
    return result["isError"], said


@pytest.fixture
def pages(call: Call) -> dict[str, str]:
    """Three pages: an active runbook citing code, an active guide, and a draft."""
    tag = uuid.uuid4().hex[:8]
    bodies = {
        "runbook": (
            "# Rotar el certificado\n\nEjecuta `deploy/certs/rotate.sh` y revisa "
            "`shared/services/wiki.py` antes de publicar el certificado nuevo.",
            {"title": f"Rotar el certificado {tag}", "type": "runbook", "tags": ["tls"]},
        ),
        "guide": (
            "# Importar Markdown\n\nEl importador lee las carpetas de documentos.",
            {
                "title": f"Importar Markdown {tag}",
                "type": "guide",
                "sources": [{"type": "code", "ref": "services/importer.py"}],
            },
        ),
        "draft": (
            "# Borrador\n\nRotar certificados también cita shared/services/wiki.py.",
            {"title": f"Borrador {tag}", "type": "concept", "status": "draft"},
        ),
    }
    slugs = {}
    for key, (content, front_matter) in bodies.items():
        status, reply = call("wiki_create", {"content": content, "front_matter": front_matter})
        assert status == 201, reply
        slugs[key] = reply["slug"]
    return slugs


# -- the protocol ------------------------------------------------------------------------


def test_tools_list_is_the_contracts_tools_with_schemas_and_an_example_each(store: Any) -> None:
    """tools/list offers exactly the contract's tools, each with an object input schema and
    an English example that validates."""
    listed = rpc("tools/list")["result"]["tools"]
    assert {t["name"] for t in listed} == MCP_TOOLS
    for definition, defined in zip(listed, TOOLS, strict=True):
        assert definition["inputSchema"]["type"] == "object"
        assert definition["inputSchema"]["additionalProperties"] is False
        assert definition["outputSchema"]["type"] == "object"
        assert definition["annotations"]["readOnlyHint"] is (
            definition["name"] not in ("propose_page", "propose_update", "report_issue")
        )
        examples = re.findall(r"^Example: (\{.*\})$", definition["description"], re.MULTILINE)
        assert len(examples) == 1, definition["name"]
        defined.input.parse(json.loads(examples[0]))  # the example is a valid call


@pytest.mark.parametrize(
    ("asked", "spoken"),
    [(v, v) for v in PROTOCOL_VERSIONS] + [("1999-01-01", PROTOCOL_VERSIONS[0]), (3, "2025-11-25")],
)
def test_initialize_speaks_the_clients_revision_when_known(
    store: Any, asked: object, spoken: str
) -> None:
    """initialize answers the client's protocol revision if known, else the newest, with
    the tools capability and the server's name."""
    result = rpc(
        "initialize",
        {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )["result"]
    assert result["protocolVersion"] == spoken
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "biblioteca"


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"jsonrpc": "2.0", "id": 7, "method": "server/discover"}, -32601),
        ({"jsonrpc": "2.0", "id": 7, "method": "resources/list"}, -32601),
        ({"jsonrpc": "1.0", "id": 7, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 7, "method": 5}, -32600),
        ({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]}, -32602),
        ({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "nope"}}, -32602),
        (
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "search", "arguments": ["q"]},
            },
            -32602,
        ),
    ],
)
def test_protocol_faults_are_json_rpc_errors(
    store: Any, message: dict[str, Any], code: int
) -> None:
    """An unknown method or tool, or a malformed request, is a JSON-RPC error with its code."""
    response = handle(message, wiring(get_settings()), WRITER)
    assert response is not None
    assert response["error"]["code"] == code
    assert response["id"] == 7


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 1, "result": {}},
    ],
)
def test_notifications_and_responses_get_no_answer(store: Any, message: dict[str, Any]) -> None:
    """A notification or a client's response is taken without an answer."""
    assert handle(message, wiring(get_settings()), WRITER) is None


@pytest.mark.parametrize("request_id", [True, None, 1.5, [1]], ids=repr)
def test_an_id_that_is_not_a_string_or_integer_is_invalid(store: Any, request_id: object) -> None:
    """A request id must be a string or an integer (MCP forbids null)."""
    message = {"jsonrpc": "2.0", "id": request_id, "method": "ping"}
    response = handle(message, wiring(get_settings()), WRITER)
    assert response is not None
    assert (response["id"], response["error"]["code"]) == (None, -32600)


# -- per-argument checks -----------------------------------------------------------------

_FM = {"title": "Una página", "type": "concept"}
_TYPE, _TITLE = "front_matter.type", "front_matter.title"
_SOURCE, _COLOUR = "front_matter.sources[0]", "front_matter.colour"


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("search", {}, "query"),
        ("search", {"query": "   "}, "query"),
        ("search", {"query": "x" * 2001}, "query"),
        ("search", {"query": "x", "limit": 0}, "limit"),
        ("search", {"query": "x", "limit": 21}, "limit"),
        ("search", {"query": "x", "limit": "5"}, "limit"),
        ("search", {"query": "x", "type": 3}, "type"),
        ("search", {"query": "x", "tag": ["a"]}, "tag"),
        ("search", {"query": "x", "mode": "tutor"}, "mode"),
        ("get_page", {}, "slug"),
        ("get_page", {"slug": "Con Espacios"}, "slug"),
        ("get_page", {"slug": "ask"}, "slug"),
        ("ask", {"question": ""}, "question"),
        ("ask", {"question": "¿qué?", "archive": True}, "archive"),
        ("propose_page", {"content": "x"}, "front_matter"),
        ("propose_page", {"front_matter": _FM}, "content"),
        ("propose_page", {"content": 5, "front_matter": _FM}, "content"),
        ("propose_page", {"content": "x", "front_matter": {**_FM, "type": "post"}}, _TYPE),
        ("propose_page", {"content": "x", "front_matter": {"type": "concept"}}, _TITLE),
        ("propose_page", {"content": "x", "front_matter": {**_FM, "sources": [True]}}, _SOURCE),
        ("propose_page", {"content": "x", "front_matter": {**_FM, "colour": "red"}}, _COLOUR),
        ("propose_page", {"content": "x", "front_matter": _FM, "slug": "mine"}, "slug"),
        ("propose_update", {"slug": "x"}, "expected_version"),
        ("propose_update", {"slug": "x", "expected_version": 0}, "expected_version"),
        ("propose_update", {"slug": "x", "expected_version": True}, "expected_version"),
        (
            "propose_update",
            {"slug": "x", "expected_version": 1, "update_metadata": {"nope": 1}},
            "update_metadata.nope",
        ),
        ("pages_citing", {}, "path"),
        ("pages_citing", {"path": "../etc/passwd.py"}, "path"),
        ("pages_citing", {"path": ""}, "path"),
    ],
)
def test_a_bad_argument_is_a_tool_error_naming_it(
    store: Any, name: str, arguments: dict[str, Any], field: str
) -> None:
    """A bad or unknown argument comes back as a tool error (not a protocol error) whose
    field names it, as the tool's arguments are named; nothing is written."""
    is_error, said = tool(name, arguments)
    assert is_error
    assert (said["code"], said["field"]) == ("validation_error", field)
    assert store.pages.list() == []


def test_search_messages_name_the_tools_arguments(store: Any) -> None:
    """A renamed argument's message speaks of it (query, type), not of ask's field."""
    _, said = tool("search", {"query": " "})
    assert said["error"].startswith("query ")
    _, said = tool("search", {"query": "x", "type": 1})
    assert said["error"].startswith("type ")


def test_a_page_over_512_kib_is_payload_too_large_at_content(store: Any) -> None:
    """propose_page's content has the write path's limit: payload_too_large at content."""
    _, said = tool("propose_page", {"content": "x" * (512 * 1024 + 1), "front_matter": _FM})
    assert (said["code"], said["field"]) == ("payload_too_large", "content")


# -- writes --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["propose_page", "propose_update"])
def test_a_caller_without_credentials_is_refused_before_its_arguments(
    store: Any, name: str
) -> None:
    """propose_* without write credentials: unauthorized, even with broken arguments."""
    is_error, said = tool(name, {"content": 5}, caller=READER)
    assert is_error
    assert said == {"error": "no credentials", "code": "unauthorized"}
    assert store.pages.list() == []


def test_a_proposed_page_is_always_a_draft_by_mcp(store: Any) -> None:
    """propose_page stores a draft whatever status it asked for, with generated.by mcp."""
    is_error, said = tool(
        "propose_page",
        {"content": "# Hola\n\nTexto.", "front_matter": {**_FM, "status": "active"}},
    )
    assert not is_error, said
    assert (said["status"], said["version"]) == ("created", 1)
    assert said["page"]["status"] == "draft"
    assert said["page"]["generated"]["by"] == "mcp"
    stored = store.pages.get(said["slug"])
    assert stored.front_matter["status"] == "draft"
    assert [r.slug for r in store.pages.list(status="draft")] == [said["slug"]]


def test_a_proposal_keeps_the_generated_it_was_given(store: Any) -> None:
    """An agent that says who wrote the page keeps that provenance."""
    generated = {"by": "claude-code", "at": "2026-01-02T03:04:05+00:00"}
    _, said = tool(
        "propose_page", {"content": "x", "front_matter": {**_FM, "generated": generated}}
    )
    assert said["page"]["generated"] == generated


def test_propose_update_of_a_published_page_records_a_proposal_and_changes_nothing(
    store: Any, pages: dict[str, str]
) -> None:
    """propose_update of an active page answers 'proposed' with a p-… id: the page keeps
    its version, text and tags until a curator accepts (then version + 1, by the agent)."""
    slug = pages["runbook"]
    _, page = tool("get_page", {"slug": slug})
    is_error, said = tool(
        "propose_update",
        {
            "slug": slug,
            "expected_version": page["version"],
            "content": "# Rotar\n\nNuevo texto.",
            "update_metadata": {"tags": ["tls", "ops"]},
        },
        caller=Caller(may_write=True, actor="mcp:claude-code"),
    )
    assert not is_error, said
    assert (said["status"], said["version"]) == ("proposed", page["version"])
    assert re.fullmatch(r"p-[0-9a-f]{12}", said["proposal"])
    stored = store.pages.get(slug)
    assert (stored.version, stored.front_matter["tags"]) == (page["version"], ["tls"])
    [waiting] = store.proposals.list()
    assert (waiting.id, waiting.actor, waiting.base_version) == (
        said["proposal"],
        "mcp:claude-code",
        page["version"],
    )
    accepted = review.accept(said["proposal"], store, HashingEmbedder(), actor="cli:ana")
    assert (accepted["version"], accepted["page"]["tags"]) == (page["version"] + 1, ["tls", "ops"])
    assert accepted["page"]["status"] == "active"
    [last, *_] = store.revisions.history(slug)
    assert (last.actor, last.note) == (
        "mcp:claude-code",
        f"accepted {said['proposal']} (by cli:ana)",
    )


def test_propose_update_of_a_draft_edits_it_at_once(store: Any, pages: dict[str, str]) -> None:
    """A draft is nobody's reading yet: the agent's edit lands as a new version, still draft."""
    is_error, said = tool(
        "propose_update",
        {"slug": pages["draft"], "expected_version": 1, "content": "# Borrador\n\nMejor."},
    )
    assert not is_error, said
    assert (said["status"], said["version"], said["page"]["status"]) == ("updated", 2, "draft")
    assert store.proposals.list() == []


def test_propose_update_never_changes_a_status(store: Any, pages: dict[str, str]) -> None:
    """Promoting or archiving is the curator's: status in update_metadata is refused."""
    slug = pages["draft"]
    for status in ("active", "archived", "draft"):
        is_error, said = tool(
            "propose_update",
            {"slug": slug, "expected_version": 1, "update_metadata": {"status": status}},
        )
        assert is_error
        assert said["field"] == "update_metadata.status"
    assert store.pages.get(slug).front_matter["status"] == "draft"
    assert store.pages.get(slug).version == 1


def test_a_stale_version_and_an_unknown_slug_are_named(store: Any, pages: dict[str, str]) -> None:
    """A stale expected_version is version_conflict at it; an unknown slug not_found."""
    _, said = tool(
        "propose_update", {"slug": pages["guide"], "expected_version": 5, "content": "x"}
    )
    assert (said["code"], said["field"]) == ("version_conflict", "expected_version")
    _, said = tool("propose_update", {"slug": "no-such-page", "expected_version": 1})
    assert (said["code"], said["field"]) == ("not_found", "slug")


# -- reading --------------------------------------------------------------------------------


def test_get_page_returns_the_page_with_version_freshness_and_url(
    store: Any, pages: dict[str, str]
) -> None:
    """get_page: front matter, slug, version, timestamps, the Markdown, freshness and URL."""
    is_error, page = tool("get_page", {"slug": pages["runbook"]}, caller=READER)
    assert not is_error, page
    assert page["slug"] == pages["runbook"]
    assert (page["version"], page["type"], page["status"]) == (1, "runbook", "active")
    assert page["content"].startswith("# Rotar el certificado")
    assert page["freshness"] == "unknown"  # no code is indexed here
    assert page["url"].endswith("/index.html")
    assert {"created_at", "updated_at", "tags", "sources"} <= set(page)


def test_a_draft_is_read_only_by_a_writer(store: Any, pages: dict[str, str]) -> None:
    """Unpublished pages are not_found for a reader; a writer reads what it may write."""
    is_error, said = tool("get_page", {"slug": pages["draft"]}, caller=READER)
    assert is_error
    assert (said["code"], said["field"]) == ("not_found", "slug")
    is_error, page = tool("get_page", {"slug": pages["draft"]}, caller=WRITER)
    assert not is_error
    assert page["status"] == "draft"


def test_search_answers_passages_with_freshness_and_url_and_records_the_hit(
    store: Any, pages: dict[str, str]
) -> None:
    """search: published passages best first, each with freshness and URL; the query is
    a utility_hit like ask's, from origin mcp, so gap analytics counts it."""
    is_error, found = tool(
        "search", {"query": "rotar el certificado", "limit": 3, "type": "runbook"}
    )
    assert not is_error, found
    assert found["confidence"] == "high"
    [hit] = found["results"]
    assert hit["slug"] == pages["runbook"]
    assert {"title", "heading", "snippet", "score", "freshness", "url"} <= set(hit)
    assert 0 < hit["score"] <= 1
    [event] = store.events.recent("utility_hit")
    assert event["question"] == "rotar el certificado"
    assert (event["origin"], event["tool"]) == ("mcp", "search")
    assert event["slugs"] == [pages["runbook"]]


def test_a_search_that_finds_nothing_says_so_and_is_recorded_weak(
    store: Any, pages: dict[str, str]
) -> None:
    """No passage passes the relevance gate: empty results, confidence low, a weak hit."""
    _, found = tool("search", {"query": "zanahorias moradas xyzzy"})
    assert found == {"results": [], "confidence": "low"}
    [event] = store.events.recent("utility_hit")
    assert (event["confidence"], event["origin"]) == ("low", "mcp")


def test_urls_are_absolute_with_the_site_url(
    store: Any, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With BIBLIOTECA_SITE_URL set, results link the published page absolutely."""
    monkeypatch.setenv("BIBLIOTECA_SITE_URL", "https://docs.example.com/wiki/")
    get_settings.cache_clear()
    install(Wiring(get_settings(), store=store, embedder=HashingEmbedder()))
    _, page = tool("get_page", {"slug": pages["guide"]})
    assert page["url"].startswith("https://docs.example.com/wiki/")
    assert page["url"].endswith("/index.html")


def test_ask_answers_the_ask_body_and_records_its_origin(store: Any, pages: dict[str, str]) -> None:
    """ask: the ask body (answer, sources, model, confidence); its hit says origin mcp."""
    is_error, said = tool("ask", {"question": "¿Cómo roto el certificado?"})
    assert not is_error, said
    assert {"answer", "sources", "model", "confidence", "archive"} <= set(said)
    assert said["mode"] == "help"
    assert said["archive"]["attempted"] is False
    [event] = store.events.recent("utility_hit")
    assert event["origin"] == "mcp"
    assert "tool" not in event


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("shared/services/wiki.py", {"runbook"}),  # cited in the text, whole
        ("services/wiki.py", {"runbook"}),  # a suffix of a cited path
        ("wiki.py", {"runbook"}),  # the file name alone
        ("SHARED/Services/WIKI.py", {"runbook"}),  # case is ignored
        ("src/shared/services/wiki.py", {"runbook"}),  # the page cites a suffix of it
        ("app/services/importer.py", {"guide"}),  # a code source that is a suffix
        ("deploy/certs/rotate.sh", {"runbook"}),
        ("ervices/wiki.py", set()),  # not on a '/' boundary
        ("other/wiki.py", set()),
    ],
)
def test_pages_citing_matches_on_slash_boundaries_both_ways(
    store: Any, pages: dict[str, str], path: str, expected: set[str]
) -> None:
    """pages_citing lists published pages whose sources or text cite the path (drafts
    not), matching suffixes on '/' boundaries both ways, case-insensitively."""
    is_error, said = tool("pages_citing", {"path": path}, caller=READER)
    assert not is_error, said
    assert {p["slug"] for p in said["pages"]} == {pages[k] for k in expected}


def test_pages_citing_says_where_and_follows_writes(store: Any, pages: dict[str, str]) -> None:
    """Each page says which paths matched and where; a later write is seen at once."""
    _, said = tool("pages_citing", {"path": "services/importer.py"})
    [page] = said["pages"]
    assert (page["cites"], page["where"]) == (["services/importer.py"], ["sources"])
    _, draft = tool("get_page", {"slug": pages["guide"]})
    _, proposed = tool(
        "propose_update",
        {
            "slug": pages["guide"],
            "expected_version": draft["version"],
            "content": "Lee shared/services/importer.py.",
        },
    )
    _, said = tool("pages_citing", {"path": "services/importer.py"})
    assert said["pages"][0]["where"] == ["sources"]  # a proposal is not the page yet
    review.accept(proposed["proposal"], store, HashingEmbedder(), actor="cli:ana")
    _, said = tool("pages_citing", {"path": "services/importer.py"})
    [page] = said["pages"]
    assert sorted(page["cites"]) == ["services/importer.py", "shared/services/importer.py"]
    assert page["where"] == ["sources", "content"]


def test_over_http_search_and_ask_count_against_the_callers_ask_budget(
    store: Any, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a client address (HTTP), search and ask share ask's per-client limit and the
    refusal is a rate_limited tool error; over stdio (no address) nothing is limited."""
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "2/minute")
    get_settings.cache_clear()
    reset_limits()
    install(Wiring(get_settings(), store=store, embedder=HashingEmbedder()))
    agent = Caller(may_write=False, client_id="203.0.113.7")
    assert tool("search", {"query": "certificado"}, caller=agent)[0] is False
    assert tool("ask", {"question": "¿certificado?"}, caller=agent)[0] is False
    is_error, said = tool("search", {"query": "certificado"}, caller=agent)
    assert (is_error, said["code"]) == (True, "rate_limited")
    assert tool("get_page", {"slug": pages["guide"]}, caller=agent)[0] is False  # no model
    other = Caller(may_write=False, client_id="203.0.113.8")
    assert tool("search", {"query": "certificado"}, caller=other)[0] is False
    for _ in range(3):
        assert tool("search", {"query": "certificado"}, caller=READER)[0] is False
    reset_limits()


def test_each_tool_call_logs_its_name_and_outcome_never_its_arguments(
    store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """One log line per call says which tool and how it ended; the arguments stay out."""
    with caplog.at_level(logging.INFO, logger="biblioteca.mcp"):
        tool("search", {"query": "secreto-del-agente"})
        tool("propose_page", {"content": "x", "front_matter": {"title": "T"}})
    lines = [r for r in caplog.records if r.name == "biblioteca.mcp"]
    assert [(getattr(r, "tool", None), getattr(r, "code", "?")) for r in lines] == [
        ("search", None),
        ("propose_page", "validation_error"),
    ]
    assert "secreto-del-agente" not in caplog.text


# -- report_issue --------------------------------------------------------------------------


def test_report_issue_on_a_page_lands_as_a_down_vote_without_credentials(
    store: Any, pages: dict[str, str]
) -> None:
    """A reader reports a page: a ``down`` item from origin mcp, reason and comment kept."""
    slug = pages["runbook"]
    arguments = {"slug": slug, "reason": "outdated", "comment": "rotate.sh se movió"}

    is_error, said = tool("report_issue", arguments, caller=READER)

    assert not is_error, said
    assert said == {"recorded": True, "id": said["id"]}
    [item] = store.feedback.list()
    assert (item.rating, item.reason, item.comment) == ("down", "outdated", "rotate.sh se movió")
    assert (item.slug, item.origin, item.id) == (slug, "mcp", said["id"])


def test_report_issue_on_an_answer_keeps_its_trace(store: Any, pages: dict[str, str]) -> None:
    """The answer_id the ask tool returned: the report carries that answer's trace."""
    is_error, answer = tool("ask", {"question": "¿Cómo roto el certificado?"}, caller=READER)
    assert not is_error, answer
    arguments = {"answer_id": answer["answer_id"], "reason": "incorrect", "comment": "no"}

    is_error, said = tool("report_issue", arguments, caller=READER)

    assert not is_error, said
    [item] = store.feedback.list()
    assert item.trace is not None
    assert item.trace.origin == "mcp"
    assert item.trace.answer == answer["answer"]


@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [
        ({"slug": "runbook—nada", "reason": "other", "comment": "x"}, "not_found", "slug"),
        ({"answer_id": "f" * 32, "reason": "other", "comment": "x"}, "not_found", "answer_id"),
        ({"reason": "other", "comment": "x"}, "validation_error", "answer_id"),
        ({"slug": "runbook—nada", "comment": "x"}, "validation_error", "reason"),
        ({"slug": "runbook—nada", "reason": "ugly", "comment": "x"}, "validation_error", "reason"),
        ({"slug": "x", "reason": "other", "comment": "c" * 2001}, "validation_error", "comment"),
        (
            {"slug": "x", "reason": "other", "comment": "x", "rating": "up"},
            "validation_error",
            "rating",
        ),
    ],
    ids=repr,
)
def test_report_issue_errors_name_the_argument(
    store: Any, arguments: dict[str, Any], code: str, field: str
) -> None:
    """Unknown targets are not_found; bad arguments name themselves; nothing is recorded."""
    is_error, said = tool("report_issue", arguments, caller=READER)
    assert is_error
    assert (said["code"], said.get("field")) == (code, field)
    assert store.feedback.list() == []


def test_search_returns_a_weak_match_that_shares_the_querys_words(call: Call) -> None:
    """The issue's repro: on a one-page wiki whose page answers the query in other words
    (rebuild / reconstruye, via the glossary), search returns that page, marked low,
    instead of an empty list."""
    status, reply = call(
        "wiki_create",
        {
            "content": "el rebuild lo dispara Cloud Scheduler cada 30 minutos",
            "front_matter": {"title": "Operación", "type": "runbook"},
        },
    )
    assert status == 201, reply
    _, found = tool("search", {"query": "¿cada cuánto se reconstruye el sitio?"})
    assert [r["slug"] for r in found["results"]] == [reply["slug"]]
    # One shared word among many: under the relevance gate, still returned, marked low.
    query = "¿cuántas réplicas del rebuild corren en producción con balanceo regional?"
    _, weak = tool("search", {"query": query})
    assert [r["slug"] for r in weak["results"]] == [reply["slug"]]
    assert weak["confidence"] == "low"
    assert 0 < weak["results"][0]["score"] <= 1


def test_over_stdio_the_actor_is_the_client_name_from_initialize(store: Any) -> None:
    """biblioteca mcp: the clientInfo name of initialize names the session's writes
    (mcp:claude-code); before any handshake they are mcp:stdio."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": PROTOCOL_VERSIONS[0], "capabilities": {},
                    "clientInfo": {"name": "claude code", "version": "2"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "propose_page", "arguments": {
             "content": "# Uno\n\nTexto.", "front_matter": {"title": "Uno", "type": "guide"}}}},
    ]  # fmt: skip
    out = io.StringIO()
    serve(io.StringIO("".join(json.dumps(m) + "\n" for m in lines)), out, wiring(), WRITER)
    made = json.loads(out.getvalue().splitlines()[1])["result"]["structuredContent"]
    assert [r.actor for r in store.revisions.history(made["slug"])] == ["mcp:claude-code"]
    assert client_actor({"method": "tools/list"}) is None
    assert client_actor({"method": "initialize", "params": {}}) == "mcp:stdio"
