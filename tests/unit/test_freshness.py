"""Freshness, the pure part: what a page cites, fresh/stale/unknown, moved-file suggestions."""

from __future__ import annotations

from datetime import UTC, datetime

from shared.gates.staleness import (
    all_gone,
    assess,
    demote_gone,
    from_stored,
    page_cited,
    suggest,
    to_stored,
)

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_cited_paths_come_from_code_sources_and_text_once_each() -> None:
    """Code sources and prose paths count, case-insensitively once; folders and docs do not."""
    front = {
        "sources": [
            {"type": "code", "ref": "https://github.com/o/r/blob/main/src/app/main.py#L3"},
            {"type": "code", "ref": "src/app"},
            {"type": "doc", "ref": "docs/guide/intro.py"},
        ]
    }
    content = "Ver `src/App/main.py` y `api/routes/users.py:12`, no Node.js/Express.js."
    assert page_cited(front, content) == ("src/app/main.py", "api/routes/users.py")


def test_no_citation_or_an_empty_index_is_unknown() -> None:
    """Nothing cited, or nothing to check against: unknown, never stale."""
    assert assess((), frozenset(), AT).state == "unknown"
    unknown = assess(("src/a.py",), None, AT)
    assert (unknown.state, unknown.missing) == ("unknown", ())


def test_fresh_when_all_resolve_stale_naming_the_missing_ones() -> None:
    """Stale only for a path that no longer resolves; the missing ones are named."""
    cited = ("src/a.py", "Src/B.py")
    assert assess(cited, frozenset({"src/a.py", "src/b.py"}), AT).state == "fresh"
    stale = assess(cited, frozenset({"src/a.py"}), AT)
    assert (stale.state, stale.missing) == ("stale", ("Src/B.py",))
    assert not all_gone(stale)
    assert all_gone(assess(cited, frozenset(), AT))


def test_a_moved_file_is_suggested_only_when_one_path_is_best() -> None:
    """The longest shared suffix wins; a tie suggests nothing (precision first)."""
    candidates = ["src/new/pkg/a.py", "other/a.py", "lib/x/a.py"]
    assert suggest("src/old/pkg/a.py", candidates) == "src/new/pkg/a.py"
    assert suggest("old/a.py", ["x/a.py", "y/a.py"]) is None
    assert suggest("old/a.py", ["x/b.py"]) is None
    stale = assess(("src/old/pkg/a.py",), frozenset(), AT, {"a.py": candidates})
    assert stale.suggestions == {"src/old/pkg/a.py": "src/new/pkg/a.py"}


def test_the_stored_form_reads_back_equal() -> None:
    """What a store keeps reads back as the same value (suggestions as pairs)."""
    value = assess(("src/old/a.py", "b/c.py"), frozenset({"b/c.py"}), AT, {"a.py": ["n/a.py"]})
    assert from_stored(to_stored(value)) == value
    assert from_stored(None) is None


def test_only_pages_whose_every_path_is_gone_move_down_and_mildly() -> None:
    """A demoted item drops below items scoring over 0.85 of it; the others keep order."""
    ranked = [("gone", 0.9), ("a", 0.8), ("b", 0.7), ("c", 0.3)]
    order = demote_gone(ranked, {"gone"}, lambda r: r[0], lambda r: r[1])
    assert [slug for slug, _ in order] == ["a", "gone", "b", "c"]
    assert demote_gone(ranked, set(), lambda r: r[0], lambda r: r[1]) == ranked
    last = demote_gone([("gone", 0.2), ("a", 0.9)], {"gone"}, lambda r: r[0], lambda r: r[1])
    assert [slug for slug, _ in last] == ["a", "gone"]


ROOTS = frozenset({"fastapi", "docs_src", "tests"})


def test_a_path_outside_the_indexed_top_level_folders_is_not_judged() -> None:
    """Another project's path or an example layout alone: unknown, never stale."""
    for cited in (
        ("uvicorn/middleware/proxy_headers.py",),
        ("app/dependencies.py", "app/routers/items.py"),
        ("assets/app.js", "dist/assets/app.js"),
    ):
        freshness = assess(cited, frozenset(), AT, roots=ROOTS)
        assert (freshness.state, freshness.missing, freshness.outside) == ("unknown", (), cited)
        assert freshness.cited == cited
        assert not all_gone(freshness)


def test_a_found_path_beside_a_foreign_one_is_fresh() -> None:
    """A suffix key found is fresh whatever its first segment; the foreign one is set aside."""
    cited = ("security/oauth2.py", "uvicorn/middleware/proxy_headers.py")
    freshness = assess(cited, frozenset({"security/oauth2.py"}), AT, roots=ROOTS)
    assert (freshness.state, freshness.missing) == ("fresh", ())
    assert freshness.outside == ("uvicorn/middleware/proxy_headers.py",)


def test_a_missing_path_under_an_indexed_root_is_still_stale() -> None:
    """Precision, not blindness: a gone file of the indexed code is stale, case-folded;
    every judged path gone still demotes, whatever foreign paths sit beside it."""
    cited = ("Docs_Src/a/x.py", "assets/app.js")
    freshness = assess(cited, frozenset(), AT, {"x.py": ["docs_src/b/x.py"]}, roots=ROOTS)
    assert (freshness.state, freshness.missing) == ("stale", ("Docs_Src/a/x.py",))
    assert freshness.suggestions == {"Docs_Src/a/x.py": "docs_src/b/x.py"}
    assert all_gone(freshness)
    assert from_stored(to_stored(freshness)) == freshness


def test_an_index_without_recorded_roots_judges_every_path() -> None:
    """roots None (an index written before it kept them): the old rule, every path judged."""
    stale = assess(("uvicorn/x.py",), frozenset(), AT, roots=None)
    assert (stale.state, stale.missing, stale.outside) == ("stale", ("uvicorn/x.py",), ())


def test_paths_in_fenced_code_and_code_titles_are_examples_not_citations() -> None:
    """A tutorial's files (a fence, its title, a file tree in a fence) are not cited;
    inline code and prose still are, and a fence left open runs to the end."""
    content = (
        "Edita `src/pages/index.astro` o `shared/wiki.py`.\n\n"
        '```js title="src/App.js"\nimport x from "./components/Button.js";\n```\n\n'
        "~~~\nsrc/\n  pages/about.astro\n  lib/util.ts\n~~~\n\n"
        "Ver shared/ask.py.\n\n```\nsrc/never/closed.py\n"
    )
    assert page_cited({}, content) == ("shared/wiki.py", "shared/ask.py")


def test_a_remembering_index_judges_only_paths_it_once_held() -> None:
    """With ``seen`` the roots do not decide: a never-held path under a root is outside,
    a held-then-removed one anywhere is missing."""
    found = frozenset({"src/b.py"})
    seen = found | {"old/gone.py"}
    result = assess(
        ["src/b.py", "src/never.py", "old/gone.py"], found, AT, roots=frozenset({"src"}), seen=seen
    )
    assert (result.state, result.missing, result.outside) == (
        "stale",
        ("old/gone.py",),
        ("src/never.py",),
    )
    never = assess(["src/never.py"], frozenset(), AT, roots=frozenset({"src"}), seen=frozenset())
    assert never.state == "unknown"
