"""``docs/api.md``, the HTTP API reference, generated from the OpenAPI document.

The document is itself generated from the request and response models
(``shared.api.openapi``), so the reference a reader opens in the repository and the
checks a request meets come from one source. ``python -m shared.api.reference`` rewrites
the page (``--check`` only compares; a unit test runs the check).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from shared.api.openapi import document
from shared.json_value import JsonValue, as_array, as_object

FILE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
_REF = "#/components/schemas/"

_INTRO = """# HTTP API reference

Generated from `openapi.json` by `make docs` (`python -m shared.api.reference`); do not edit
by hand: the models in `shared/api/models.py` are the source, and a unit test fails when this
page and they disagree.

Every function is an HTTP Cloud Function deployed under its name and a path `/<name>` of
`biblioteca serve`. Requests are `POST` with `Content-Type: application/json`; responses
are JSON and may carry more fields than listed. Errors have one body,
`{"error": "…", "code": "…", "field": "…"}` ([ErrorBody](#errorbody)), `field` naming the
input at fault when there is one. Checks run in this order: method, credentials, size,
media type, body. Write functions need `Authorization: Bearer <token>` (with
`BIBLIOTECA_AUTH=token`) or the platform's IAM check (`iam`).
"""


def _anchor(name: str) -> str:
    return name.lower().replace(" ", "-")


def _type(schema: Mapping[str, JsonValue]) -> str:
    """A field's type in a few words, linking named schemas."""
    if "$ref" in schema:
        name = str(schema["$ref"]).removeprefix(_REF)
        return f"[{name}](#{_anchor(name)})"
    if "anyOf" in schema or "oneOf" in schema:
        choices = as_array(schema.get("anyOf")) or as_array(schema.get("oneOf"))
        return " or ".join(dict.fromkeys(_type(as_object(s)) for s in choices))
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in as_array(schema["enum"]))
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_type(as_object(schema.get('items')))}"
    if kind == "object" and "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        return "object" if extra is True else f"map of {_type(as_object(extra))}"
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    return str(kind or "any")


def _cell(text: str) -> str:
    """One line of Markdown from a docstring (its ````code```` spans as Markdown's)."""
    return " ".join(text.split()).replace("``", "`").replace("|", "\\|")


def _fields(schema: Mapping[str, JsonValue]) -> list[str]:
    properties = as_object(schema.get("properties"))
    if not properties:
        return ["(no fields)"]
    required = set(as_array(schema.get("required")))
    lines = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for name, value in properties.items():
        field = as_object(value)
        meaning = str(field.get("description", ""))
        if "default" in field and field["default"] is not None:
            meaning += f" Default `{field['default']}`."
        mark = "yes" if name in required else ""
        lines.append(f"| `{name}` | {_type(field)} | {mark} | {_cell(meaning)} |")
    return lines


def _schema_of(content: JsonValue) -> Mapping[str, JsonValue]:
    return as_object(as_object(as_object(content).get("application/json")).get("schema"))


def _operation(path: str, operation: Mapping[str, JsonValue]) -> list[str]:
    secured = operation.get("security") == [{"bearer": []}]
    lines = [f"## POST {path}", "", _cell(str(operation.get("summary", ""))), ""]
    lines.append("Credentials: " + ("required." if secured else "none (a token adds rights)."))
    lines.append("")
    request = _schema_of(as_object(operation.get("requestBody")).get("content"))
    lines += ["Request: " + _type(request), ""]
    for status, value in as_object(operation["responses"]).items():
        response = as_object(value)
        schema = _schema_of(response.get("content"))
        body = f" — {_type(schema)}" if schema else ""
        lines.append(f"- **{status}**{body}: {_cell(str(response.get('description', '')))}")
    return [*lines, ""]


def text() -> str:
    """The whole page."""
    doc = document()
    schemas = as_object(as_object(doc["components"])["schemas"])
    lines = [_INTRO]
    for path, item in as_object(doc["paths"]).items():
        post = as_object(item).get("post")
        if post is not None:
            lines += _operation(path, as_object(post))
    lines += ["## Schemas", ""]
    for name, value in schemas.items():
        schema = as_object(value)
        lines += [f"### {name}", ""]
        if schema.get("description"):
            lines += [_cell(str(schema["description"])), ""]
        lines += [*_fields(schema), ""]
    return "\n".join(lines).rstrip() + "\n"


def generate(
    file: Path, render: Callable[[], str], description: str, argv: list[str] | None
) -> int:
    """A generated doc's command line: rewrite ``file`` from ``render()``, or with
    ``--check`` only say (exit 1) when it is stale. docs/api.md's and docs/cli.md's."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help=f"fail if {file.name} is stale")
    args = parser.parse_args(argv)
    if args.check:
        current = file.read_text(encoding="utf-8") if file.is_file() else ""
        if current != render():
            print(f"{file.name} is stale: run make docs", file=sys.stderr)
            return 1
        return 0
    file.write_text(render(), encoding="utf-8")
    print(f"wrote {file}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return generate(FILE, text, __doc__.split("\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
