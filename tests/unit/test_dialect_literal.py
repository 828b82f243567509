"""The config reader: object literals read as data, code refused, never executed."""

from __future__ import annotations

import pytest

from shared.dialects.literal import NotLiteral, read, value_at

CONFIG = """
import { defineConfig } from 'vitepress'
// rewrites: { 'not': 'this one' }
export default defineConfig({
  title: 'Mi sitio',
  cleanUrls: true,
  rewrites: {
    'en/:rest*': ':rest*', // the English pages at the root
  },
  themeConfig: {
    sidebar: [{ text: "Guía", items: [{ text: `Inicio`, link: '/guia/' },], }] as const },
})
"""


def test_values_after_a_key_are_read_as_data_skipping_comments() -> None:
    """Strings in three quotes, booleans, nested arrays and objects, trailing commas,
    ``as const``; the commented-out key is not the one read."""
    assert value_at(CONFIG, "title") == "Mi sitio"
    assert value_at(CONFIG, "cleanUrls") is True
    assert value_at(CONFIG, "rewrites") == {"en/:rest*": ":rest*"}
    assert value_at(CONFIG, "sidebar") == [
        {"text": "Guía", "items": [{"text": "Inicio", "link": "/guia/"}]}
    ]
    assert read("[1, -2.5, 0x10, null, undefined]") == [1, -2.5, 16, None, None]


@pytest.mark.parametrize(
    "code",
    [
        "{ items: generated() }",
        "{ ...base }",
        "{ items }",
        "{ [key]: 1 }",
        "{ label: `Hola ${name}` }",
        "{ fn() { return 1 } }",
        "[require('./x')]",
    ],
)
def test_code_is_not_literal(code: str) -> None:
    """A call, a spread, a shorthand, a computed key, a template expression, a method."""
    with pytest.raises(NotLiteral):
        read(code)


def test_a_missing_key_is_a_key_error_and_depth_is_bounded() -> None:
    with pytest.raises(KeyError):
        value_at(CONFIG, "locales")
    with pytest.raises(NotLiteral):
        read("[" * 100 + "]" * 100)
