"""The tools' input schemas are the HTTP functions' own, as openapi.json states them."""

from __future__ import annotations

from typing import Any

import pytest

from shared.api.openapi import document
from shared.mcp.inputs import ToolInput
from shared.mcp.tools import TOOLS

_REF = "#/components/schemas/"


def resolved(schema: Any, components: dict[str, Any]) -> Any:
    """``schema`` with openapi.json's component references replaced by what they name."""
    if isinstance(schema, list):
        return [resolved(s, components) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return resolved({**components[schema["$ref"][len(_REF) :]], **rest}, components)
    return {k: resolved(v, components) for k, v in schema.items()}


def without_titles(schema: Any) -> Any:
    """Pydantic's ``title`` annotations (strings) dropped; a property named title (a
    schema) kept."""
    if isinstance(schema, list):
        return [without_titles(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        k: without_titles(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))
    }


@pytest.mark.parametrize(
    "tool", [t for t in TOOLS if t.input.model.__name__ != "PagesCitingRequest"]
)
def test_each_argument_is_the_request_models_field_in_openapi(tool: Any) -> None:
    """Every argument's schema is the field's schema in openapi.json (references inlined),
    so one pydantic model serves the HTTP function, the document and the tool."""
    components = document()["components"]["schemas"]
    http = components[tool.input.model.__name__]
    schema = tool.input.schema()
    for argument, field in tool.input.arguments.items():
        expected = resolved(http["properties"][field], components)
        assert without_titles(schema["properties"][argument]) == without_titles(expected), argument


def test_required_arguments_are_the_models_plus_the_tools_own() -> None:
    """A tool requires what its model requires, and what it adds (expected_version)."""
    by_name = {t.name: t.input.schema()["required"] for t in TOOLS}
    assert by_name["search"] == ["query"]
    assert by_name["get_page"] == ["slug"]
    assert by_name["ask"] == ["question"]
    assert by_name["propose_page"] == ["content", "front_matter"]
    assert by_name["propose_update"] == ["slug", "expected_version"]
    assert by_name["pages_citing"] == ["path"]


def test_a_renamed_arguments_error_speaks_of_the_argument() -> None:
    """A field error of ask's model reads as the search tool's argument, path and message."""
    search = next(t for t in TOOLS if t.name == "search").input
    assert isinstance(search, ToolInput)
    with pytest.raises(Exception) as raised:
        search.parse({"query": "x", "type": ["runbook"]})
    assert getattr(raised.value, "field", None) == "type"
    assert str(raised.value).startswith("type must be")
