"""The search box's shards: folded words, prefix keys, splitting and the size limit."""

from __future__ import annotations

import pytest

from shared.site import renderer, search
from shared.site.entries import Entry, SiteView


def entry(slug: str, title: str) -> Entry:
    return Entry(slug, title, "guide", (), None, "2026-01-01", "es", "")


def test_words_are_folded_and_function_words_left_out() -> None:
    assert search.words("Parámetros de la Query y Ñandú") == ("parametros", "query", "nandu")


def test_a_page_is_in_the_shard_of_each_word_with_the_headings_of_that_shard() -> None:
    index = search.build(
        [entry("tutorial—query", "Parámetros de Query")],
        {"tutorial—query": (("validaciones", "Validaciones"), ("params", "Parámetros extra"))},
    )
    assert sorted(index.shards) == ["ext", "par", "que", "val"]
    assert index.shards["par"] == [
        ["tutorial—query", "Parámetros de Query", ["params", "Parámetros extra"]]
    ]
    assert index.shards["val"] == [
        ["tutorial—query", "Parámetros de Query", ["validaciones", "Validaciones"]]
    ]
    assert index.split == []


def test_a_shard_over_the_limit_is_split_by_one_more_letter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "MAX_SHARD_BYTES", 200)
    pages = [entry(f"p{i}", f"Parámetro {i:03d}") for i in range(6)]
    pages += [entry(f"q{i}", f"Paralelo {i:03d}") for i in range(6)]
    pages += [entry("r", "Par")]
    index = search.build(pages, {})
    assert "par" in index.split
    assert {r[0] for r in index.shards["param"]} == {f"p{i}" for i in range(6)}
    assert {r[0] for r in index.shards["paral"]} == {f"q{i}" for i in range(6)}
    assert [r[0] for r in index.shards["par"]] == ["r"]  # the word equal to the prefix
    assert all(search._size(rows) <= 200 for rows in index.shards.values())


def test_a_word_in_too_many_pages_keeps_title_matches_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "MAX_SHARD_BYTES", 300)
    pages = [entry(f"a{i:02d}", f"Otro {i}") for i in range(20)] + [entry("z", "Tema")]
    headings = {f"a{i:02d}": (("tema", "Tema"),) for i in range(20)}
    index = search.build(pages, headings)
    assert "tem" in index.split
    assert "tema" in index.truncated
    assert "z" in [r[0] for r in index.shards["tema"]]
    assert search._size(index.shards["tema"]) <= 300


def test_shard_files_are_inert_scripts_and_nav_js_lists_split_prefixes() -> None:
    site = SiteView({"x": entry("x", "<script>alert(1)</script> Datos")}, {"x": []})
    files, split = renderer.render_search_shards(site, {})
    assert set(files) == {"search/scr.js", "search/ale.js", "search/dat.js"}
    text = files["search/dat.js"]
    assert text.startswith('window.BibliotecaSearch&&BibliotecaSearch.shard("dat",')
    assert "<" not in text
    assert "BIBLIOTECA_SEARCH_SPLIT=[]" in renderer.render_nav_script(site, split)
    with pytest.raises(ValueError, match="invalid shard key"):
        search.shard_path("../x")


def test_keys_stop_at_forty_letters_however_many_long_words_share_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "MAX_SHARD_BYTES", 100)
    stem = "a" * 45
    pages = [entry(f"p{i}", f"{stem}{i:02d}") for i in range(10)]
    index = search.build(pages, {})
    assert max(len(k) for k in index.shards) == search.MAX_KEY
    assert all(search.shard_path(k) for k in index.shards)
