"""The raw-syntax scanner itself: what it must find on a page, and what it must not."""

from __future__ import annotations

import pytest

from tests.fixtures.raw_syntax import raw_syntax, visible_text


def kinds(html: str) -> set[str]:
    return {finding.kind for finding in raw_syntax(html)}


@pytest.mark.parametrize(
    ("html", "kind"),
    [
        ("<p>::: textual.app.App</p>", "directive"),
        ("<p>:::note[Title]</p>", "directive"),
        ("<h2>Install {/*install*/}</h2>", "mdx-comment"),
        ("<p>Version {{ version }}</p>", "jinja"),
        ("<p>{% include 'x.md' %}</p>", "jinja"),
        ("<p>{# a note #}</p>", "brace-hash"),
        ("<h2>Heading {#custom-id}</h2>", "brace-hash"),
        ("<p>A paragraph { #para .lead }</p>", "attr-list"),
        ("<p>Read { .annotate }</p>", "attr-list"),
        ("<p>See [App][textual.app.App] for more.</p>", "autoref"),
        ("<p>See [textual.app.App][] for more.</p>", "autoref"),
        ("<p>A [[wiki link]] left as text</p>", "autoref"),
        ("<p>&lt;!-- a comment shown --&gt;</p>", "html-comment"),
        ("<p>&lt;Pitfall&gt; Careful &lt;/Pitfall&gt;</p>", "tag"),
        ('<p>&lt;div class="grid cards" markdown&gt;</p>', "tag"),
        ("<p>&lt;Sandpack/&gt;</p>", "tag"),
        ('<p>!!! note "Title"</p>', "block-fence"),
        ("<p>??? tip</p>", "block-fence"),
        ('<p>=== "Tab one"</p>', "block-fence"),
        ("<p>/// admonition | Hi</p>", "block-fence"),
        ("<p>first line<br>/// tip</p>", "block-fence"),
        ("<p>{* ../docs_src/app.py hl[3] *}</p>", "include"),
        ('<p>--8<-- "snippets/a.md"</p>', "include"),
        ("<p>{!./src/a.py!}</p>", "include"),
    ],
)
def test_finds_raw_source_syntax_shown_as_text(html: str, kind: str) -> None:
    """Each family of dialect syntax, shown as text, is found and named."""
    assert kind in kinds(html)


@pytest.mark.parametrize(
    "html",
    [
        "<pre><code>::: textual.app.App\n{{ x }} {% y %} {#z} --8&lt;-- &lt;Foo&gt;</code></pre>",
        "<p>Use <code>[a][b]</code> and <code>{ #id }</code> and <code>&lt;div&gt;</code>.</p>",
        "<script>var a = {{b: 1}}; // ::: [x][y]</script>",
        "<style>a{color:red}</style>",
        "<p>If a &lt; b and b &gt; c then List&lt;int&gt; holds.</p>",
        "<p>Ratio 3:2, time 10:30:00, what?? wow!! a/b//c</p>",
        "<p>Math: f(x) = {x | x > 0}, a set {1, 2}.</p>",
        "<!-- a real comment --><p>text</p>",
        '<h2 id="install">Install</h2><p><a href="#install">link</a></p>',
        "<p>The URL file:///tmp/x is fine inside a sentence.</p>",
        "<p>a == b, and x === y in JavaScript</p>",
    ],
)
def test_does_not_flag_code_hidden_text_or_ordinary_prose(html: str) -> None:
    """Code, scripts, real comments and prose with brackets or operators are not raw."""
    assert raw_syntax(html) == []


def test_a_code_block_inside_a_paragraph_hides_only_itself() -> None:
    """Text after a closed code element is looked at again."""
    html = "<p><code>{{ ok }}</code> then {{ shown }}</p>"
    findings = raw_syntax(html)
    assert [f.kind for f in findings] == ["jinja", "jinja"]
    assert "shown" in findings[0].excerpt


def test_a_grammar_placeholder_is_text_but_an_element_or_an_end_tag_is_not() -> None:
    """``<color>``, ``<text-align>`` (a CSS type as Textual's docs title it) are text; an
    HTML element's tag, an end tag or a tag with attributes left as text is raw."""
    assert raw_syntax("<h1>&lt;color&gt;</h1><p>Ver &lt;text-align&gt; y &lt;número&gt;.</p>") == []
    for shown in ("&lt;div&gt;", "&lt;/client-only&gt;", '&lt;badge type="tip"&gt;'):
        assert kinds(f"<p>Antes {shown} después</p>") == {"tag"}, shown


def test_visible_text_decodes_entities_and_breaks_blocks() -> None:
    """Entities are decoded (an escaped tag reads as a tag) and blocks start lines."""
    assert visible_text("<p>&lt;Foo&gt;</p><p>b</p>") == "\n<Foo>\nb"


def test_keys_written_for_pymdownx_are_raw_syntax_but_cpp_is_prose() -> None:
    assert "keys" in kinds("<p>Press ++ctrl+p++ to open it.</p>")
    assert "keys" not in kinds("<p>Written in C++ and a++b++ is an expression.</p>")
