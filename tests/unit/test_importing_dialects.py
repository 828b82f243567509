"""The dialect table: a tree's dialect from its own configuration, else its content;
``--dialect`` wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.importing.dialects import DIALECTS, TRANSFORMS, detect, unknown
from shared.importing.transforms import REGISTRY


def tree(tmp_path: Path, files: dict[str, str], docs: str = "docs") -> tuple[Path, list[Path]]:
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    root = tmp_path / docs
    root.mkdir(exist_ok=True)
    return root, sorted(p for p in root.rglob("*") if p.suffix in (".md", ".mdx"))


@pytest.mark.parametrize(
    ("config", "name", "why"),
    [
        ("mkdocs.yml", "mkdocs", "../mkdocs.yml"),
        ("zensical.toml", "mkdocs", "../zensical.toml"),
        ("docusaurus.config.ts", "docusaurus", "../docusaurus.config.ts"),
        ("docs/.vitepress/config.mts", "vitepress", ".vitepress/config.mts"),
    ],
)
def test_the_generators_configuration_decides_and_is_named(
    tmp_path: Path, config: str, name: str, why: str
) -> None:
    root, files = tree(tmp_path, {config: "x", "docs/a.md": "# A\n"})
    found = detect(root, files)
    assert (found.dialect.name, found.why) == (name, why)


def test_astro_is_starlight_only_when_its_config_says_so(tmp_path: Path) -> None:
    root, files = tree(tmp_path, {"astro.config.mjs": "export default {}", "docs/a.md": "# A\n"})
    assert detect(root, files).dialect.name == "markdown"
    (tmp_path / "astro.config.mjs").write_text("import starlight from '@astrojs/starlight'")
    assert detect(root, files).dialect.name == "starlight"


def test_without_configuration_the_content_decides(tmp_path: Path) -> None:
    """``.md`` files full of PascalCase components are react.dev-style; ``.mdx`` files MDX."""
    page = "<Intro>\n\nHola.\n\n</Intro>\n\n<YouWillLearn>\n\n* x\n\n</YouWillLearn>\n"
    root, files = tree(tmp_path, {"docs/a.md": page, "docs/b.md": page})
    found = detect(root, files)
    assert found.dialect.name == "react"
    assert "2 of 2" in found.why
    root, files = tree(tmp_path / "m", {"docs/a.mdx": "# A\n"})
    assert detect(root, files).dialect.name == "mdx"


def test_the_override_wins_and_an_unknown_name_is_refused_with_the_choices(
    tmp_path: Path,
) -> None:
    root, files = tree(tmp_path, {"mkdocs.yml": "x", "docs/a.md": "# A\n"})
    assert detect(root, files, "vitepress").as_dict() == {"name": "vitepress", "why": "--dialect"}
    assert unknown("hugo") is not None
    assert "vitepress" in str(unknown("hugo"))
    assert unknown("mkdocs") is None


def test_every_dialect_names_only_registered_transforms() -> None:
    """Order is data: each name in the table is a transform the registry holds."""
    assert set(TRANSFORMS) == set(REGISTRY)
    for dialect in DIALECTS.values():
        assert set(dialect.transforms) <= set(REGISTRY), dialect.name


@pytest.mark.parametrize(
    ("dialect", "path", "partial"),
    [
        ("docusaurus", "guides/_partial.mdx", True),
        ("docusaurus", "_shared/intro.md", True),  # Docusaurus leaves out `_` folders too
        ("docusaurus", "guides/intro.mdx", False),
        ("starlight", "guias/_parcial.mdx", True),
        ("starlight", "_borradores/pagina.mdx", False),  # its loader reads names only
        ("vitepress", "guide/_notes.md", False),  # VitePress builds every file
        ("mkdocs", "_x.md", False),
    ],
)
def test_a_dialect_names_the_files_its_generator_makes_no_page_of(
    dialect: str, path: str, partial: bool
) -> None:
    """Docusaurus' default exclude and Starlight's docs loader skip `_`-prefixed files:
    partials a page imports, never pages of their own."""
    assert DIALECTS[dialect].is_partial(path) is partial
