"""`biblioteca import` of a MkDocs project as real sites split it: INHERIT configs, a nav
file, ``--repo``, mkdocstrings pages from the source (griffe), autorefs across pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.bootstrap import open_store
from shared.config import get_settings
from shared.dialects.mkdocs_config import find_config, repository_root
from shared.services.importer import PARTIAL, tree_of
from tests.fixtures.files import write
from tests.fixtures.raw_syntax import raw_syntax
from tests.fixtures.wiring import rebuild
from tests.functions.test_import import run

SOURCE = '''"""A tiny package documented by the docs."""


class Engine:
    """Runs things.

    Args:
        speed: How fast it runs.
    """

    def __init__(self, speed: int = 3) -> None:
        self.speed = speed

    def start(self, *, force: bool = False) -> str:
        """Start the engine.

        Args:
            force: Start even when hot.

        Returns:
            What happened.

        Raises:
            RuntimeError: When broken.
        """
        return "ok"

    def _hidden(self) -> None:
        """Never shown."""
'''


@pytest.fixture
def split_project(tmp_path: Path) -> Path:
    """A repository whose config is a leaf INHERITing a common file, the nav in its own."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, "mkdocs-common.yml", "site_name: Demo\nplugins:\n  mkdocstrings:\n")
    write(repo, "mkdocs-online.yml", "INHERIT: mkdocs-common.yml\nsite_url: https://x.org/\n")
    write(repo, "mkdocs-nav.yml", "nav:\n  - Home: index.md\n  - API:\n    - api/engine.md\n")
    write(repo, "src/motor/__init__.py", '"""Motor."""\n')
    write(repo, "src/motor/engine.py", SOURCE)
    write(
        repo,
        "docs/api/engine.md",
        "---\ntitle: motor.engine\n---\n\n::: motor.engine.Engine\n    options:\n"
        "      show_root_heading: true\n      merge_init_into_class: true\n\n"
        "::: motor.missing.Thing\n",
    )
    write(
        repo,
        "docs/index.md",
        "# Home\n\nCall [start][motor.engine.Engine.start] or [`Engine`][motor.engine.Engine]; "
        "[nothing][motor.gone.Gone] is gone.\n",
    )
    return repo / "docs"


def test_the_leaf_of_an_inherit_chain_is_the_config_and_the_nav_file_is_read(
    split_project: Path,
) -> None:
    """No mkdocs.yml: the one leaf mkdocs*.yml, merged with its parent; the nav beside it."""
    config = find_config(split_project)
    assert config.path == split_project.parent / "mkdocs-online.yml"
    assert config.data["site_name"] == "Demo"
    assert config.data["site_url"] == "https://x.org/"
    assert config.data["nav"][0] == {"Home": "index.md"}
    assert repository_root(split_project, config) == split_project.parent


def test_without_a_config_the_repository_root_is_the_folder_holding_git(tmp_path: Path) -> None:
    """--repo's default falls back to the nearest .git above DIR, else DIR."""
    (tmp_path / "r" / ".git").mkdir(parents=True)
    docs = tmp_path / "r" / "site" / "docs"
    docs.mkdir(parents=True)
    assert repository_root(docs, find_config(docs)) == tmp_path / "r"
    alone = tmp_path / "alone"
    alone.mkdir()
    assert repository_root(alone, find_config(alone)) == alone


def test_an_include_directive_nav_is_followed(tmp_path: Path) -> None:
    """``nav: !include nav.yml`` reads the nav from that file."""
    write(tmp_path, "mkdocs.yml", "site_name: S\nnav: !include nav.yml\n")
    write(tmp_path, "nav.yml", "nav:\n  - a.md\n")
    (tmp_path / "docs").mkdir()
    assert find_config(tmp_path / "docs").data["nav"] == ["a.md"]


def test_the_id_map_knows_every_object_a_directive_renders(split_project: Path) -> None:
    """Before any body is prepared, each documented id has its page and anchor."""
    tree = tree_of(split_project)
    assert tree.refs["motor.engine.Engine"] == ("api—engine", "motor.engine.Engine")
    assert tree.refs["motor.engine.Engine.start"] == ("api—engine", "motor.engine.Engine.start")
    assert "motor.engine.Engine._hidden" not in tree.refs


def test_an_api_page_shows_signature_docstring_and_members_from_the_source(
    store_env: str, split_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """griffe reads the source: class signature with __init__'s parameters, the
    docstring's tables, public methods as headings with dotted anchors; a missing object
    is a one-line stand-in; autorefs link across pages; nothing raw is left."""
    status, report = run(capsys, str(split_project), "--type", "reference")
    assert status == 0, report
    assert report["constructs"]["mkdocstrings"] == {"rendered": 1, "mapped": 1, "dropped": 0}
    assert report["constructs"]["autoref"] == {"rendered": 0, "mapped": 2, "dropped": 1}
    assert report["nav"] == 2
    page = open_store(get_settings()).pages.get("api—engine")
    assert page is not None
    assert "class Engine(speed: int = 3)" in page.content
    assert "def start(*, force: bool = False) -> str" in page.content
    assert "{ #motor.engine.Engine.start }" in page.content
    assert "| `force` | `bool` | Start even when hot. | `False` |" in page.content
    assert "RuntimeError" in page.content
    assert "_hidden" not in page.content
    assert "**API reference:** `motor.missing.Thing` (source not found)." in page.content
    build = rebuild(get_settings())
    assert build.broken_links == []
    site = Path(get_settings().site_location)
    api = (site / "api—engine" / "index.html").read_text(encoding="utf-8")
    assert 'id="motor.engine.Engine.start"' in api
    home = (site / "index" / "index.html").read_text(encoding="utf-8")
    assert 'api%E2%80%94engine/index.html#motor.engine.Engine.start"' in home
    assert "<code>nothing</code>" in home
    assert raw_syntax(api) == []
    assert raw_syntax(home) == []


def test_repo_flag_names_where_api_sources_are(
    store_env: str, split_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--repo elsewhere: the package is not there, so the API page is a stand-in."""
    empty = tmp_path / "empty"
    empty.mkdir()
    status, report = run(capsys, str(split_project), "--type", "reference", "--repo", str(empty))
    assert status == 0
    assert report["constructs"]["mkdocstrings"] == {"rendered": 0, "mapped": 2, "dropped": 0}


def api_page(tmp_path: Path, source: str, directive: str, code_url: str | None = None) -> str:
    """The stored form of one page holding ``directive``, documenting ``pkg`` (``source``)."""
    from shared.importing.prepare import prepare

    (tmp_path / ".git").mkdir(exist_ok=True)
    write(tmp_path, "pkg/__init__.py", source)
    docs = tmp_path / "docs"
    write(docs, "api.md", directive)
    tree = tree_of(docs, tmp_path, code_url)
    return prepare(directive, "api.md", tree, 512 * 1024).content


BASE = '''"""Pkg."""


class Base:
    def inherited(self) -> int:
        """From the base."""
        return 1


class Child(Base):
    """A child.

    Parameters
    ----------
    size : int
        How big.
    """

    def own(self, size: int) -> None:
        """Own method.

        :param size: How big it is.
        :returns: Nothing at all.
        """

    def other(self) -> None:
        """Another one."""
'''


def test_members_heading_level_and_inherited_members_are_honoured(tmp_path: Path) -> None:
    """``members`` picks and orders, ``heading_level`` sets the root's level,
    ``inherited_members`` brings the base's methods in."""
    text = api_page(
        tmp_path,
        BASE,
        "::: pkg.Child\n    options:\n      show_root_heading: true\n      heading_level: 3\n"
        "      members: [other, own]\n",
    )
    assert "### class Child { #pkg.Child }" in text
    assert text.index("#### method other") < text.index("#### method own")
    assert "inherited" not in text
    text = api_page(tmp_path, BASE, "::: pkg.Child\n    options:\n      inherited_members: true\n")
    assert "## method inherited { #pkg.Child.inherited }" in text


def test_numpy_and_sphinx_docstrings_are_read_as_such(tmp_path: Path) -> None:
    """``docstring_style`` numpy reads a Parameters section; sphinx reads ``:param:``."""
    numpy = api_page(
        tmp_path,
        BASE,
        "::: pkg.Child\n    options:\n      docstring_style: numpy\n      members: false\n",
    )
    assert "| `size` | `int` | How big. |  |" in numpy
    sphinx = api_page(
        tmp_path, BASE, "::: pkg.Child.own\n    options:\n      docstring_style: sphinx\n"
    )
    assert "| `size` | `int` | How big it is. |  |" in sphinx
    assert "Nothing at all." in sphinx


def test_a_missing_object_is_a_stand_in_linked_with_the_code_url(tmp_path: Path) -> None:
    """The package is there but not the object: one line naming it, linked to its module."""
    text = api_page(
        tmp_path, BASE, "::: pkg.Gone\n", code_url="https://code.example/blob/main/{path}"
    )
    assert text.strip() == (
        "**API reference:** [`pkg.Gone`](https://code.example/blob/main/pkg/__init__.py) "
        "(source not found)."
    )


def test_a_screenshot_fence_is_a_visible_note_linked_to_its_program(tmp_path: Path) -> None:
    """```` ```{.textual path="app.py"} ```` runs a program: a note names it, linked."""
    from shared.importing.prepare import prepare

    docs = tmp_path / "docs"
    write(docs, "a.md", "x")
    tree = tree_of(docs, tmp_path, "https://code.example/{path}")
    body = 'Look:\n\n```{.textual path="docs/app.py" title="Demo" lines="20"}\n```\n'
    assert prepare(body, "a.md", tree, 10_000).content == (
        "Look:\n\n*Screenshot of [`docs/app.py`](https://code.example/docs/app.py) (Demo), "
        "not shown here.*\n\n"
    )


def test_the_human_summary_counts_the_constructs(
    store_env: str, split_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --json a ``constructs`` line says what became of each kind met."""
    from shared.cli import main

    assert main(["import", str(split_project), "--type", "reference"]) == 0
    lines = capsys.readouterr().out.splitlines()
    constructs = next(line for line in lines if line.startswith("  constructs "))
    assert "autoref 2 mapped 1 dropped" in constructs
    assert "mkdocstrings 1 rendered 1 mapped" in constructs


def test_files_the_config_excludes_are_not_pages(tmp_path: Path) -> None:
    """``exclude_docs`` (gitignore-style) and the exclude plugin's globs leave files out;
    a snippet there can still be put into a page."""
    write(
        tmp_path,
        "mkdocs.yml",
        "site_name: S\nexclude_docs: |\n  drafts/\n  /notes.md\n  !drafts/keep.md\n"
        "plugins:\n  - exclude:\n      glob:\n        - 'snippets/*'\n"
        "        - '**/_template.md'\n",
    )
    docs = tmp_path / "docs"
    for name in ("a.md", "notes.md", "x/notes.md", "drafts/d.md", "drafts/keep.md"):
        write(docs, name, f"# {name}\n")
    write(docs, "snippets/s.md", "Shared words.\n")
    write(docs, "styles/_template.md", "# T\n")
    write(docs, "b.md", '# B\n\n--8<-- "docs/snippets/s.md"\n')
    tree = tree_of(docs)
    assert sorted(tree.slugs) == ["a.md", "b.md", "drafts/keep.md", "x/notes.md"]
    from shared.importing.prepare import prepare

    assert "Shared words." in prepare('--8<-- "docs/snippets/s.md"\n', "b.md", tree, 9999).content


def test_an_object_shown_without_its_heading_is_linked_as_its_page(tmp_path: Path) -> None:
    """``show_root_heading: false``: no element carries the root's id, so autorefs to it
    lead to the page; its members keep their anchors."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "pkg/__init__.py", BASE)
    docs = tmp_path / "docs"
    write(docs, "child.md", "::: pkg.Child\n")
    tree = tree_of(docs, tmp_path)
    assert tree.refs["pkg.Child"] == ("child", "")
    assert tree.refs["pkg.Child.own"] == ("child", "pkg.Child.own")


def test_a_module_griffe_cannot_parse_is_its_directives_stand_in(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``X = 1 + 1 + …`` (200,000 terms) overflows the parser: its directive is the
    stand-in, a warning names the module, and the other module and pages are imported."""
    repo = tmp_path / "repo"
    write(repo, "mkdocs.yml", "site_name: Demo\nplugins:\n  mkdocstrings:\n")
    write(repo, "src/motor/__init__.py", '"""Motor."""\n')
    write(repo, "src/motor/engine.py", SOURCE)
    write(repo, "src/motor/huge.py", "X = " + " + ".join(["1"] * 200_000) + "\n")
    write(repo, "docs/api.md", "# API\n\n::: motor.engine.Engine\n\n::: motor.huge.X\n")
    write(repo, "docs/index.md", "# Inicio\n\nTexto de la portada.\n")
    status, report = run(capsys, str(repo / "docs"), "--repo", str(repo), "--type", "reference")
    assert status == 0, report
    assert report["created"] == 2
    assert report["failed"] == []
    page = open_store(get_settings()).pages.get("api")
    assert page is not None
    assert "def start(*, force: bool = False) -> str" in page.content
    assert "**API reference:** `motor.huge.X` (source not parsed)." in page.content
    assert {
        "file": "src/motor/huge.py",
        "warning": "griffe could not parse this module (RecursionError): "
        "its directives are stand-ins",
    } in report["warnings"], report["warnings"]


@pytest.mark.parametrize(
    ("config", "text"),
    [
        ("docusaurus.config.ts", "export default {};\n"),
        ("astro.config.mjs", "import starlight from '@astrojs/starlight';\n"),
    ],
)
def test_a_partial_is_no_page_its_text_is_where_a_page_imports_it(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, text: str
) -> None:
    """Docusaurus and Starlight make no page of ``_parcial.mdx``: neither does the import.
    The file is named in a warning, and the page that imports it shows its text."""
    write(tmp_path, ".git/HEAD", "ref: refs/heads/main\n")
    write(tmp_path, config, text)
    docs = tmp_path / "docs"
    write(
        docs,
        "guia.mdx",
        "---\ntitle: Guía\n---\n\nimport Parcial from './_parcial.mdx';\n\nAntes.\n\n<Parcial />\n",
    )
    write(docs, "_parcial.mdx", "Texto compartido entre páginas.\n")
    status, report = run(capsys, str(docs))
    assert status == 0, report
    assert (report["created"], report["failed"]) == (1, [])
    assert {"file": "_parcial.mdx", "warning": PARTIAL} in report["warnings"]
    store = open_store(get_settings())
    assert [p.slug for p in store.pages.list()] == ["guia"]
    assert "Texto compartido entre páginas." in store.pages.get("guia").content
