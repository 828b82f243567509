"""Server-side highlighting of fenced code: Pygments spans, highlighted lines, bounds."""

from __future__ import annotations

import time

from shared.site import highlight
from shared.site.markdown import render_body


def test_known_language_gets_token_spans_and_stays_escaped() -> None:
    lines = highlight.lines('def f(x):\n    return "<b>"  # nota\n', "python")
    assert lines is not None
    assert lines[0].startswith('<span class="k">def</span> <span class="nf">f</span>')
    assert '<span class="s2">"&lt;b&gt;"</span>' in lines[1]
    assert '<span class="c1"># nota</span>' in lines[1]
    assert len(lines) == 2  # the trailing line break is no line


def test_unknown_or_plain_languages_fall_back_to_plain() -> None:
    assert highlight.lines("x = 1\n", "no-such-language") is None
    assert highlight.lines("x = 1\n", "text") is None
    html = render_body("```no-such-language\n<x>\n```\n").html
    assert '<code class="language-no-such-language">&lt;x&gt;\n</code>' in html


def test_highlighted_lines_wrap_whole_lines_of_spans() -> None:
    """hl_lines wraps the coloured line whole: no token span is cut in two."""
    source = '```python hl_lines="2 3" title="a.py"\nimport os\nx = """a\nb"""\ny = 2\n```\n'
    html = render_body(source).html
    assert '<p class="code-title"><code>a.py</code></p>' in html
    assert html.count('<span class="hll">') == 2
    assert '<span class="hll"><span class="n">x</span> <span class="o">=</span>' in html
    # A string across lines 2-3 is split into one span per line.
    assert (
        '<span class="s2">"""a</span>\n</span><span class="hll"><span class="s2">b"""</span>'
        in html
    )


def test_block_and_page_budgets_leave_code_plain() -> None:
    big = "x = 1\n" * (highlight.MAX_BLOCK_CHARS // 6 + 1)
    assert highlight.lines(big, "python") is None
    block = "x = 1\n" * 3000  # 18,000 characters: under the block limit
    fences = "".join(f"```python\n{block}```\n\n" for _ in range(8))  # 144,000 in all
    html = render_body(fences).html
    coloured = html.count('<code class="language-python hl">')
    assert coloured == highlight.MAX_PAGE_CHARS // len(block)  # then the page's budget is spent
    assert html.count('<code class="language-python">') == 8 - coloured


def test_highlighting_costs_linear_time() -> None:
    """Eight times the code costs well under sixty-four times the time."""

    def cost(n: int) -> float:
        code = "```python\n" + 'def f(a, b):\n    return a + "b" * 2  # c\n' * n + "```\n"
        started = time.perf_counter()
        render_body(code)
        return time.perf_counter() - started

    cost(10)
    small, large = min(cost(40) for _ in range(3)), min(cost(320) for _ in range(3))
    assert large < small * 24


def test_stylesheet_has_both_themes() -> None:
    css = highlight.stylesheet()
    assert ".hl .k {" in css
    assert ':root[data-theme="dark"] .hl .k {' in css
    assert "@media (prefers-color-scheme: dark)" in css
    assert ':root:not([data-theme="light"]) .hl .k {' in css
    assert "linenos" not in css
