"""The site's stale notice: a stale page names its missing paths and where they moved."""

from __future__ import annotations

from shared.gates.staleness import assess
from shared.site.manifest import page_hash
from tests.unit.test_site_renderer import PAYLOAD, WHEN, assert_inert, page, rendered


def test_a_stale_page_names_the_missing_paths_and_the_suggestion() -> None:
    """Spanish page: the notice, each missing path, and '¿movido a …?' when one is known."""
    freshness = assess(
        ("src/old/pkg/a.py", "src/gone.py"), frozenset(), WHEN, {"a.py": ["src/new/pkg/a.py"]}
    )
    stale = page("guía", "Texto en español de la página.").model_copy(
        update={"freshness": freshness}
    )
    html = rendered(stale)
    notice = html[html.index('class="admonition warning stale"') :]
    notice = notice[: notice.index("</div>")]
    assert "Puede estar desactualizada" in notice
    assert "<code>src/old/pkg/a.py</code> (¿movido a <code>src/new/pkg/a.py</code>?)" in notice
    assert "<code>src/gone.py</code></li>" in notice


def test_fresh_and_unknown_pages_show_no_notice_and_the_hash_moves_with_it() -> None:
    """Only stale pages get the block; becoming stale changes the page's build hash."""
    plain = page("guía")
    fresh = plain.model_copy(update={"freshness": assess(("a/b.py",), frozenset({"a/b.py"}), WHEN)})
    stale = plain.model_copy(update={"freshness": assess(("a/b.py",), frozenset(), WHEN)})
    assert "stale" not in rendered(plain)
    assert "stale" not in rendered(fresh)
    assert page_hash(plain) == page_hash(fresh)
    assert page_hash(stale) != page_hash(fresh)


def test_a_hostile_missing_path_is_escaped() -> None:
    """A path is text in the notice, never markup."""
    stale = page("guía").model_copy(update={"freshness": assess((PAYLOAD,), frozenset(), WHEN)})
    assert_inert(rendered(stale))


def test_the_report_sections_escape_questions_and_paths() -> None:
    """A hostile question or path in the report's loop sections is text, never markup."""
    from shared.site import renderer

    gap = {
        "count": 1,
        "last_seen": "x",
        "samples": [PAYLOAD],
        "pages": [{"slug": PAYLOAD, "count": 1}],
    }
    report = {
        "build_id": "b",
        "built_at": "t",
        "status": "ok",
        "built": 0,
        "unchanged": 0,
        "removed": 0,
        "published": 0,
        "failed": [],
        "broken_links": [],
        "drafts": [],
        "stale": [{"slug": "s", "title": PAYLOAD, "missing": [], "checked_at": "t"}],
        "gaps": {
            "available": True,
            "since": "t",
            "open": [gap],
            "closed": [],
            "wanted_pages": [{"question": PAYLOAD, "asked": 1, "gap": "g"}],
        },
    }
    html, _ = renderer.render_report(report)
    assert "Wanted pages" in html
    assert_inert(html)
