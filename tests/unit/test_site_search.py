"""The search box's full-text index: passages, folded and stemmed forms, prefix keys,
postings, splitting and the size limit (static/site.js reads what these build)."""

from __future__ import annotations

import json

import pytest

from shared.site import renderer, search
from shared.site.entries import Entry, SiteView
from shared.site.markdown import render_body


def entry(slug: str, title: str, language: str = "es") -> Entry:
    return Entry(slug, title, "guide", (), None, "2026-01-01", language, "")


def terms_of(markdown: str) -> search.PageTerms:
    return search.page_terms(search.passages(render_body(markdown).html))


def test_words_are_folded_and_function_words_left_out() -> None:
    assert search.words("Parámetros de la Query y Ñandú") == ("parametros", "query", "nandu")


def test_stems_follow_the_page_language() -> None:
    assert search.stem("parametros", "es") == search.stem("parametro", "es")
    assert search.stem("uploads", "en") == search.stem("uploading", "en") == "upload"
    assert search.stem("2024", "es") == "2024"


def test_a_body_is_cut_into_passages_at_its_headings() -> None:
    body = render_body(
        "Intro con `código`.\n\n## Subir archivos\n\nUsa <b>UploadFile</b> &amp; más.\n\n"
        "```python\nx = 1\n```\n\n### Detalles { #det }\n\nFin.\n"
    )
    assert search.passages(body.html) == (
        ("", "", "Intro con código."),
        ("subir-archivos", "Subir archivos", "Usa <b>UploadFile</b> & más. x = 1"),
        ("det", "Detalles", "Fin."),
    )
    assert search.passages(render_body("## Solo\n\ntexto").html) == (("solo", "Solo", "texto"),)


def test_passages_stop_at_the_limit_and_the_rest_joins_the_last() -> None:
    markdown = "".join(f"## H{i}\n\npalabra{i}\n\n" for i in range(search.MAX_PASSAGES + 5))
    found = search.passages(render_body(markdown).html)
    assert len(found) == search.MAX_PASSAGES
    assert "palabra64" in found[-1][2]


def test_page_terms_count_forms_per_passage() -> None:
    terms = terms_of("Archivo y archivo.\n\n## Subir\n\nSubir archivos, subir.")
    assert terms == (("", "", "archivo:2"), ("subir", "Subir", "archivos subir:2"))


def test_a_shard_maps_forms_to_stems_with_postings_by_field() -> None:
    """Title, heading and text are told apart: [page, in title, passage, weight...],
    weight = occurrences (+100 when the passage's heading has the word)."""
    pages = [entry("b—x", "Archivos grandes"), entry("a—y", "Otra")]
    terms = {
        "b—x": terms_of("Intro.\n\n## Subir archivos\n\nSubes un archivo o dos archivos."),
        "a—y": terms_of("Nada de archivos aquí."),
    }
    index = search.build(pages, terms)
    shard = index.shards["arc"]
    assert shard.forms == {"archivo": "archiv", "archivos": "archiv"}
    assert shard.pages == ["a—y", "b—x"]
    assert shard.postings["archiv"] == [[0, 0, 0, 1], [1, 1, 1, 102]]
    assert index.shards["sub"].forms == {"subes": "sub", "subir": "sub"}
    assert index.shards["sub"].postings["sub"] == [[0, 0, 1, 101]]
    assert index.shards["gra"].postings["grand"] == [[0, 1]]  # title only: no passage


def test_a_form_in_pages_of_two_languages_lists_both_stems() -> None:
    pages = [entry("es", "Configuración", "es"), entry("en", "Configuration", "en")]
    index = search.build(pages, {})
    forms = index.shards["con"].forms
    assert forms["configuracion"] == search.stem("configuracion", "es")
    assert forms["configuration"] == search.stem("configuration", "en")


def test_a_shard_over_the_limit_is_split_by_one_more_letter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "MAX_SHARD_BYTES", 150)
    pages = [entry(f"p{i}", f"Parámetro {i:03d}") for i in range(6)]
    pages += [entry(f"q{i}", f"Paralelo {i:03d}") for i in range(6)]
    pages += [entry("r", "Par")]
    index = search.build(pages, {})
    assert "par" in index.split
    assert set(index.shards["param"].pages) == {f"p{i}" for i in range(6)}
    assert set(index.shards["paral"].pages) == {f"q{i}" for i in range(6)}
    assert index.shards["par"].pages == ["r"]  # the form equal to the prefix
    assert all(len(search.shard_script(k, s)) <= 150 + 100 for k, s in index.shards.items())


def test_a_stem_in_too_many_pages_keeps_its_strongest_postings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "MAX_SHARD_BYTES", 500)
    pages = [entry(f"a{i:02d}", f"Otro {i}") for i in range(30)] + [entry("z", "Tema")]
    terms = {
        f"a{i:02d}": terms_of("Un tema." if i else "## Tema\n\nTema, tema.") for i in range(30)
    }
    index = search.build(pages, terms)
    assert "tem" in index.split
    assert "tem" in index.truncated
    shard = index.shards["tema"]
    kept = set(shard.pages)
    assert {"z", "a00"} <= kept  # the title, then the heading with most occurrences
    assert len(kept) < 31
    assert len(json.dumps(shard.to_json())) <= 500 + 100


def test_keys_stop_at_forty_letters_however_many_long_words_share_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "MAX_SHARD_BYTES", 100)
    long = "a" * 45
    pages = [entry(f"p{i}", f"{long}{i:02d}") for i in range(10)]
    index = search.build(pages, {})
    assert max(len(k) for k in index.shards) == search.MAX_KEY
    assert all(search.shard_path(k) for k in index.shards)


def test_shard_and_passage_files_are_inert_scripts() -> None:
    site = SiteView({"x": entry("x", "<script>alert(1)</script> Datos")}, {"x": []})
    files, split = renderer.render_search_shards(site, {"x": terms_of("a <b> & c")})
    assert set(files) == {"search/scr.js", "search/ale.js", "search/dat.js"}
    text = files["search/dat.js"]
    assert text.startswith('window.BibliotecaSearch&&BibliotecaSearch.shard("dat",')
    assert "<" not in text
    page = search.page_script("x", "<i>T</i>", search.passages(render_body("a <b> & c").html))
    assert page.startswith('window.BibliotecaSearch&&BibliotecaSearch.page("x",')
    assert "<" not in page
    assert "&" not in page.removeprefix("window.BibliotecaSearch&&")
    assert "BIBLIOTECA_SEARCH_SPLIT=[]" in renderer.render_nav_script(site, split)
    with pytest.raises(ValueError, match="invalid shard key"):
        search.shard_path("../x")


def test_a_page_script_clips_long_passages_but_the_index_has_every_word() -> None:
    text = "relleno " * 2000 + "escondida"
    found = search.passages(render_body(text).html)
    script = search.page_script("x", "T", found)
    assert "escondida" not in script
    assert len(script) < search.MAX_PASSAGE_CHARS + 200
    index = search.build([entry("x", "T")], {"x": search.page_terms(found)})
    assert index.shards["esc"].forms == {"escondida": search.stem("escondida", "es")}


def test_the_input_key_follows_words_not_markup() -> None:
    pages = [entry("x", "T")]
    one = search.input_key(pages, {"x": terms_of("## Uso\n\nTexto simple.")})
    same = search.input_key(pages, {"x": terms_of("## Uso\n\n*Texto* **simple**.")})
    other = search.input_key(pages, {"x": terms_of("## Uso\n\nTexto doble.")})
    assert one == same != other
