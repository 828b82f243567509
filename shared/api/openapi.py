"""The OpenAPI 3.1 document of the HTTP functions, generated from ``shared.api.models``.

``python -m shared.api.openapi`` rewrites ``openapi.json`` at the repository root
(``--check`` only compares); ``biblioteca serve`` serves the same at ``/openapi.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from shared.api.models import ENDPOINTS, ErrorBody, RebuildReport
from shared.json_value import JsonObject

FILE = Path(__file__).resolve().parents[2] / "openapi.json"
_REF = "#/components/schemas/{model}"
_WRITES = (
    "wiki_create",
    "wiki_update",
    "archive",
    "index_code",
    "rebuild",
    "wiki_history",
    "wiki_duplicates",
)

# Statuses every function may answer with the error body (the contract's checks, in order:
# method, credentials, size, media type, body) and those of each function's own work.
_EVERY = {
    400: "Malformed JSON or a body that breaks the schema (`field` names the culprit).",
    405: "Any method but POST (the `Allow` header says so).",
    408: "The body stopped arriving.",
    413: "A body over 1 MiB, or a field over its limit (`field` names it).",
    415: "A body sent without `Content-Type: application/json`.",
    500: "A bug: the failure was logged, never shown.",
}
_WRITE = {
    401: "Missing or wrong `Authorization: Bearer` token.",
    403: "The token's role may not do this (`forbidden`, naming the role): an `agent` "
    "token reads and proposes, never publishes.",
    503: "A setting is missing (`not_configured`) or a backend cannot be reached.",
}
_OWN: dict[str, dict[int, str]] = {
    "wiki_create": {
        409: "The slug exists (`conflict`).",
        502: "The embedding model answered nonsense.",
    },
    "wiki_update": {
        404: "No page with that slug.",
        409: "`expected_version` is stale (`version_conflict`).",
        502: "The embedding model answered nonsense.",
    },
    "ask": {
        429: "Over the per-client rate limit (`Retry-After` says when to come back).",
        502: "The language or embedding model answered nonsense.",
        503: "A model key or the store is missing or unreachable; `reindex_required` after "
        "changing the embedder.",
    },
    "archive": {
        409: "Concurrent writes kept taking the draft's slug; retry.",
        502: "The embedding model answered nonsense.",
    },
    "index_code": {},
    "rebuild": {
        409: "Another run holds the lease: the report with status `rebuild_in_progress`.",
    },
    "feedback": {
        401: "BIBLIOTECA_FEEDBACK_FROM_WIDGET=0 and no valid `Authorization: Bearer` token.",
        404: "No answer with that `answer_id` (or its trace expired), or no published page "
        "with that `slug`.",
        429: "Over the per-client rate limit (`Retry-After` says when to come back).",
        503: "The store is unreachable, or BIBLIOTECA_FEEDBACK_FROM_WIDGET=0 without a token set.",
    },
    "wiki_history": {
        404: "No page with that slug.",
    },
    "wiki_duplicates": {
        503: "The store is unreachable.",
    },
}
# rebuild answers its report for these too; before the build starts, the error body.
_REBUILD_REPORTED = {409, 500, 502, 503}
_HEADERS = {
    429: {"Retry-After": "Seconds to wait before asking again."},
    405: {"Allow": "The methods the function answers: POST (and OPTIONS on ask)."},
    401: {"WWW-Authenticate": 'Bearer realm="biblioteca".'},
}


# ask with "stream": true. In OpenAPI 3.1 the schema of an event stream describes each
# event ({"event", "data"}); our data is JSON, described by contentSchema per event name.
_EVENTS_DOC = (
    "Server-sent events, each `event: <name>` and one line of JSON `data:`. First "
    '`sources` ({"sources": [...]}, as in the JSON response), then `delta` events '
    '({"text": "..."}, the answer as it is written), then `done` with the whole JSON '
    "response body (its `answer` checked against the sources: it is the text to keep). A "
    "failure after the stream started is an `error` event with the error body; before, "
    "the usual JSON error. Sent with `Cache-Control: no-cache, no-transform` and "
    "`X-Accel-Buffering: no`."
)


def _event(name: str, data: JsonObject) -> JsonObject:
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"const": name},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": data,
            },
        },
    }


def _event_stream(done: JsonObject, error: JsonObject) -> JsonObject:
    sources: JsonObject = {
        "type": "object",
        "required": ["sources"],
        "properties": {"sources": {"type": "array", "items": {"type": "object"}}},
    }
    delta: JsonObject = {
        "type": "object",
        "required": ["text"],
        "properties": {"text": {"type": "string"}},
    }
    return {
        "schema": {
            "description": _EVENTS_DOC,
            "anyOf": [
                _event("sources", sources),
                _event("delta", delta),
                _event("done", done),
                _event("error", error),
            ],
        },
        "example": 'event: sources\ndata: {"sources":[]}\n\nevent: delta\ndata: {"text":"..."}'
        '\n\nevent: done\ndata: {"answer":"...","sources":[]}\n\n',
    }


Mode = Literal["validation", "serialization"]
Refs = dict[tuple[type[BaseModel], Mode], JsonObject]


def _schemas() -> tuple[Refs, JsonObject]:
    models: list[tuple[type[BaseModel], Mode]] = [(ErrorBody, "serialization")]
    for request, response, _ in ENDPOINTS.values():
        models += [(request, "validation"), (response, "serialization")]
    refs, definitions = models_json_schema(models, ref_template=_REF)
    out: Refs = {(model, mode): schema for (model, mode), schema in refs.items()}  # type: ignore[misc]
    return out, definitions.get("$defs", {})


def _json(schema: JsonObject) -> JsonObject:
    return {"application/json": {"schema": schema}}


def _response(
    description: str, schema: JsonObject, status: int, stream: JsonObject | None = None
) -> JsonObject:
    """A response of ``schema`` as JSON (and, with ``stream``, as an event stream too)."""
    content = _json(schema)
    if stream is not None:
        content["text/event-stream"] = stream
    out: JsonObject = {"description": description, "content": content}
    if status in _HEADERS:
        out["headers"] = {
            name: {"description": text, "required": True, "schema": {"type": "string"}}
            for name, text in _HEADERS[status].items()
        }
    return out


def _operation(name: str, refs: Refs) -> JsonObject:
    request, response, ok = ENDPOINTS[name]
    error = refs[(ErrorBody, "serialization")]
    statuses = {**_EVERY, **(_WRITE if name in _WRITES else {}), **_OWN[name]}
    schema = refs[(response, "serialization")]
    stream = _event_stream(schema, error) if name == "ask" else None
    responses: JsonObject = {str(ok): _response(response.__doc__ or name, schema, ok, stream)}
    for status, text in sorted(statuses.items()):
        schema = error
        if name == "rebuild" and status in _REBUILD_REPORTED:
            schema = {"anyOf": [refs[(RebuildReport, "serialization")], error]}
        responses[str(status)] = _response(text, schema, status)
    operation: JsonObject = {
        "operationId": name,
        "summary": (request.__doc__ or "").split("\n")[0],
        "requestBody": {"required": True, "content": _json(refs[(request, "validation")])},
        "responses": dict(sorted(responses.items())),
        # Writes need the token; ask is public, and a token only lets it archive.
        "security": [{"bearer": []}] if name in _WRITES else [{}, {"bearer": []}],
    }
    return operation


@cache
def document() -> JsonObject:
    """The whole OpenAPI 3.1 document (built once per process)."""
    refs, definitions = _schemas()
    paths: dict[str, JsonObject] = {}
    for name in ENDPOINTS:
        paths[f"/{name}"] = {"post": _operation(name, refs)}
    paths["/ask"]["options"] = {
        "operationId": "ask_preflight",
        "summary": "CORS preflight: allowed origins get Access-Control-Allow-Origin.",
        "responses": {"204": {"description": "No body; CORS headers for allowed origins."}},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Biblioteca",
            "version": "1",
            "description": "A self-grounding wiki for software teams. Each path is one HTTP "
            "Cloud Function (deployed under its name) and a path of `biblioteca serve`. "
            "Requests and responses are JSON; responses may carry more fields than listed. "
            "Each request schema states a field's canonical form; the friendlier forms the "
            "server also accepts are in the field's description.",
        },
        "paths": paths,
        "components": {
            "schemas": definitions,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token of BIBLIOTECA_API_TOKENS (name:token,…; the name "
                    "is the actor of what it writes) or BIBLIOTECA_API_TOKEN (the actor "
                    "default), with BIBLIOTECA_AUTH=token; with BIBLIOTECA_AUTH=iam, a "
                    "Google-signed identity token checked by the platform.",
                }
            },
        },
    }


def text() -> str:
    """The document as ``openapi.json`` holds it: sorted keys, two-space indents."""
    return json.dumps(document(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if openapi.json is stale")
    args = parser.parse_args(argv)
    if args.check:
        current = FILE.read_text(encoding="utf-8") if FILE.is_file() else ""
        if current != text():
            print(f"{FILE.name} is stale: run python -m shared.api.openapi", file=sys.stderr)
            return 1
        return 0
    FILE.write_text(text(), encoding="utf-8")
    print(f"wrote {FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
