"""The HTTP edge of the write functions: method, credentials, size, media type, body, in order."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

import pytest

from tests.fixtures.contract import assert_error
from tests.fixtures.server import Api

WRITES = ("wiki_create", "wiki_update")
BIG = b"x" * (1024 * 1024 + 1)


def create_body() -> dict[str, object]:
    return {
        "content": "x",
        "front_matter": {"title": f"Edge {uuid.uuid4().hex[:8]}", "type": "concept"},
    }


@pytest.mark.parametrize("name", WRITES)
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
def test_a_wrong_method_is_a_405_with_allow(api: Api, name: str, method: str) -> None:
    """Anything but POST is a 405 method_not_allowed with Allow: POST."""
    reply = api.post(name, create_body(), method=method)
    assert_error(reply, 405, "method_not_allowed")
    assert reply.headers["allow"] == "POST"


@pytest.mark.parametrize("name", WRITES)
def test_missing_or_wrong_credentials_are_a_401(api: Api, name: str) -> None:
    """No Authorization, a wrong token, or another scheme: 401 unauthorized."""
    for token, headers in [
        (None, {}),
        ("wrong-token-0123456789", {}),
        (None, {"Authorization": "Basic dGVzdC10b2tlbi0wMTIzNDU2Nzg5"}),
        (None, {"Authorization": "Bearer"}),
        (None, {"Authorization": "test-token-0123456789"}),
        ("test-token-0123456789x", {}),
    ]:
        reply = api.post(name, create_body(), token=token, headers=headers)
        assert_error(reply, 401, "unauthorized")
        assert reply.headers["www-authenticate"].startswith("Bearer")


def test_the_scheme_is_case_insensitive(api: Api) -> None:
    """'bearer <token>' is the same as 'Bearer <token>'."""
    reply = api.post(
        "wiki_create",
        create_body(),
        token=None,
        headers={"Authorization": "bearer test-token-0123456789"},
    )
    assert reply.status == 201


@pytest.fixture
def tokenless(store_env: str, open_api: Callable[[], Api], monkeypatch: pytest.MonkeyPatch) -> Api:
    """Either route on the test's backend, with no BIBLIOTECA_API_TOKEN configured."""
    monkeypatch.delenv("BIBLIOTECA_API_TOKEN")
    return open_api()


def test_no_configured_token_is_a_503_naming_the_variable(
    tokenless: Api, open_api: Callable[[], Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without BIBLIOTECA_API_TOKEN every write is a 503 not_configured that names it."""
    api = tokenless
    for name in WRITES:
        reply = api.post(name, create_body())
        assert_error(reply, 503, "not_configured")
        assert "BIBLIOTECA_API_TOKEN" in reply.json["error"]
    # a placeholder is no token either
    monkeypatch.setenv("BIBLIOTECA_API_TOKEN", "changeme")
    api = open_api()
    assert_error(api.post("wiki_create", create_body(), token="changeme"), 503, "not_configured")


@pytest.mark.parametrize("name", WRITES)
def test_a_body_over_1_mib_is_a_413(api: Api, name: str) -> None:
    """A request body larger than 1 MiB is a 413 payload_too_large."""
    reply = api.post(name, data=b'{"content": "' + BIG + b'"}')
    assert_error(reply, 413, "payload_too_large")


@pytest.mark.parametrize("name", WRITES)
@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
     "application/jsonx"],
)  # fmt: skip
def test_a_body_that_is_not_declared_json_is_a_415(
    api: Api, name: str, content_type: str | None
) -> None:
    """Without Content-Type: application/json the request is a 415, even if the body is JSON."""
    reply = api.post(name, create_body(), content_type=content_type)
    assert_error(reply, 415, "unsupported_media_type")


def test_json_content_type_parameters_are_accepted(api: Api) -> None:
    """application/json; charset=utf-8 (any case) is JSON."""
    for content_type in ("application/json; charset=utf-8", "Application/JSON"):
        reply = api.post("wiki_create", create_body(), content_type=content_type)
        assert reply.status == 201, reply.text


@pytest.mark.parametrize("name", WRITES)
@pytest.mark.parametrize(
    "raw",
    [b"", b"{", b'{"content": "x",}', b"{'a': 1}", b"nul", b'{"a": 1} {"b": 2}', b"\xff\xfe{}"],
)
def test_malformed_json_is_a_400_invalid_json(api: Api, name: str, raw: bytes) -> None:
    """A body that does not parse as JSON (or is not UTF-8) is a 400 invalid_json."""
    assert_error(api.post(name, data=raw), 400, "invalid_json")


@pytest.mark.parametrize("name", WRITES)
@pytest.mark.parametrize("raw", [b"NaN", b'{"content": NaN}', b'{"a": Infinity}', b"[-Infinity]"])
def test_nan_and_infinity_are_not_json(api: Api, name: str, raw: bytes) -> None:
    """NaN/Infinity are not JSON: 400 invalid_json."""
    assert_error(api.post(name, data=raw), 400, "invalid_json")


@pytest.mark.parametrize("name", WRITES)
@pytest.mark.parametrize("value", [[], [{"content": "x"}], "texto", 42, None, True])
def test_a_body_that_is_not_an_object_is_a_400(api: Api, name: str, value: object) -> None:
    """A JSON array, string, number, null or boolean body is a 400 validation_error."""
    assert_error(api.post(name, data=json.dumps(value)), 400, "validation_error")


# -- the order of the checks: method, credentials, size, media type, body ----------------


def test_method_is_checked_before_credentials(api: Api) -> None:
    """A GET without a token is a 405, not a 401."""
    assert_error(api.post("wiki_create", method="GET", token=None), 405, "method_not_allowed")


def test_credentials_are_checked_before_size_and_media_type(api: Api) -> None:
    """An oversized non-JSON body without a token is a 401."""
    reply = api.post("wiki_create", data=BIG, token=None, content_type="text/plain")
    assert_error(reply, 401, "unauthorized")


def test_size_is_checked_before_media_type(api: Api) -> None:
    """An oversized non-JSON body with a token is a 413, not a 415."""
    assert_error(
        api.post("wiki_create", data=BIG, content_type="text/plain"), 413, "payload_too_large"
    )


def test_media_type_is_checked_before_the_body(api: Api) -> None:
    """A malformed body declared as text is a 415, not a 400."""
    assert_error(
        api.post("wiki_create", data=b"{", content_type="text/plain"), 415, "unsupported_media_type"
    )


def test_a_missing_token_setting_comes_after_the_method(tokenless: Api) -> None:
    """No configured token: GET is still 405; an oversized body is 503 (credentials first)."""
    api = tokenless
    assert_error(api.post("wiki_create", method="GET"), 405, "method_not_allowed")
    assert_error(
        api.post("wiki_create", data=BIG, content_type="text/plain"), 503, "not_configured"
    )


def test_errors_never_write(api: Api) -> None:
    """None of the refused requests above leaves a page behind."""
    title = f"Nunca {uuid.uuid4().hex[:8]}"
    sent = {"content": "x", "front_matter": {"title": title, "type": "concept"}}
    api.post("wiki_create", sent, token=None)
    api.post("wiki_create", sent, content_type="text/plain")
    api.post("wiki_create", sent, method="PUT")
    slug = "concept—" + title.lower().replace(" ", "-")
    assert api.store.pages.get(slug) is None
    assert api.post("wiki_create", sent).json["slug"] == slug
