"""Tool arguments as views of the HTTP functions' request models: one schema, one check.

A ``ToolInput`` names which fields of a request model a tool takes (some renamed, as the
contract names them), derives the tool's JSON schema from the model's own, and validates
arguments by handing them to the model, so a field error names the tool's argument.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from shared.api.models import RequestBody
from shared.errors import BibliotecaError, InvalidInput
from shared.json_value import JsonObject

_REF = "#/$defs/"


@dataclass(frozen=True)
class ToolInput:
    """Arguments of one tool: ``arguments`` maps each to its field of ``model``."""

    model: type[RequestBody]
    arguments: Mapping[str, str]
    required: tuple[str, ...] = ()  # arguments the tool needs beyond what the model requires
    fixed: Mapping[str, Any] = field(default_factory=dict)  # fields the tool sets itself

    def schema(self) -> JsonObject:
        """The tool's ``inputSchema``: the model's properties, ``$ref``s inlined (some
        clients hand schemas to models that do not follow references)."""
        full = self.model.model_json_schema(mode="validation")
        definitions = full.get("$defs", {})
        properties = {}
        for argument, name in self.arguments.items():
            prop = _inline(full["properties"][name], definitions)
            prop.pop("title", None)  # pydantic's title is the field's name: not the argument's
            properties[argument] = prop
        model_required = set(full.get("required", ()))
        return {
            "type": "object",
            "properties": properties,
            "required": [
                a for a, n in self.arguments.items() if n in model_required or a in self.required
            ],
            "additionalProperties": False,
        }

    def parse(self, arguments: Mapping[str, Any] | None) -> Any:
        """The arguments as the model, validated; ``InvalidInput`` names the argument."""
        given = dict(arguments or {})
        for key in given:
            if key not in self.arguments:
                raise InvalidInput(
                    f"unknown argument '{key[:60]}'; allowed: {', '.join(self.arguments)}",
                    field=key,
                )
        for argument in self.required:
            if argument not in given:
                described = self.model.model_fields[self.arguments[argument]].description or ""
                raise InvalidInput(f"{argument} is required: {described}", field=argument)
        body = {self.arguments[k]: v for k, v in given.items()} | dict(self.fixed)
        try:
            return self.model.parse(body)
        except BibliotecaError as exc:
            raise self._renamed(exc) from exc

    def _renamed(self, exc: BibliotecaError) -> BibliotecaError:
        """``exc`` with the model's field names in its path and message read as arguments."""
        for argument, name in self.arguments.items():
            if argument == name or exc.field is None:
                continue
            if exc.field == name or exc.field.startswith((f"{name}.", f"{name}[")):
                exc.field = argument + exc.field[len(name) :]
                if exc.message.startswith(f"{name} "):
                    exc.message = argument + exc.message[len(name) :]
                exc.args = (exc.message,)
                break
        return exc


def _inline(schema: Any, definitions: Mapping[str, Any]) -> Any:
    """``schema`` with every local ``$ref`` replaced by a copy of its definition."""
    if isinstance(schema, list):
        return [_inline(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF):
        target = copy.deepcopy(definitions[ref[len(_REF) :]])
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return _inline({**target, **rest}, definitions)
    return {k: _inline(v, definitions) for k, v in schema.items()}


def output_schema(model: type[Any]) -> JsonObject:
    """A response model's JSON schema as a tool's ``outputSchema`` (references inlined)."""
    full = model.model_json_schema(mode="serialization")
    definitions = full.pop("$defs", {})
    schema: JsonObject = _inline(full, definitions)
    return schema
