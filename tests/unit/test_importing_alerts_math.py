"""GitHub alerts become admonitions, read from the parse; TeX math is shown as code."""

from __future__ import annotations

from shared.importing.transforms import REGISTRY
from shared.site.markdown import render_body
from tests.unit.importing_helpers import apply, context


def test_an_alert_is_an_admonition_of_its_kind() -> None:
    out = apply(REGISTRY["alerts"], "> [!WARNING]\n> No **borres** nada.\n", context())
    assert out.split("\n")[0] == "/// warning"
    html = render_body(out).html
    assert "admonition warning" in html
    assert "<strong>borres</strong>" in html
    assert "[!WARNING]" not in html


def test_a_quote_that_only_mentions_a_marker_stays_a_quote() -> None:
    source = "> Escribe [!NOTE] al principio.\n\n```md\n> [!TIP]\n> x\n```\n"
    assert apply(REGISTRY["alerts"], source, context()) == source


def test_math_blocks_and_inline_formulas_are_code_and_prices_stay_text() -> None:
    source = "Cuesta $5 o $10.\n\n$$\n\\vec{\\mathbf{B}} = 0\n$$\n\nY $\\frac{a}{b}$ inline.\n"
    out = apply(REGISTRY["math"], source, context("vitepress"))
    assert "Cuesta $5 o $10." in out
    assert "```math\n\\vec{\\mathbf{B}} = 0\n```" in out
    assert "`$\\frac{a}{b}$`" in out
