"""The pure parts of import: front matter split, title from the first heading, file parsing."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.errors import InvalidInput
from shared.services.importer import parse_file, split_front_matter, title_of
from tests.fixtures.files import write


@pytest.mark.parametrize(
    ("text", "front_matter", "body"),
    [
        (
            "---\ntitle: Hola\ntype: guide\n---\n# Cuerpo\n",
            {"title": "Hola", "type": "guide"},
            "# Cuerpo\n",
        ),
        ("---\r\ntitle: Hola\r\n---\r\nCuerpo", {"title": "Hola"}, "Cuerpo"),
        ("---\ntitle: Hola\n...\nCuerpo", {"title": "Hola"}, "Cuerpo"),
        ("---\n---\nCuerpo", {}, "Cuerpo"),
        ("---\ntitle: Solo\n---", {"title": "Solo"}, ""),
        ("# Sin front matter\n\n---\n\ntexto", {}, "# Sin front matter\n\n---\n\ntexto"),
        ("Texto\n---\ntitle: no\n---\n", {}, "Texto\n---\ntitle: no\n---\n"),
    ],
)
def test_split_front_matter(text: str, front_matter: dict[str, object], body: str) -> None:
    """A leading '---' YAML block is the front matter; anything else is all body."""
    assert split_front_matter(text) == (front_matter, body)


@pytest.mark.parametrize(
    "text",
    ["---\ntitle: [sin cerrar\n---\nx", "---\n- una\n- lista\n---\nx", "---\n'solo texto'\n---\nx"],
)
def test_front_matter_that_is_not_a_yaml_mapping_is_invalid(text: str) -> None:
    """Bad YAML, or YAML that is not a mapping, is invalid input."""
    with pytest.raises(InvalidInput):
        split_front_matter(text)


def test_front_matter_is_loaded_safely() -> None:
    """YAML tags that would build Python objects are refused (safe_load)."""
    with pytest.raises(InvalidInput):
        split_front_matter("---\ntitle: !!python/object/apply:os.system ['true']\n---\nx")


@pytest.mark.parametrize(
    ("body", "title"),
    [
        ("# Primeros pasos { #first-steps }\n\ntexto", "Primeros pasos"),
        ("# Título {#anchor}\n", "Título"),
        ("# Título cerrado ##\n", "Título cerrado"),
        ("Intro\n\n## Sección\n\n# El título\n", "El título"),
        ("```bash\n# instala primero\npip install x\n```\n\n# Título real\n", "Título real"),
        ("~~~\n# no\n~~~\n# Sí\n", "Sí"),
        ("#SinEspacio\n", None),
        ("## Solo nivel dos\n", None),
        ("", None),
    ],
)
def test_title_is_the_first_h1_outside_code_without_its_anchor(
    body: str, title: str | None
) -> None:
    """The first '# ' heading (not inside fenced code), with a trailing { #anchor } removed."""
    assert title_of(body) == title


def test_parse_file_takes_slug_and_title_from_the_front_matter(tmp_path: Path) -> None:
    """slug and title in the front matter win over the path and the heading."""
    path = write(
        tmp_path, "a/b.md", "---\nslug: concept—propio\ntitle: Propio\ntype: concept\n---\n# Otro\n"
    )
    parsed = parse_file(path, tmp_path)
    assert parsed.slug == "concept—propio"
    assert parsed.metadata["title"] == "Propio"
    assert parsed.content == "# Otro\n"


def test_parse_file_derives_slug_from_the_path_and_title_from_the_heading(tmp_path: Path) -> None:
    """Without front matter: folders joined with '—', extension dropped; the first # heading."""
    path = write(
        tmp_path, "Tutorial/Primeros-Pasos.md", "# Primeros pasos { #first-steps }\n\nTexto."
    )
    parsed = parse_file(path, tmp_path)
    assert parsed.slug == "tutorial—primeros-pasos"
    assert parsed.metadata == {"title": "Primeros pasos"}


def test_parse_file_falls_back_to_the_file_name_for_a_title(tmp_path: Path) -> None:
    """No title and no heading: the file's stem, with '-' and '_' as spaces."""
    parsed = parse_file(write(tmp_path, "notas_de-campo.md", "texto"), tmp_path)
    assert parsed.metadata["title"] == "notas de campo"


@pytest.mark.parametrize(
    ("hero", "title"),
    [
        ("hero:\n  name: VitePress\n  text: Vite y Vue\n", "VitePress"),  # VitePress home
        ("hero:\n  text: Solo el texto\n", "Solo el texto"),
        ("hero:\n  title: Bienvenida\n  tagline: Empieza aquí\n", "Bienvenida"),  # Starlight
    ],
)
def test_a_landing_page_without_heading_is_titled_by_its_hero(
    tmp_path: Path, hero: str, title: str
) -> None:
    """A home page (``layout: home``) has no heading: its hero's headline is its title,
    never the file's name ("index")."""
    path = write(tmp_path, "index.md", f"---\nlayout: home\n{hero}---\n\nTexto.\n")
    assert parse_file(path, tmp_path).metadata["title"] == title


def test_parse_file_keeps_only_what_the_file_states(tmp_path: Path) -> None:
    """--type/--status are applied at write time; parsing keeps the file's own keys only."""
    given = write(tmp_path, "a.md", "---\ntitle: A\ntype: runbook\nstatus: draft\n---\nx")
    silent = write(tmp_path, "b.md", "# B")
    assert parse_file(given, tmp_path).metadata == {
        "title": "A", "type": "runbook", "status": "draft"
    }  # fmt: skip
    assert parse_file(silent, tmp_path).metadata == {"title": "B"}


def test_unknown_keys_are_dropped_and_reported(tmp_path: Path) -> None:
    """Keys outside the schema are dropped from the metadata and listed, sorted."""
    path = write(tmp_path, "a.md", "---\ntitle: A\ntype: guide\ncolor: red\nautor: ana\n---\nx")
    parsed = parse_file(path, tmp_path)
    assert parsed.dropped_keys == ("autor", "color")
    assert set(parsed.metadata) == {"title", "type"}


@pytest.mark.parametrize(
    "key",
    ["author: ana", "date: 2024-05-01", "head: []", "hide_title: true", "pagination_next: x",
     "layout: home", "hero: {name: x}", "features: []", "outline: deep", "prev: false",
     "hide: [toc]", "i18nReady: true", "sidebar_label: Corto", "id: corto"],
)  # fmt: skip
def test_a_generators_own_keys_are_dropped_without_a_warning(tmp_path: Path, key: str) -> None:
    """Docusaurus, Starlight, VitePress and Material keys are the generator's: no warning."""
    parsed = parse_file(write(tmp_path, "a.md", f"---\ntitle: A\n{key}\n---\nx"), tmp_path)
    assert (parsed.dropped_keys, parsed.notes) == ((), ())
    assert set(parsed.metadata) == {"title"}


@pytest.mark.parametrize(
    ("name", "text", "field"),
    [
        ("bad-slug.md", "---\nslug: Con Espacios\ntype: guide\n---\nx", "slug"),
        ("latin1.md", "# Canción".encode("latin-1"), None),
        ("bad-yaml.md", "---\ntitle: [x\n---\nx", None),
    ],
)
def test_unusable_files_are_invalid_input(
    tmp_path: Path, name: str, text: str | bytes, field: str | None
) -> None:
    """A bad slug, non-UTF-8 bytes or bad YAML: InvalidInput (naming the field if one)."""
    with pytest.raises(InvalidInput) as caught:
        parse_file(write(tmp_path, name, text), tmp_path)
    assert caught.value.field == field


def test_a_utf8_bom_is_not_part_of_the_text(tmp_path: Path) -> None:
    """A file saved with a UTF-8 BOM still has its front matter recognised."""
    path = write(tmp_path, "bom.md", "\ufeff---\ntitle: Con BOM\ntype: guide\n---\nx")
    assert parse_file(path, tmp_path).metadata["title"] == "Con BOM"


def test_a_generators_own_type_is_never_a_failed_file(tmp_path: Path) -> None:
    """Starlight's ``type: cms`` is no page type: dropped with a note (in .md and .mdx);
    ``type: tutorial`` names a page kind and becomes the kind; a page type is kept."""
    parsed = parse_file(write(tmp_path, "a.mdx", "---\ntitle: A\ntype: cms\n---\nx"), tmp_path)
    assert "type" not in parsed.metadata
    assert parsed.notes == ("dropped 'type: cms': not a page type",)
    kept = parse_file(write(tmp_path, "b.mdx", "---\ntitle: B\ntype: Guide\n---\nx"), tmp_path)
    assert kept.metadata["type"] == "Guide"
    markdown = parse_file(write(tmp_path, "c.md", "---\ntitle: C\ntype: cms\n---\nx"), tmp_path)
    assert "type" not in markdown.metadata
    tutorial = parse_file(write(tmp_path, "d.md", "---\ntype: Tutorial\n---\nx"), tmp_path)
    assert ("type" in tutorial.metadata, tutorial.metadata["kind"], tutorial.notes) == (
        False,
        "tutorial",
        (),
    )


def test_a_slug_that_is_a_route_gives_way_to_the_paths(tmp_path: Path) -> None:
    """Docusaurus' ``slug: /`` or ``slug: /guias/x`` is where the page is served, not ours."""
    parsed = parse_file(write(tmp_path, "docs/intro.mdx", "---\nslug: /\n---\nx"), tmp_path)
    assert parsed.slug == "docs—intro"
    assert (parsed.stated_slug, parsed.notes) == ("/", ())  # kept as the page's route


def test_sidebar_keys_place_the_page_and_are_not_unknown_keys(tmp_path: Path) -> None:
    text = "---\nsidebar:\n  label: Corto\n  order: 2\nsidebar_position: 9\ni18nReady: true\n---\nx"
    parsed = parse_file(write(tmp_path, "a.mdx", text), tmp_path)
    assert parsed.dropped_keys == ()  # i18nReady is Starlight's own
    assert (parsed.hint.label, parsed.hint.order) == ("Corto", 2.0)
    assert parsed.metadata["title"] == "Corto"  # no title, no heading: the nav label


def test_a_description_is_kept_on_one_line_and_cut_past_the_cap(tmp_path: Path) -> None:
    from shared.schema import MAX_DESCRIPTION, parse_front_matter

    text = "---\ntitle: A\ntype: guide\ndescription: >-\n  Una\n  frase.\n---\nx"
    parsed = parse_file(write(tmp_path, "a.md", text), tmp_path)
    assert parse_front_matter(parsed.metadata).description == "Una frase."
    long = "palabra " * 100
    parsed = parse_file(write(tmp_path, "b.md", f"---\ndescription: {long}\n---\nx"), tmp_path)
    cut = parsed.metadata["description"]
    assert len(cut) <= MAX_DESCRIPTION
    assert cut.endswith("palabra…")
    assert parsed.notes == (f"description cut to {MAX_DESCRIPTION} characters",)


def test_an_mdx_heading_id_is_not_part_of_the_title(tmp_path: Path) -> None:
    parsed = parse_file(write(tmp_path, "a.mdx", "# Empezar {/*empezar*/}\n\nTexto."), tmp_path)
    assert parsed.metadata["title"] == "Empezar"
