"""Included files put in place, read only inside the tree: escapes are refused, counted,
never shown."""

from __future__ import annotations

from pathlib import Path

from tests.unit.importing_helpers import stored


def docs(tmp_path: Path) -> Path:
    root = tmp_path / "repo" / "docs"  # the repository root is repo/ (the folder above)
    (root / "parts").mkdir(parents=True)
    (root / ".vitepress").mkdir()
    (root / "parts" / "basics.md").write_text("## Básico\n\nUno.\nDos.\nTres.\n", "utf-8")
    (root / "snippets").mkdir()
    (root / "snippets" / "a.js").write_text(
        "// #region main\nconst a = 1\nconst b = 2\n// #endregion main\nrest()\n", "utf-8"
    )
    (root / "_part.mdx").write_text("---\nx: 1\n---\nTexto del parcial.\n", "utf-8")
    return root


def test_a_markdown_include_puts_the_files_lines_in_the_page(tmp_path: Path) -> None:
    root = docs(tmp_path)
    out, counts = stored("Antes.\n\n<!--@include: ./parts/basics.md{3,4}-->\n", root=root)
    assert "Uno.\nDos." in out
    assert "Básico" not in out
    assert counts["include:markdown"]["mapped"] == 1


def test_a_code_snippet_is_a_fence_with_its_region_language_and_title(tmp_path: Path) -> None:
    root = docs(tmp_path)
    out, _ = stored("<<< @/snippets/a.js#main{2} [Ejemplo]\n", "vitepress", root=root)
    assert out.split("\n")[0] == '```js hl_lines="2" title="Ejemplo"'
    assert "const b = 2" in out
    assert "rest()" not in out


def test_an_imported_mdx_partial_is_its_body(tmp_path: Path) -> None:
    root = docs(tmp_path)
    body = "import Part from './_part.mdx';\n\n# Página\n\n<Part />\n"
    out, counts = stored(body, "mdx", page="p.mdx", root=root)
    assert "Texto del parcial." in out
    assert "x: 1" not in out
    assert counts["mdx-partial"]["mapped"] == 1


def test_a_path_leaving_the_tree_is_refused_counted_and_not_shown(tmp_path: Path) -> None:
    root = docs(tmp_path)
    (tmp_path / "secret.md").write_text("SECRETO", "utf-8")
    (root / "link.md").symlink_to(tmp_path / "secret.md")
    body = (
        "<!--@include: ../../secret.md-->\n\n<!--@include: ./link.md-->\n\n"
        '<<< /etc/passwd\n\n--8<-- "/etc/passwd"\n\nFin.\n'
    )
    out, counts = stored(body, "vitepress", root=root)
    assert "SECRETO" not in out
    assert "root:" not in out
    assert "8<" not in out
    assert "<<<" not in out
    assert "@include" not in out
    assert out.strip() == "Fin."
    assert counts["include:outside"]["dropped"] == 3
    assert counts["snippet:outside"]["dropped"] == 1
