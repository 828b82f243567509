"""Directive containers in every spelling become the stored ``///`` blocks (one reader
of ``:::``)."""

from __future__ import annotations

import pytest

from shared.importing.transforms import REGISTRY
from shared.site.markdown import render_body
from tests.unit.importing_helpers import apply, context

CONTAINERS = REGISTRY["containers"]


@pytest.mark.parametrize(
    ("source", "head"),
    [
        (":::note[Mi título]\nTexto.\n:::\n", "/// note | Mi título"),
        ("::: tip Título con espacios\nTexto.\n:::\n", "/// tip | Título con espacios"),
        (":::warning Some title\n\nTexto.\n\n:::\n", "/// warning | Some title"),
        (":::info{#x .y}\nTexto.\n:::\n", "/// info"),
        (":::{note} Un título\nTexto.\n:::\n", "/// note | Un título"),
        ("::: details Más\nTexto.\n:::\n", "/// details | Más"),
        (":::my-custom-admonition\nTexto.\n:::\n", "/// note | my-custom-admonition"),
    ],
)
def test_each_spelling_opens_a_block_with_its_kind_and_title(source: str, head: str) -> None:
    out = apply(CONTAINERS, source, context("vitepress"))
    assert out.split("\n")[0] == head
    assert ":::" not in out


def test_nested_containers_close_by_their_colons_and_nest_as_blocks() -> None:
    """``::::`` outside, ``:::`` inside: the outer block has more slashes and ends last."""
    out = apply(
        CONTAINERS, ":::: details Fuera\n::: info\nDentro.\n:::\nDespués.\n::::\n", context()
    )
    lines = [line for line in out.split("\n") if line.strip()]
    assert lines == [
        "//// details | Fuera",
        "/// info",
        "Dentro.",
        "///",
        "Después.",
        "////",
    ]
    html = render_body(out).html
    assert html.count("<details") == 1
    assert "admonition info" in html


def test_a_bare_danger_is_a_container_even_where_api_references_exist() -> None:
    """In MkDocs ``::: danger`` is an admonition; ``::: pkg.mod.Obj`` is left to mkdocstrings."""
    out = apply(CONTAINERS, "::: danger\nOjo.\n:::\n\n::: pkg.mod.Obj\n", context("mkdocs"))
    assert out.startswith("/// danger\n")
    assert "::: pkg.mod.Obj" in out


def test_a_code_group_is_a_tab_set_labelled_by_the_fences_titles() -> None:
    source = "::: code-group\n\n```sh [npm]\nnpm i\n```\n\n```sh [pnpm]\npnpm add\n```\n\n:::\n"
    out = apply(CONTAINERS, source, context("vitepress"))
    assert "/// tab | npm\n    new: true" in out
    assert "/// tab | pnpm" in out
    assert out.count("new: true") == 1
    assert "```sh\nnpm i\n```" in out
    html = render_body(out).html
    assert "npm" in html
    assert ":::" not in html


@pytest.mark.parametrize("name", ["v-pre", "raw"])
def test_v_pre_and_raw_keep_their_text_and_lose_their_fences(name: str) -> None:
    out = apply(CONTAINERS, f"::: {name}\nTexto `{{{{ x }}}}`.\n:::\n", context("vitepress"))
    assert out.strip() == "Texto `{{ x }}`."


def test_colons_inside_code_are_code() -> None:
    source = "````md\n::: tip\nEjemplo\n:::\n````\n"
    assert apply(CONTAINERS, source, context("vitepress")) == source


def test_an_unclosed_container_ends_with_the_file_and_a_stray_close_goes() -> None:
    out = apply(CONTAINERS, ":::\nantes\n\n::: warning\nAbierto hasta el final.\n", context())
    assert out.split("\n")[0] == "antes"
    assert out.rstrip().endswith("///")
    assert ":::" not in out


def test_a_myst_fence_directive_is_an_admonition_not_code() -> None:
    out = apply(
        CONTAINERS, "```{warning} Cuidado\n:class: x\nNo **borres** esto.\n```\n", context()
    )
    assert out.split("\n")[0] == "/// warning | Cuidado"
    assert ":class:" not in out
    assert "<strong>borres</strong>" in render_body(out).html
