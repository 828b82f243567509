"""The type of a JSON document: what ``json.loads`` returns and ``json.dumps`` accepts.

For what is free-form by nature (OpenAPI and JSON Schema documents, a body before its
model validates it, a message of a protocol we pass through, a response model's dump).
Anything with a known shape has a model or a ``TypedDict`` instead. Arrays and nested
objects are read-only (``Sequence``, ``Mapping``) so that a ``list[str]`` is a JSON value
as it is; the top-level object is a ``dict``, built and extended in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias, Union

# Real objects at run time (not strings), so that ``JsonObject | X`` works in a module-level
# alias; the recursion is spelled with forward references.
JsonValue: TypeAlias = Union[  # noqa: UP007 - "X" | Y cannot be evaluated at run time
    str, int, float, bool, Sequence["JsonValue"], Mapping[str, "JsonValue"], None
]
JsonObject: TypeAlias = dict[str, JsonValue]


def as_object(value: JsonValue) -> Mapping[str, JsonValue]:
    """``value`` when it is a JSON object, else an empty one: for reading a document whose
    shape is checked where it is read."""
    return value if isinstance(value, Mapping) else {}


def as_array(value: JsonValue) -> Sequence[JsonValue]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, Sequence) and not isinstance(value, str) else []
