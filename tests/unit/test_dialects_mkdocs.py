"""MkDocs' extensions mapped into the stored form, one construct at a time (pure)."""

from __future__ import annotations

import pytest

from shared.dialects import autorefs, markup, mkdocstrings
from shared.dialects.constructs import Constructs
from shared.dialects.mkdocs_config import deep_merge


def test_html_comments_vanish_outside_code_even_across_lines() -> None:
    """A comment goes, a comment in a fence stays, a line that held only one goes too."""
    counted = Constructs()
    text = "a <!-- x --> b\n<!--\nmany\nlines -->\n```html\n<!-- kept -->\n```\nc"
    assert markup.without_comments(text, counted) == "a  b\n```html\n<!-- kept -->\n```\nc"
    assert counted.as_dict()["html-comment"]["dropped"] == 2


def test_a_comment_in_a_code_span_stays() -> None:
    """``<!--`` inside backticks is code, not a comment."""
    assert markup.without_comments("use `<!-- x -->` here", Constructs()) == (
        "use `<!-- x -->` here"
    )


def test_macros_are_dropped_and_counted_but_not_in_code_spans() -> None:
    """Jinja expressions, statements and comments go; the same text in code stays."""
    counted = Constructs()
    line = "v{{ version }} {% if x %}on{% endif %} {# note #} `{{ kept }}`"
    assert markup.without_macros(line, counted) == "v on  `{{ kept }}`"
    assert counted.as_dict()["macro"]["dropped"] == 4


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("## Title { #custom .big }", "## Title { #custom }"),
        ("## Title {: #custom }", "## Title { #custom }"),
        ("## Title { .only-a-class }", "## Title"),
        ("A paragraph.{ .lead }", "A paragraph."),
        ("[Go](x.md){ .md-button .md-button--primary }", "[Go](x.md)"),
        ('![pic](a.png){ width="300" loading=lazy }', "![pic](a.png)"),
        ("[](){#anchor} Text", " Text"),
        (":material-apple:{ .lg .middle } Apple", " Apple"),
        ("Code `{ #id }` stays", "Code `{ #id }` stays"),
        ("A set {1, 2} stays", "A set {1, 2} stays"),
    ],
)
def test_attribute_lists_leave_only_a_headings_id(line: str, expected: str) -> None:
    """Ids of headings are kept in the one form the renderer reads; the rest goes."""
    assert markup.attr_lists(line, Constructs()) == expected


def test_anchor_and_heading_ids_are_found_for_autorefs() -> None:
    """The id map knows ``[](){#id}`` anchors and headings' ids."""
    assert markup.anchors_of("[](){#first} and [](){: #second }") == ["first", "second"]
    assert markup.heading_id("### Run { #textual.app.App.run }") == "textual.app.App.run"
    assert markup.heading_id("Not a heading { #x }") is None


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ('{.py title="a.py" hl_lines="2 3" linenums="1"}', 'py hl_lines="2 3" title="a.py"'),
        ('python title="x.py"', 'python title="x.py"'),
        ("{ .css .no-copy }", "css"),
        ('{.python group="g1"}', "python"),
        ('{.rich columns="80" title="colors"}', 'rich title="colors"'),
        ('py hl_lines="1-2" linenums="5"', 'py hl_lines="1-2" linenums="5"'),
        ("sh [setup.sh]", 'sh title="setup.sh"'),  # VitePress' file name is its title
        ("[.env]", 'text title=".env"'),  # a title alone: shown as text
    ],
)
def test_fence_attributes_become_the_one_info_form(info: str, expected: str) -> None:
    """Language first, then hl_lines and title, as the includes write them."""
    assert markup.normalised_fence("", "```", info, Constructs()) == f"```{expected}"


def test_a_plain_fence_is_left_as_written() -> None:
    """A bare language word needs no rewriting."""
    assert markup.normalised_fence("", "```", "python", Constructs()) is None


def test_md_in_html_wrappers_go_and_their_markdown_stays() -> None:
    """``<div markdown>`` and ``</div>`` lines go; blocks stay apart."""
    counted = Constructs()
    lines = ['<div class="grid cards" markdown>', "", "-   **One**", "", "</div>", "after"]
    out = markup.html_to_markdown(lines, counted)
    assert "<div" not in "\n".join(out)
    assert "</div>" not in "\n".join(out)
    assert "-   **One**" in out
    assert "after" in out
    assert counted.as_dict()["md-in-html"]["mapped"] == 1


def test_inline_html_becomes_markdown() -> None:
    """Images, links, emphasis and code as Markdown; allowlisted tags kept."""
    line = (
        '<a href="https://x.org/a"><strong>Bold</strong> link</a> <img src="i.png" alt="I"> '
        "<kbd>Ctrl</kbd> <span class='x'>plain</span>"
    )
    out = markup.html_to_markdown([line], Constructs())
    assert out == ["[**Bold** link](https://x.org/a) ![I](i.png) <kbd>Ctrl</kbd> plain"]


def test_scripts_styles_and_inline_svg_go_with_their_content() -> None:
    """Content nobody reads as text is dropped whole, even over lines."""
    lines = ["before <svg width='1'>", "<path d='M0'/>", "</svg> after", "<style>a{}</style>x"]
    assert markup.html_to_markdown(lines, Constructs()) == ["before ", " after", "x"]


def test_an_html_table_becomes_a_markdown_table() -> None:
    """Header row, cells with code and links."""
    lines = [
        "<table>",
        "<tr><th>Name</th><th>Use</th></tr>",
        '<tr><td><code>url</code></td><td>see <a href="u.md">this</a></td></tr>',
        "</table>",
    ]
    out = [x for x in markup.html_to_markdown(lines, Constructs()) if x]
    assert out == ["| Name | Use |", "| --- | --- |", "| `url` | see [this](u.md) |"]


def test_a_highlight_div_is_code() -> None:
    """Material's ``<div class="highlight">`` holds code: it becomes a fenced block."""
    lines = ['<div class="highlight">', 'a: <a href="x">&lt;b&gt;</a>;', "</div>"]
    out = [x for x in markup.html_to_markdown(lines, Constructs()) if x]
    assert out == ["```text", "a: <b>;", "```"]


def test_html_in_code_is_untouched() -> None:
    """A fence or code span showing HTML keeps it."""
    lines = ["```html", "<div>x</div>", "```", "Use `<img>` tags."]
    assert markup.html_to_markdown(lines, Constructs()) == lines


REFS = {"pkg.mod.Thing": ("api—mod", "pkg.mod.Thing"), "guide-id": ("guide", "")}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("See [Thing][pkg.mod.Thing].", "See [[api—mod#pkg.mod.Thing|Thing]]."),
        ("See [pkg.mod.Thing][].", "See [[api—mod#pkg.mod.Thing|pkg.mod.Thing]]."),
        ("See [`Thing`][pkg.mod.Thing].", "See [[api—mod#pkg.mod.Thing|`Thing`]]."),
        ("See [`pkg.mod.Thing`][].", "See [[api—mod#pkg.mod.Thing|`pkg.mod.Thing`]]."),
        ("See [the guide][guide-id].", "See [[guide|the guide]]."),
        ("See [Other][pkg.other.Other].", "See `Other`."),
        ("See [`Other`][pkg.other.Other].", "See `Other`."),
        ("See [pkg.other.Other][].", "See `pkg.other.Other`."),
        ("Keep `[a][pkg.mod.Thing]` code.", "Keep `[a][pkg.mod.Thing]` code."),
        ("| [Thing][pkg.mod.Thing] | x |", "| [[api—mod#pkg.mod.Thing\\|Thing]] | x |"),
    ],
)
def test_autorefs_link_known_ids_and_show_unknown_ones_as_code(line: str, expected: str) -> None:
    """Known ids become wiki links to page and anchor, unknown dotted names inline code."""
    assert autorefs.resolve(line, REFS, set(), Constructs()) == expected


def test_a_reference_link_the_page_defines_keeps_working() -> None:
    """``[text][label]`` with ``[label]: url`` on the page is plain Markdown."""
    labels = autorefs.defined_labels("[Docs][docs]\n\n[docs]: https://example.org\n")
    assert labels == {"docs"}
    line = "[Docs][docs]"
    assert autorefs.resolve(line, REFS, labels, Constructs()) == line


def test_a_directive_and_its_options_are_read() -> None:
    """The ``:::`` line, its ``options:`` mapping, and where the block ends."""
    lines = [
        "::: pkg.mod.Thing",
        "    options:",
        "      heading_level: 3",
        "      members: [run]",
        "",
        "Text after.",
    ]
    (found,) = mkdocstrings.directives(lines)
    assert found.identifier == "pkg.mod.Thing"
    assert found.options == {"heading_level": 3, "members": ["run"]}
    assert (found.start, found.end) == (0, 4)


def test_filters_decide_by_the_last_matching_pattern() -> None:
    """``!^_`` hides private names, ``^__init__$`` brings one back."""
    filters = mkdocstrings._filters(["!^_", "^__init__$"])
    assert mkdocstrings._passes("run", filters)
    assert not mkdocstrings._passes("_private", filters)
    assert mkdocstrings._passes("__init__", filters)


def test_configs_merge_as_mkdocs_inherit_does() -> None:
    """Mappings merge key by key, the child wins, lists are replaced."""
    parent = {"theme": {"name": "material", "features": ["a"]}, "nav": ["x.md"]}
    child = {"theme": {"features": ["b"]}, "site_name": "S"}
    assert deep_merge(parent, child) == {
        "theme": {"name": "material", "features": ["b"]},
        "nav": ["x.md"],
        "site_name": "S",
    }


def test_an_escaped_tag_in_prose_is_shown_as_code() -> None:
    """``&lt;color&gt;`` is a tag shown literally: inline code, in a link text too."""
    out = markup.html_to_markdown(["A CSS [&lt;color&gt;](/css_types/color) value."], Constructs())
    assert out == ["A CSS [`<color>`](/css_types/color) value."]


def test_ids_of_paragraphs_links_and_anchors_go_to_their_block() -> None:
    """An anchor alone names the heading after it; a paragraph's or link's id its block."""
    counted = Constructs()
    source = [
        "[](){#intro-anchor}",
        "## Intro",
        "",
        "Text with [a link](x.md){ #the-link .button }",
        "and more.",
        "",
        "[](){#before-para}",
        "Next paragraph.",
        "",
        "```python",
        "# not a heading { #no }",
        "```",
    ]
    from shared import mkdocs

    rows = []
    for line, code in mkdocs.fenced(source):
        stated: list[str] = []
        rows.append((line if code else markup.attr_lists(line, counted, stated), stated, code))
    out = markup.paragraph_ids(rows)
    assert out == [
        "## Intro { #intro-anchor }",
        "",
        "Text with [a link](x.md)",
        "and more. { #the-link }",
        "",
        "Next paragraph. { #before-para }",
        "",
        "```python",
        "# not a heading { #no }",
        "```",
    ]


def test_the_site_renders_block_ids_and_readable_text_leaves_them_out() -> None:
    """``{ #id }`` ending a paragraph or tight list item is its id; words have none."""
    from shared import mkdocs
    from shared.site.markdown import render_body

    text = "Para. { #pid }\n\n- item { #lid }\n- two\n"
    html = render_body(text).html
    assert '<p id="pid">Para.</p>' in html
    assert '<li id="lid">item</li>' in html
    assert mkdocs.readable(text) == "Para.\n\n- item\n- two\n"


def test_details_and_summary_become_the_projects_details_block() -> None:
    """``<details><summary>T</summary>`` … ``</details>`` is ``/// details | T``."""
    lines = ["<details open>", "<summary>All colors</summary>", "", "- **red**", "</details>"]
    out = [x for x in markup.html_to_markdown(lines, Constructs()) if x]
    assert out == ["/// details | All colors", "    open: true", "- **red**", "///"]


def test_blocks_and_tabs_are_counted_by_spelling() -> None:
    """``!!!``/``???``/``/// kind`` are admonitions, ``===``/``/// tab`` tabs; code is not."""
    counted = Constructs()
    text = (
        '!!! note\n    x\n\n??? tip\n    y\n\n=== "A"\n    a\n\n'
        "/// tab | B\nb\n///\n```\n!!! no\n```"
    )
    markup.count_blocks(text, counted)
    assert counted.as_dict() == {
        "admonition": {"rendered": 0, "mapped": 2, "dropped": 0},
        "tabs": {"rendered": 0, "mapped": 2, "dropped": 0},
    }


def test_a_placeholder_that_is_no_html_element_is_shown_as_code() -> None:
    """``<integer>`` in prose is a placeholder: kept, as code; ``<span>`` goes."""
    out = markup.html_to_markdown(["Takes <integer> or <span>auto</span>."], Constructs())
    assert out == ["Takes `<integer>` or auto."]


def test_a_summary_with_html_becomes_a_markdown_title() -> None:
    """``<summary>`` text with ``<code>`` is the block's title in Markdown."""
    lines = [
        '<details markdown="1">',
        "<summary>About <code>run</code>...</summary>",
        "x",
        "</details>",
    ]
    out = [x for x in markup.html_to_markdown(lines, Constructs()) if x]
    assert out[0] == "/// details | About `run`..."


def test_an_id_reached_through_a_re_export_finds_the_documenting_page() -> None:
    """``pkg.Thing`` re-exports ``pkg.mod.Thing``: the canonical path is looked up."""
    real = {"pkg.Thing": "pkg.mod.Thing"}
    line = "See [it][pkg.Thing]."
    out = autorefs.resolve(line, REFS, set(), Constructs(), real.get)
    assert out == "See [[api—mod#pkg.mod.Thing|it]]."


def test_an_html_anchor_is_an_anchor() -> None:
    """``<a name="x"></a>`` reads as ``[](){#x}``; a link with text is left to the HTML pass."""
    assert markup.html_anchors('<a name="why-not"></a>') == "[](){#why-not}"
    assert markup.html_anchors('<a id="x">text</a>') == '<a id="x">text</a>'
    assert markup.anchors_of('<a id="here"></a>') == ["here"]


def test_code_after_a_paragraph_without_ids_on_a_page_with_ids() -> None:
    """A fence right after a plain paragraph gives nothing (no id waiting) and keeps all."""
    rows = [("## H { #h }", [], False), ("Plain.", [], False), ("```", [], True), ("```", [], True)]
    assert markup.paragraph_ids([("", ["a"], False), *rows[1:]]) == [
        "Plain. { #a }",
        "```",
        "```",
    ]
    assert markup.paragraph_ids(rows) == ["## H { #h }", "Plain.", "```", "```"]


def test_pymdownx_keys_become_the_code_a_reader_presses() -> None:
    """``++r++`` and ``++ctrl+p++`` are keys (counted); code, ``a++b++`` and C++ are not."""
    counted = Constructs()
    line = "Press ++r++ or ++ctrl+shift+p++, not `++x++` nor a++b++ in C++."
    assert markup.keys(line, counted) == (
        "Press `R` or `Ctrl+Shift+P`, not `++x++` nor a++b++ in C++."
    )
    assert counted.as_dict()["keys"]["mapped"] == 2
