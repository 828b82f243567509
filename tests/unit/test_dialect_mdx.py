"""MDX into the stored form, one construct at a time (shared.dialects.mdx), and how it renders."""

from __future__ import annotations

import pytest

from shared.dialects.constructs import Constructs
from shared.dialects.mdx import is_mdx, to_stored
from shared.site.markdown import render_body


def stored(body: str, mdx: bool = True) -> tuple[str, dict[str, dict[str, int]]]:
    constructs = Constructs()
    return to_stored(body, constructs, mdx=mdx), constructs.as_dict()


def test_import_and_export_lines_vanish_and_are_counted_one_per_statement() -> None:
    """An ESM block (up to its blank line, past braces left open) leaves nothing behind."""
    text, counts = stored(
        "import { Tabs, TabItem } from '@astrojs/starlight/components';\n"
        "import Since from '~/components/Since.astro';\n"
        "export const meta = {\n\n  a: 1,\n};\n\nTexto.\n"
    )
    assert text.strip() == "Texto."
    assert counts["mdx-import"]["dropped"] == 2
    assert counts["mdx-export"]["dropped"] == 1


def test_comments_vanish_but_code_keeps_them() -> None:
    """``{/* */}`` is dropped in prose, kept in a code span and in a fence."""
    text, counts = stored("Uno {/* nota */} dos `{/* x */}`\n\n```jsx\n{/* y */}\n```\n")
    assert text.startswith("Uno  dos `{/* x */}`")
    assert "{/* y */}" in text
    assert counts["mdx-comment"]["dropped"] == 1


@pytest.mark.parametrize("tail", ["{/*primeros-pasos*/}", "{#primeros-pasos}"])
def test_an_id_after_a_heading_becomes_its_id(tail: str) -> None:
    """react.dev's ``{/*id*/}`` and Docusaurus' ``{#id}`` are the heading's id on the site."""
    text, counts = stored(f"## Primeros pasos {tail}\n\nTexto.\n")
    assert text.startswith("## Primeros pasos  {#primeros-pasos}")
    assert counts["heading-id"]["mapped"] == 1
    assert '<h2 id="primeros-pasos">Primeros pasos</h2>' in render_body(text).html


def test_an_id_of_any_characters_is_kept_as_the_heading_id() -> None:
    """``{/*1-intro*/}`` (a digit first) is the stored ``{#1-intro}``; one with a space
    cannot be an id and is dropped, never shown."""
    text, counts = stored("## Título {/*1-intro*/}\n")
    assert text.strip() == "## Título  {#1-intro}"
    assert counts["heading-id"]["mapped"] == 1
    text, counts = stored("## Título {/*no es id*/}\n")
    assert text.strip() == "## Título"
    assert counts["heading-id"]["dropped"] == 1


@pytest.mark.parametrize(
    ("source", "head"),
    [
        ("<Note>\n\nCuidado con esto.\n\n</Note>", "/// note"),
        ("<Pitfall>\n\nCuidado con esto.\n\n</Pitfall>", "/// warning"),
        ('<Aside type="tip" title="Truco">\nCuidado con esto.\n</Aside>', "/// tip | Truco"),
        ('<Aside type="danger">Cuidado con esto.</Aside>', "/// danger"),
        ('<Callout type="warning">\n  Cuidado con esto.\n</Callout>', "/// warning"),
        (":::note\nCuidado con esto.\n:::", "/// note"),
        (":::tip[Un truco]\nCuidado con esto.\n:::", "/// tip | Un truco"),
        (':::caution{title="Ojo"}\nCuidado con esto.\n:::', "/// caution | Ojo"),
        (":::info Título suelto\nCuidado con esto.\n:::", "/// info | Título suelto"),
        (":::[Sin tipo]\nCuidado con esto.\n:::", "/// note | Sin tipo"),
    ],
)
def test_admonition_components_and_directives_become_admonition_blocks(
    source: str, head: str
) -> None:
    """Each spelling becomes one stored admonition, rendered as the site's admonition."""
    text, _ = stored(f"Antes.\n\n{source}\n\nDespués.\n")
    lines = text.split("\n")
    assert head in lines
    assert "Cuidado con esto." in lines
    html = render_body(text).html
    assert 'class="admonition' in html
    assert "<p>Cuidado con esto.</p>" in html
    assert "<p>Después.</p>" in html


def test_a_pitfall_is_titled_by_its_first_heading_and_a_deep_dive_folds() -> None:
    """react.dev titles a pitfall or a deep dive with a heading inside it."""
    text, counts = stored(
        "<Pitfall>\n\n#### No mutes el estado\n\nTexto.\n\n</Pitfall>\n\n"
        "<DeepDive>\n\n#### ¿Por qué?\n\nPorque sí.\n\n</DeepDive>\n"
    )
    assert "/// warning | No mutes el estado" in text
    assert "/// details | ¿Por qué?\n    type: note" in text
    assert "####" not in text
    assert counts["mdx-component:DeepDive"]["mapped"] == 1
    assert "<details" in render_body(text).html


def test_tabs_become_one_tab_set_each() -> None:
    """``<Tabs>`` of ``<TabItem label>`` (or ``value``) is a set; the next ``<Tabs>`` another."""
    text, counts = stored(
        '<Tabs>\n  <TabItem label="npm">\n    ```sh\n    npm i\n    ```\n  </TabItem>\n'
        '  <TabItem value="pnpm">\n    ```sh\n    pnpm i\n    ```\n  </TabItem>\n</Tabs>\n\n'
        '<Tabs>\n<TabItem value="a" label="Uno">\nA\n</TabItem>\n</Tabs>\n'
    )
    assert "/// tab | npm\n    new: true\n\n```sh\nnpm i\n```\n\n///" in text
    assert "/// tab | pnpm\n\n```sh" in text
    assert "/// tab | Uno\n    new: true" in text
    assert counts["mdx-component:TabItem"]["mapped"] == 3
    assert render_body(text).html.count('class="tabbed-set"') == 2


def test_nested_blocks_use_more_slashes_outside() -> None:
    text, _ = stored(':::note\n<Tabs>\n<TabItem label="a">\nA\n</TabItem>\n</Tabs>\n:::\n')
    assert text.split("\n")[0] == "//// note"
    assert text.rstrip().endswith("////")
    html = render_body(text).html
    assert html.index('class="admonition note"') < html.index('class="tabbed-set"')


def test_steps_keep_their_list_inside_a_list_item_indentation() -> None:
    """Children are dedented to the tag's own column: no indented code block appears."""
    text, _ = stored(
        "<Steps>\n\n  1. Instala.\n\n  2. Ejecuta:\n\n"
        "     ```sh\n     npm run dev\n     ```\n\n</Steps>\n"
    )
    assert text.startswith("1. Instala.")
    html = render_body(text).html
    assert "<ol>" in html
    assert '<code class="language-sh hl">npm run dev' in html


def test_a_file_tree_is_drawn_in_a_text_fence() -> None:
    text, counts = stored(
        "<FileTree>\n- src/\n  - pages/\n    - **index.astro**\n  - env.d.ts\n"
        "- package.json\n</FileTree>\n"
    )
    assert text.strip().split("\n") == [
        "```text",
        "├── src/",
        "│   ├── pages/",
        "│   │   └── index.astro",
        "│   └── env.d.ts",
        "└── package.json",
        "```",
    ]
    assert counts["mdx-component:FileTree"]["mapped"] == 1


def test_a_code_container_keeps_its_files_with_titles_and_leaves_hidden_ones_out() -> None:
    """react.dev's Sandpack: each fence titled by its file (the include form), hidden gone."""
    text, counts = stored(
        "<Sandpack>\n\n```js src/App.js active {2}\nexport default 1;\nlet a;\n```\n\n"
        "```css styles.css\nbody {}\n```\n\n```json package.json hidden\n{}\n```\n\n</Sandpack>\n"
    )
    assert '```js hl_lines="2" title="src/App.js"' in text
    assert '```css title="styles.css"' in text
    assert "package.json" not in text
    assert counts["code-file:hidden"]["dropped"] == 1
    html = render_body(text).html
    assert '<p class="code-title"><code>src/App.js</code></p>' in html
    assert '<span class="hll"><span class="kd">let</span> <span class="nx">a</span>' in html


def test_a_code_group_and_a_fence_outside_keep_titles_and_highlights() -> None:
    text, _ = stored(
        '<CodeGroup>\n```bash title="npm"\nnpm i\n```\n</CodeGroup>\n\n'
        '```js title="astro.config.mjs" {1,3-4} showLineNumbers\na\n```\n'
    )
    assert '```bash title="npm"' in text
    assert '```js hl_lines="1 3 4" title="astro.config.mjs"' in text


def test_a_code_component_with_literal_code_is_a_fence_and_a_variable_is_dropped() -> None:
    text, counts = stored(
        '<Code code={`let x = 1;`} lang="js" title="a.js" />\n\n<Code code={example} lang="js" />\n'
    )
    assert '```js title="a.js"\nlet x = 1;\n```' in text
    assert "example" not in text
    assert counts["mdx-expression"]["dropped"] == 1


def test_link_like_components_become_links_and_cards_their_children() -> None:
    text, _ = stored(
        "<ReadMore>Lee [la guía](/es/guides/x/).</ReadMore>\n\n"
        '<LinkCard title="Despliegue" href="/es/guides/deploy/" description="Cómo publicar." />\n\n'
        '<CardGrid>\n  <Card title="Aprende" icon="star">\n'
        "    Texto de la tarjeta.\n  </Card>\n</CardGrid>\n"
    )
    assert "Lee [la guía](/es/guides/x/)." in text
    assert "[Despliegue](/es/guides/deploy/): Cómo publicar." in text
    assert "**Aprende**\n\nTexto de la tarjeta." in text


def test_inline_components_become_their_text() -> None:
    text, _ = stored(
        'Añadido <Since v="4.10.3" />, pulsa <Kbd>Ctrl</Kbd> o <kbd>K</kbd>; '
        '<Badge text="nuevo" />.\n'
    )
    assert text.strip() == "Añadido v4.10.3, pulsa Ctrl o K; nuevo."


def test_any_other_component_keeps_its_children_and_loses_its_tags() -> None:
    """Unknown components are counted as dropped (the tags); their text stays."""
    text, counts = stored(
        '<Intro>\n\nReact es una biblioteca.\n\n</Intro>\n\n<YouTube id="x" />\n\n'
        '<Box icon="x">\n  <p><Since v="1.0" /></p>\n  - uno\n</Box>\n'
    )
    assert "React es una biblioteca." in text
    for gone in ("<", "Intro", "YouTube", "Box"):
        assert gone not in text
    assert "- uno" in text
    assert counts["mdx-component:Intro"] == {"rendered": 0, "mapped": 0, "dropped": 1}
    assert counts["mdx-component:YouTube"]["dropped"] == 1


def test_html_details_is_a_folded_block_titled_by_its_summary() -> None:
    text, _ = stored(
        "1. Paso\n\n    <details>\n    <summary>Mostrar el código</summary>\n"
        "    ```astro\n    <p>hola</p>\n    ```\n    </details>\n"
    )
    assert "    /// details | Mostrar el código" in text
    assert "    ```astro\n    <p>hola</p>\n    ```" in text
    html = render_body(text).html
    assert "<summary>Mostrar el código</summary>" in html
    assert "&lt;p&gt;hola&lt;/p&gt;" in html  # inside the code block


def test_expressions_keep_string_literals_and_drop_the_rest() -> None:
    text, counts = stored("Hola{' '}mundo {\"!\"} {props.nombre} {`fin`}\n")
    assert text.strip() == "Hola mundo !  fin"
    assert counts["mdx-expression"] == {"rendered": 0, "mapped": 3, "dropped": 1}


def test_fenced_and_inline_code_are_never_touched() -> None:
    body = (
        "Usa `<Tabs>` y `{x}`.\n\n```mdx\nimport X from 'x'\n<Note>{/* c */}</Note>\n:::note\n```\n"
    )
    text, counts = stored(body)
    assert text == body
    assert counts == {}


def test_a_tag_that_is_no_tag_stays_text() -> None:
    """``a < b``, ``<https://x>`` and an unclosed ``{`` are prose, never lost."""
    text, _ = stored("Si a < b y <https://ejemplo.org> o {abierto\n")
    assert text.strip() == "Si a < b y <https://ejemplo.org> o {abierto"


def test_markdown_files_only_lose_what_markdown_never_means() -> None:
    """In a .md file ``{x}`` and ``<X>`` are its own text; directives, ``{/* */}`` go."""
    text, counts = stored(":::tip\nUn {valor} y <Tag>.\n:::\n\n::: paquete.Objeto\n", mdx=False)
    assert text.split("\n")[:3] == ["/// tip", "", "Un {valor} y <Tag>."]
    assert "::: paquete.Objeto" in text  # mkdocstrings, not a directive
    assert counts == {"directive:tip": {"rendered": 0, "mapped": 1, "dropped": 0}}


def test_a_markdown_file_without_any_of_it_is_returned_as_is() -> None:
    body = "# Título\n\n\n\nTexto con {llaves} y <b>.\n"
    assert stored(body, mdx=False)[0] == body


@pytest.mark.parametrize(
    ("name", "body", "expected"),
    [
        ("a.mdx", "Texto", True),
        ("a.md", "import X from './x'\n\nTexto", True),
        ("a.md", "export const meta = {}\n", True),
        ("a.md", "Texto que importa\nimport de datos", False),
        ("a.md", "```js\nimport React from 'react'\n```\n", False),
        ("a.md", "export PATH=/usr/bin\n", False),
        ("a.md", "import './estilos.css'\n", True),
        ("a.markdown", "# Hola", False),
    ],
)
def test_which_files_are_mdx(name: str, body: str, expected: bool) -> None:
    assert is_mdx(name, body) is expected


def test_a_page_of_braces_and_tags_costs_linear_time() -> None:
    """Unclosed braces and tags are scanned within bounds, never once per character."""
    import time

    body = "{" * 20_000 + "<A " * 20_000 + "`" * 2_000
    start = time.thread_time()  # this thread's CPU: other work on the machine does not count
    stored(body)
    assert time.thread_time() - start < 5


@pytest.mark.parametrize(
    "body",
    ['<A b="' * 5_000, "{/*" * 20_000, "<!--" * 20_000, "a `b " * 20_000],
    ids=["quotes", "comments", "html-comments", "code-spans"],
)
def test_unclosed_constructs_cost_linear_time(body: str) -> None:
    import time

    start = time.thread_time()
    stored(body)
    assert time.thread_time() - start < 5


def test_a_body_with_no_construct_is_returned_exactly() -> None:
    """mkdocstrings' ``::: pkg.mod`` and blank lines stay byte for byte (no re-import churn)."""
    body = "\n::: paquete.modulo\n    options:\n\n\n        show_root: true\n"
    assert stored(body, mdx=False) == (body, {})
    assert stored("\n\nTexto.\n\n\n", mdx=True) == ("\n\nTexto.\n\n\n", {})


def test_code_components_with_children_become_one_fence() -> None:
    """Docusaurus' <CodeBlock> (text or a template literal) and react.dev's terminal."""
    text, counts = stored(
        '<CodeBlock language="jsx" title="/src/App.js">\n'
        "{`function App() {\n  return <p>Hola</p>;\n}`}\n</CodeBlock>\n\n"
        "<TerminalBlock>\nnpm install react\n</TerminalBlock>\n"
    )
    assert '```jsx title="/src/App.js"\nfunction App() {\n  return <p>Hola</p>;\n}\n```' in text
    assert "```bash\nnpm install react\n```" in text
    assert counts["mdx-component:CodeBlock"]["mapped"] == 1


def test_a_react_dev_style_page_renders_with_nothing_raw() -> None:
    """A page of react.dev's components (tests/fixtures/trees/react) through the MDX pass
    and the site's renderer: the shared scanner finds no source syntax."""
    from pathlib import Path

    from shared.services.importer import split_front_matter
    from tests.fixtures.raw_syntax import raw_syntax

    page = Path(__file__).parents[1] / "fixtures" / "trees" / "react" / "quick-start.mdx"
    _, body = split_front_matter(page.read_text(encoding="utf-8"))
    text, counts = stored(body)
    html = render_body(text).html
    assert raw_syntax(f"<main>{html}</main>") == []
    assert "/// warning | Components must start with a capital letter" in text
    assert '<h2 id="components">' in html
    assert "color: red" not in text  # the sandbox's hidden stylesheet
    assert counts["mdx-component:Intro"]["dropped"] == 1
