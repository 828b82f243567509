"""Property-based fuzz of every function, driven by the served openapi.json, on both stores.

schemathesis generates bodies from the document (valid ones and ones that break it) and
sends them to ``biblioteca serve``'s WSGI app in this process. Whatever it sends, no
answer may be a 5xx but the documented ones of a missing backend, and every answer must
match the document: its status, content type, headers and body schema.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from shared.bootstrap import reset_limits
from shared.cli.serve import build_app
from shared.config import get_settings
from tests.fixtures.secrets import TOKEN

# Generated examples per function and store; schemathesis adds its boundary and negative
# cases, so each function gets 55-210 requests per store (wiki_create and wiki_update the
# most). Measured: ~30 s for both stores on this 2-core machine under load (README).
EXAMPLES = {"sqlite": 30, "firestore": 20}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_wsgi("/openapi.json", build_app())
schema.config.generation.update(deterministic=True)


@pytest.fixture
def fuzz_env(store_env: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test's store, with a rate limit no fuzz reaches (the limiter is tested elsewhere)."""
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "1000000/minute")
    get_settings.cache_clear()
    reset_limits()
    return store_env


def check(case: Any) -> None:
    """No 5xx for any generated body, and each response is what openapi.json says."""
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"}, checks=CHECKS)


_SLOW_OK = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


@pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
@schema.parametrize()
@settings(max_examples=EXAMPLES["sqlite"], deadline=None, suppress_health_check=_SLOW_OK)
def test_every_answer_matches_the_document_on_sqlite(case: Any, fuzz_env: str) -> None:
    """On the embedded store: no 5xx, and every response matches openapi.json."""
    check(case)


@pytest.mark.firestore
@pytest.mark.parametrize("store_env", ["firestore"], indirect=True)
@schema.parametrize()
@settings(max_examples=EXAMPLES["firestore"], deadline=None, suppress_health_check=_SLOW_OK)
def test_every_answer_matches_the_document_on_firestore(case: Any, fuzz_env: str) -> None:
    """On the Firestore emulator: no 5xx, and every response matches openapi.json."""
    check(case)
