"""The HTTP edge in isolation: the error tree mapped to the contract's body, bugs as bare 500s."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import flask
import pytest

from shared import errors
from shared.config import get_settings
from shared.http import MAX_BODY_BYTES, RequestContext, error_response, handle

TOKEN = "unit-token-0123456789"
APP = flask.Flask("test-http")


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (
        "BIBLIOTECA_AUTH",
        "BIBLIOTECA_ALLOWED_ORIGINS",
        "BIBLIOTECA_API_TOKEN",
        "BIBLIOTECA_TRUSTED_PROXIES",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BIBLIOTECA_API_TOKEN", TOKEN)
    monkeypatch.setenv("BIBLIOTECA_ALLOWED_ORIGINS", "https://docs.example")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def serve(
    handler: Any, *, write: bool = False, cors: bool = False, **request: Any
) -> flask.Response:
    """Run ``handle`` on one real Flask request built from ``request`` (test_request_context)."""
    request.setdefault("method", "POST")
    with APP.test_request_context("/", **request):
        return handle(flask.request, "probe", handler, write=write, cors=cors)


def echo(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    return 200, {"body": body, "authorized": ctx.authorized, "client": ctx.client_id}


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (errors.InvalidInput("x", field="a.b[0]"), 400, "validation_error"),
        (errors.InvalidJson("x"), 400, "invalid_json"),
        (errors.Unauthorized("x"), 401, "unauthorized"),
        (errors.NotFound("x"), 404, "not_found"),
        (errors.MethodNotAllowed("x"), 405, "method_not_allowed"),
        (errors.Conflict("x"), 409, "conflict"),
        (errors.VersionConflict("x"), 409, "version_conflict"),
        (errors.RebuildInProgress("x"), 409, "rebuild_in_progress"),
        (errors.PayloadTooLarge("x"), 413, "payload_too_large"),
        (errors.UnsupportedMediaType("x"), 415, "unsupported_media_type"),
        (errors.RateLimited("x", retry_after=0), 429, "rate_limited"),
        (errors.UpstreamError("x"), 502, "upstream_error"),
        (errors.Unavailable("x"), 503, "upstream_unavailable"),
        (errors.NotConfigured("x"), 503, "not_configured"),
        (errors.ReindexRequired("x"), 503, "reindex_required"),
        (errors.BibliotecaError("x"), 500, "internal_error"),
    ],
)
def test_every_error_maps_to_its_status_and_code(
    error: errors.BibliotecaError, status: int, code: str
) -> None:
    """The one error tree gives the contract's status, code and field."""
    with APP.app_context():
        response = error_response(error)
    assert response.status_code == status
    body = json.loads(response.get_data())
    assert body["code"] == code
    assert body["error"] == "x"
    assert body.get("field") == error.field
    assert ("field" in body) is (error.field is not None)


def test_error_headers() -> None:
    """429 has Retry-After (at least 1), 405 has Allow, 401 has WWW-Authenticate."""
    with APP.app_context():
        assert error_response(errors.RateLimited("x", retry_after=0)).headers["Retry-After"] == "1"
        assert (
            error_response(errors.RateLimited("x", retry_after=42)).headers["Retry-After"] == "42"
        )
        assert error_response(errors.MethodNotAllowed("x")).headers["Allow"] == "POST"
        assert (
            error_response(errors.Unauthorized("x"))
            .headers["WWW-Authenticate"]
            .startswith("Bearer")
        )


def test_a_bug_is_a_500_without_a_trace_in_the_body_and_with_one_in_the_log(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """An unexpected exception: 500 internal_error, generic body; the log line has the trace."""

    def broken(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        raise RuntimeError("secret detail of the failure")

    response = serve(broken, json={})
    assert response.status_code == 500
    body = json.loads(response.get_data())
    assert body == {"error": "internal error: the failure was logged", "code": "internal_error"}
    out, _ = capfd.readouterr()
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    crash = next(line for line in lines if "stack_trace" in line)
    assert crash["severity"] == "ERROR"
    assert "secret detail of the failure" in crash["stack_trace"]
    request = next(line for line in lines if "httpRequest" in line)
    assert (request["severity"], request["httpRequest"]["status"]) == ("ERROR", 500)


def test_a_registered_secret_is_scrubbed_from_every_log_line(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """If the token ever reached a log message, the line carries [redacted] instead."""

    def leaky(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        raise RuntimeError(f"token was {TOKEN}")

    serve(leaky, json={})
    out, err = capfd.readouterr()
    assert TOKEN not in out + err
    assert "[redacted]" in out


def test_a_chunked_body_over_1_mib_is_a_413_even_without_content_length() -> None:
    """The body is read with a bound, so a chunked upload cannot bypass the size limit."""
    big = io.BytesIO(b"[" + b"1," * (MAX_BODY_BYTES // 2) + b"1]")
    response = serve(
        echo,
        content_type="application/json",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input": big, "wsgi.input_terminated": True},
    )
    assert response.status_code == 413


def test_read_credentials_do_not_block_public_functions() -> None:
    """A public function (write=False) runs without a token and knows whether one was valid."""
    anonymous = json.loads(serve(echo, json={"a": 1}).get_data())
    assert (anonymous["body"], anonymous["authorized"]) == ({"a": 1}, False)
    trusted = json.loads(
        serve(echo, json={}, headers={"Authorization": f"Bearer {TOKEN}"}).get_data()
    )
    assert trusted["authorized"] is True
    wrong = json.loads(
        serve(echo, json={}, headers={"Authorization": "Bearer nope-nope-nope"}).get_data()
    )
    assert wrong["authorized"] is False


def test_iam_mode_trusts_the_platform_for_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """BIBLIOTECA_AUTH=iam: a write function runs without a bearer token (IAM checked it)."""
    monkeypatch.setenv("BIBLIOTECA_AUTH", "iam")
    monkeypatch.delenv("BIBLIOTECA_API_TOKEN")
    get_settings.cache_clear()
    response = serve(echo, write=True, json={})
    assert response.status_code == 200
    assert json.loads(response.get_data())["authorized"] is True


@pytest.mark.parametrize(
    ("trusted", "forwarded", "client"),
    [
        (None, None, "192.0.2.4"),  # the default (0): the peer, whatever the header says
        (None, "203.0.113.9, 10.0.0.1", "192.0.2.4"),
        ("0", "203.0.113.9", "192.0.2.4"),
        ("1", "203.0.113.9, 10.0.0.1", "10.0.0.1"),  # the one hop our proxy appended
        ("1", "198.51.100.7,203.0.113.9,  10.0.0.1 ", "10.0.0.1"),
        ("2", "forged, 203.0.113.9, 10.0.0.1", "203.0.113.9"),
        ("2", "10.0.0.1", "192.0.2.4"),  # fewer hops than proxies: not from them, the peer
        ("1", None, "192.0.2.4"),
        ("1", "", "192.0.2.4"),
    ],
)
def test_the_client_is_the_address_the_trusted_proxies_saw(
    monkeypatch: pytest.MonkeyPatch, trusted: str | None, forwarded: str | None, client: str
) -> None:
    """TRUSTED_PROXIES=n: the n-th X-Forwarded-For address from the right; 0: the peer."""
    if trusted is not None:
        monkeypatch.setenv("BIBLIOTECA_TRUSTED_PROXIES", trusted)
    get_settings.cache_clear()
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    reply = serve(echo, json={}, headers=headers, environ_base={"REMOTE_ADDR": "192.0.2.4"})
    assert json.loads(reply.get_data())["client"] == client


def test_cors_preflight_answers_allowed_origins_only() -> None:
    """OPTIONS on a CORS function: 204; Access-Control-Allow-Origin only for allowed origins."""
    allowed = serve(echo, cors=True, method="OPTIONS", headers={"Origin": "https://docs.example"})
    assert allowed.status_code == 204
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://docs.example"
    other = serve(echo, cors=True, method="OPTIONS", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    assert "Origin" in other.headers["Vary"]


def test_non_post_methods_on_write_functions_are_405_before_anything_else() -> None:
    """OPTIONS on a non-CORS function is a 405 like any other method but POST."""
    response = serve(echo, write=True, method="OPTIONS")
    assert response.status_code == 405
    assert response.headers["Allow"] == "POST"


def test_a_wrong_method_is_a_405_even_when_the_environment_is_broken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Method comes first: a GET is a 405 even when a setting is unusable (else a 503)."""
    monkeypatch.setenv("BIBLIOTECA_STORE", "mongodb")
    get_settings.cache_clear()
    assert serve(echo, write=True, method="GET").status_code == 405
    post = serve(echo, write=True, json={})
    assert post.status_code == 503
    assert "BIBLIOTECA_STORE" in json.loads(post.get_data())["error"]


def test_a_pydantic_validation_error_becomes_the_contract_body() -> None:
    """A service that lets a ValidationError escape still answers 400 naming the field."""
    from pydantic import BaseModel

    class Probe(BaseModel):
        limit: int

    def strict(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        Probe.model_validate(body)
        return 200, {}

    response = serve(strict, json={"limit": "many"})
    assert response.status_code == 400
    body = json.loads(response.get_data())
    assert body["code"] == "validation_error"
    assert body["field"] == "limit"


def test_a_registered_secret_never_leaves_in_a_response_body() -> None:
    """An error message that quotes the token (an upstream echo) answers with [redacted]."""

    def echoing(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        raise errors.UpstreamError(f"the upstream said: bad request with token {TOKEN}")

    text = serve(echoing, json={}).get_data(as_text=True)
    assert TOKEN not in text
    assert "token [redacted]" in text


def test_every_log_line_of_a_request_carries_its_cloud_trace(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Google's front end sends X-Cloud-Trace-Context: the crash line and the request line
    both name projects/P/traces/ID, so Cloud Logging shows them as one request."""
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    trace = "105445aa7843bc8bf206b12000100000"

    def broken(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        raise RuntimeError("boom")

    serve(broken, json={}, headers={"X-Cloud-Trace-Context": f"{trace}/1;o=1"})
    out, _ = capfd.readouterr()
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(lines) >= 2
    assert {line.get("logging.googleapis.com/trace") for line in lines} == {
        f"projects/proj/traces/{trace}"
    }
    assert {line.get("logging.googleapis.com/spanId") for line in lines} == {"1"}


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (
            {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
            {
                "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
                "logging.googleapis.com/spanId": "00f067aa0ba902b7",
            },
        ),
        ({"X-Cloud-Trace-Context": "not-a-trace"}, {}),
        ({}, {}),
    ],
)
def test_trace_fields_read_w3c_and_ignore_what_is_not_an_id(
    headers: dict[str, str], expected: dict[str, str]
) -> None:
    from shared.logs import trace_fields

    assert trace_fields(headers, None) == expected


def test_a_line_logged_outside_a_request_carries_no_trace(
    capfd: pytest.CaptureFixture[str],
) -> None:
    from shared.logs import configure_logging, get_logger

    configure_logging()
    get_logger("probe").warning("outside")
    out, _ = capfd.readouterr()
    assert "outside" in out
    assert "logging.googleapis.com/trace" not in out
    assert "trace_id" not in out


def whom(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    return 200, {"authorized": ctx.authorized, "actor": ctx.actor}


def test_each_named_token_is_its_own_actor_and_the_single_one_is_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With BIBLIOTECA_API_TOKENS and BIBLIOTECA_API_TOKEN both set, each token writes as
    its name (the single one as default); a wrong token is a 401."""
    monkeypatch.setenv("BIBLIOTECA_API_TOKENS", "ana:unit-ana-token-1,ci-docs:unit-ci-token-2")
    get_settings.cache_clear()
    for token, actor in [
        ("unit-ana-token-1", "ana"),
        ("unit-ci-token-2", "ci-docs"),
        (TOKEN, "default"),
    ]:
        response = serve(whom, write=True, json={}, headers={"Authorization": f"Bearer {token}"})
        assert json.loads(response.get_data()) == {"authorized": True, "actor": actor}
    wrong = serve(whom, write=True, json={}, headers={"Authorization": "Bearer unit-ana-token"})
    assert wrong.status_code == 401


def test_a_malformed_named_token_list_is_a_503_naming_the_variable_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bad BIBLIOTECA_API_TOKENS does not break import or start-up: the request that
    reads the settings answers 503 not_configured naming it."""
    monkeypatch.setenv("BIBLIOTECA_API_TOKENS", "ana-without-a-token")
    get_settings.cache_clear()
    response = serve(whom, write=True, json={})
    body = json.loads(response.get_data())
    assert (response.status_code, body["code"]) == (503, "not_configured")
    assert "BIBLIOTECA_API_TOKENS" in body["error"]


def _id_token(claims: dict[str, Any]) -> str:
    import base64

    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part(claims)}.signature"


def test_iam_callers_are_named_by_the_email_of_the_token_the_platform_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BIBLIOTECA_AUTH=iam: the actor is iam:<email> from X-Serverless-Authorization (else
    Authorization), or iam when the token says no email."""
    monkeypatch.setenv("BIBLIOTECA_AUTH", "iam")
    get_settings.cache_clear()
    ci = _id_token({"email": "docs-ci@p.iam.gserviceaccount.com", "sub": "1"})
    cases = [
        ({"X-Serverless-Authorization": f"Bearer {ci}"}, "iam:docs-ci@p.iam.gserviceaccount.com"),
        ({"Authorization": f"Bearer {ci}"}, "iam:docs-ci@p.iam.gserviceaccount.com"),
        ({"Authorization": f"Bearer {_id_token({'sub': '2'})}"}, "iam"),
        ({"Authorization": "Bearer not-a-jwt"}, "iam"),
        ({}, "iam"),
    ]
    for headers, actor in cases:
        response = serve(whom, write=True, json={}, headers=headers)
        assert json.loads(response.get_data())["actor"] == actor, headers
