"""YAML from a docs tree is read within bounds: a 'billion laughs' of aliases, a
self-containing alias, deep nesting or an oversized text is refused as YAML that cannot
be read, never a ``MemoryError``; ordinary aliases still work."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from shared.dialects import bounded_yaml, mkdocs_config
from shared.errors import InvalidInput
from shared.services.importer import split_front_matter

# Ten lines, nine aliases a level: 9**9 (387 million) strings once expanded.
LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [
        f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]"
        for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)


def test_a_billion_laughs_is_refused_at_once() -> None:
    """The document is refused before anything is built from it."""
    with pytest.raises(bounded_yaml.Unbounded, match="billion laughs"):
        bounded_yaml.load(LAUGHS)


def test_ordinary_aliases_still_load() -> None:
    """A default block reused a few times (the point of anchors) is read as written."""
    text = "base: &base {theme: material, lang: es}\nen: *base\nfr: *base\nlist: [*base, *base]\n"
    data = bounded_yaml.load(text)
    assert data["en"] == data["fr"] == {"theme": "material", "lang": "es"}
    assert len(data["list"]) == 2


def test_an_alias_that_contains_itself_is_refused() -> None:
    """``&a [*a]`` is a structure without end for every reader that walks it."""
    with pytest.raises(bounded_yaml.Unbounded, match="contains itself"):
        bounded_yaml.load("a: &a [1, *a]\n")


def test_deep_nesting_and_oversized_text_are_refused() -> None:
    """The parser's own recursion and the text's size are bounded too."""
    with pytest.raises(bounded_yaml.Unbounded, match="nests too deeply"):
        bounded_yaml.load("[" * 50_000 + "]" * 50_000)
    with pytest.raises(bounded_yaml.Unbounded, match="larger than"):
        bounded_yaml.load("a: " + "x" * (bounded_yaml.MAX_BYTES + 1))


def test_refusals_are_yaml_errors() -> None:
    """Every caller already reports a ``yaml.YAMLError`` as YAML it could not read."""
    assert issubclass(bounded_yaml.Unbounded, yaml.YAMLError)


def test_a_mkdocs_yml_of_laughs_is_a_warning_naming_the_file(tmp_path: Path) -> None:
    """The configuration is left out with a warning; the tree is still read."""
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n" + LAUGHS + "\nnav: *i\n")
    config = mkdocs_config.read_config(tmp_path / "mkdocs.yml")
    assert config.data == {}
    assert config.warnings == [
        "mkdocs.yml could not be read: aliases expand past 100,000 nodes (a 'billion laughs'?)"
    ]


def test_front_matter_of_laughs_is_invalid_input() -> None:
    """That file fails alone, with the reason (the import goes on with the others)."""
    with pytest.raises(InvalidInput, match="billion laughs"):
        split_front_matter(f"---\n{LAUGHS}\n---\n# Hola\n")
