"""openapi.json is generated from the request and response models and never drifts from them."""

from __future__ import annotations

from typing import get_args

from shared.api.models import ErrorCode
from shared.api.openapi import FILE, document, main, text
from shared.errors import BibliotecaError
from tests.fixtures.contract import ERROR_KEYS

FUNCTIONS = (
    "wiki_create",
    "wiki_update",
    "ask",
    "archive",
    "index_code",
    "rebuild",
    "feedback",
    "wiki_history",
    "wiki_duplicates",
)


def test_the_committed_document_is_what_the_code_generates() -> None:
    """openapi.json equals the document built from shared.api.models (regenerate on change)."""
    assert FILE.read_text(encoding="utf-8") == text(), "run: python -m shared.api.openapi"
    assert main(["--check"]) == 0


def test_every_function_is_a_post_with_its_request_and_error_bodies() -> None:
    """One POST per function, a JSON request body, the success status and the error statuses."""
    doc = document()
    assert doc["openapi"].startswith("3.1")
    assert sorted(doc["paths"]) == sorted(f"/{n}" for n in FUNCTIONS)
    for name in FUNCTIONS:
        operation = doc["paths"][f"/{name}"]["post"]
        assert operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        statuses = set(operation["responses"])
        assert {"400", "405", "413", "415", "500"} <= statuses, name
        if name != "ask":
            assert "401" in statuses, name
    assert "201" in doc["paths"]["/wiki_create"]["post"]["responses"]
    assert "429" in doc["paths"]["/ask"]["post"]["responses"]
    assert "404" in doc["paths"]["/wiki_update"]["post"]["responses"]
    assert {"200", "404", "429"} <= set(doc["paths"]["/feedback"]["post"]["responses"])
    assert doc["paths"]["/feedback"]["post"]["security"] == [{}, {"bearer": []}]
    history = doc["paths"]["/wiki_history"]["post"]
    assert history["security"] == [{"bearer": []}]  # who wrote what: write credentials
    assert {"200", "401", "404", "503"} <= set(history["responses"])


def test_the_error_body_is_the_contracts() -> None:
    """The error schema has exactly the contract's keys, error and code required."""
    error = document()["components"]["schemas"]["ErrorBody"]
    assert set(error["properties"]) == ERROR_KEYS
    assert set(error["required"]) == {"error", "code"}
    assert error["additionalProperties"] is False


def _codes_of(error: type[BibliotecaError]) -> set[str]:
    return {error.code}.union(*(_codes_of(sub) for sub in error.__subclasses__()))


def test_the_documented_error_codes_are_the_error_trees() -> None:
    """ErrorBody's ``code`` (and so openapi.json and docs/api.md) lists exactly the codes
    some ``BibliotecaError`` carries: a new error class cannot answer an undocumented code,
    and the document names none that nothing raises."""
    assert set(get_args(ErrorCode)) == _codes_of(BibliotecaError)
