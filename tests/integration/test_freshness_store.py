"""Freshness on both stores: checked on write, rechecked after index_code for citing pages only."""

from __future__ import annotations

from typing import Any

from shared.records import Freshness
from shared.schema import parse_front_matter
from shared.services.code_index import index_paths
from shared.services.freshness import recheck_after, recheck_all
from shared.services.wiki import create_validated, update_validated
from tests.fixtures.embedder import HashingEmbedder

OLD = ["src/old/pkg/a.py", "src/b.py", "lib/c.py"]
MOVED = ["src/new/pkg/a.py", "src/b.py", "lib/c.py"]


def _write(store: Any, slug: str, content: str, code_ref: str | None = None) -> None:
    front = {"title": f"Página {slug}", "type": "guide", "status": "active"}
    if code_ref:
        front["sources"] = [{"type": "code", "ref": code_ref}]
    create_validated(
        slug, parse_front_matter(front), content, store, HashingEmbedder(), actor="test"
    )


def _freshness(store: Any, slug: str) -> Freshness:
    record = store.pages.get(slug)
    assert record is not None
    assert record.freshness is not None
    return record.freshness


def test_a_page_is_checked_when_written(store: Any) -> None:
    """Fresh when every cited path resolves, stale naming the gone one (the index held it
    once), unknown citing none."""
    index_paths("app", [*OLD, "src/gone.py"], store, replace=True)
    index_paths("app", OLD, store, replace=True)
    _write(store, "uno", "Lee `src/b.py`.", code_ref="src/old/pkg/a.py")
    _write(store, "dos", "Lee `src/b.py` y `src/gone.py`.")
    _write(store, "tres", "Sin código.")

    assert _freshness(store, "uno").state == "fresh"
    stale = _freshness(store, "dos")
    assert (stale.state, stale.missing) == ("stale", ("src/gone.py",))
    assert _freshness(store, "tres").state == "unknown"
    states = store.pages.freshness_of(["uno", "dos", "tres", "nadie"])
    assert {slug: f.state for slug, f in states.items()} == {
        "uno": "fresh",
        "dos": "stale",
        "tres": "unknown",
    }


def test_index_code_rechecks_only_the_pages_citing_a_changed_path(store: Any) -> None:
    """A moved file makes its citing page stale with a suggestion, without a new version;
    pages citing unchanged paths are not even read."""
    index_paths("app", OLD, store, replace=True)
    _write(store, "movida", "Ver `pkg/a.py`.", code_ref="src/old/pkg/a.py")
    _write(store, "quieta", "Ver `lib/c.py`.")
    _write(store, "nada", "Sin código.")

    changes = store.code.apply_paths("app", MOVED, replace=True)
    recheck = recheck_after(changes, store)

    assert recheck.body() == {"read": 1, "changed": 1}
    moved = _freshness(store, "movida")
    assert (moved.state, moved.missing) == ("stale", ("src/old/pkg/a.py",))
    assert moved.suggestions == {"src/old/pkg/a.py": "src/new/pkg/a.py"}
    record = store.pages.get("movida")
    assert record is not None
    assert record.version == 1
    assert _freshness(store, "quieta").state == "fresh"

    index_paths("app", OLD, store, replace=True)  # moved back: fresh again
    assert _freshness(store, "movida").state == "fresh"


def test_the_first_index_turns_unknown_pages_fresh_or_stale(store: Any) -> None:
    """Written before any code was indexed: unknown; the first index_code decides them all,
    and a path the index never held is not judged (the page stays unknown, not stale)."""
    _write(store, "antes", "Ver `src/b.py`.")
    _write(store, "rota", "Ver `src/nunca.py`.")
    assert _freshness(store, "antes").state == "unknown"

    index_paths("app", OLD, store, replace=True)

    assert _freshness(store, "antes").state == "fresh"
    rota = _freshness(store, "rota")
    assert (rota.state, rota.outside) == ("unknown", ("src/nunca.py",))


def test_an_update_moves_the_page_in_the_path_index(store: Any) -> None:
    """After an edit the page is found by its new paths only."""
    index_paths("app", OLD, store, replace=True)
    _write(store, "editada", "Ver `src/b.py`.")
    update_validated("editada", {}, "Ver `lib/c.py`.", None, store, HashingEmbedder(), actor="test")

    assert [p.slug for p in store.pages.citing(["src/b.py"])] == []
    assert [p.slug for p in store.pages.citing(["lib/c.py"])] == ["editada"]


def test_a_full_recheck_repairs_pages_never_checked(store: Any) -> None:
    """recheck_all reads every page from its text and stores what moved."""
    index_paths("app", OLD, store, replace=True)
    _write(store, "vieja", "Ver `src/b.py`.")
    record = store.pages.get("vieja")
    assert store.pages.set_freshness("vieja", Freshness("unknown", record.updated_at), version=1)

    result = recheck_all(store)

    assert result.body() == {"read": 1, "changed": 1}
    assert _freshness(store, "vieja").state == "fresh"
    assert not store.pages.set_freshness("vieja", _freshness(store, "vieja"), version=7)


def test_a_sqlite_file_from_before_freshness_gains_it(tmp_path: Any) -> None:
    """An older file opens, its pages read as never checked, and they can be checked."""
    import sqlite3

    from shared.store.sqlite import FILENAME, SqliteStore

    old = sqlite3.connect(tmp_path / FILENAME)
    old.execute(
        "CREATE TABLE pages (slug TEXT PRIMARY KEY, front_matter TEXT NOT NULL,"
        " content TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL,"
        " created_at TEXT NOT NULL, updated_at TEXT NOT NULL)"
    )
    old.execute(
        "INSERT INTO pages VALUES ('v', '{\"title\": \"V\"}', 'Ver `src/b.py`.', 1, 'active',"
        " '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')"
    )
    old.commit()
    old.close()

    store = SqliteStore(tmp_path)
    record = store.pages.get("v")
    assert record is not None
    assert record.freshness is None
    store.code.put_paths("app", OLD, replace=True)
    assert recheck_all(store).body() == {"read": 1, "changed": 1}
    assert [p.slug for p in store.pages.citing(["src/b.py"])] == ["v"]


def test_batched_freshness_writes_skip_pages_that_moved_on(store: Any) -> None:
    """Only pages still at the version read are written; a gone page is skipped."""
    index_paths("app", OLD, store, replace=True)
    _write(store, "a", "Ver `src/b.py`.")
    _write(store, "b", "Ver `lib/c.py`.")
    update_validated(
        "b", {}, "Ver `lib/c.py` otra vez.", None, store, HashingEmbedder(), actor="test"
    )
    stale = Freshness("stale", _freshness(store, "a").checked_at, ("src/b.py",), ("src/b.py",))

    done = store.pages.set_freshness_many([("a", 1, stale), ("b", 1, stale), ("zz", 1, stale)])

    assert done == 1
    assert _freshness(store, "a").state == "stale"
    assert _freshness(store, "b").state == "fresh"


FASTAPI = [
    "fastapi/security/oauth2.py",
    "fastapi/middleware/cors.py",
    "docs_src/a/x.py",
    "tests/test_modules_same_name_body/app/main.py",
    "README.md",
]


def test_paths_outside_the_indexed_top_level_folders_are_not_judged(store: Any) -> None:
    """The corpus's three false positives: another project, an example layout (``app`` is
    only a deeper folder here), built assets: unknown alone, fresh beside a found path."""
    index_paths("fastapi", FASTAPI, store, replace=True)
    _write(store, "proxy", "Ver `uvicorn/middleware/proxy_headers.py`.")
    _write(store, "bigger", "Ver `app/dependencies.py` y `app/routers/items.py`.")
    _write(store, "frontend", "Ver `assets/app.js` y `dist/assets/app.js`.")
    _write(store, "mixta", "Ver `security/oauth2.py` y `uvicorn/middleware/proxy_headers.py`.")

    for slug in ("proxy", "bigger", "frontend"):
        unknown = _freshness(store, slug)
        assert (unknown.state, unknown.missing) == ("unknown", ()), slug
        assert unknown.outside == unknown.cited
    mixed = _freshness(store, "mixta")
    assert (mixed.state, mixed.missing) == ("fresh", ())
    assert mixed.outside == ("uvicorn/middleware/proxy_headers.py",)


def test_a_move_inside_the_indexed_code_is_still_caught(store: Any) -> None:
    """docs_src/a/x.py moved to docs_src/b/x.py: stale, with the new place suggested."""
    index_paths("fastapi", FASTAPI, store, replace=True)
    _write(store, "ejemplo", "Ver `docs_src/a/x.py`.")
    assert _freshness(store, "ejemplo").state == "fresh"

    moved = [p.replace("docs_src/a/", "docs_src/b/") for p in FASTAPI]
    index_paths("fastapi", moved, store, replace=True)

    stale = _freshness(store, "ejemplo")
    assert (stale.state, stale.missing) == ("stale", ("docs_src/a/x.py",))
    assert stale.suggestions == {"docs_src/a/x.py": "docs_src/b/x.py"}


def test_a_new_top_level_folder_rechecks_every_citing_page(store: Any) -> None:
    """app/main.py is not judged while no repository held it: a repository adding app/
    rechecks every citing page (the roots changed) and still leaves it unknown; adding
    app/main.py makes it fresh, and removing it again makes it stale."""
    index_paths("lib", OLD, store, replace=True)
    _write(store, "app", "Ver `app/main.py`.", code_ref="app/main.py")
    _write(store, "otra", "Ver `lib/c.py`.")
    assert _freshness(store, "app").state == "unknown"

    changes = store.code.apply_paths("web", ["app/other.py"], replace=True)
    assert changes.roots_changed
    assert recheck_after(changes, store).body() == {"read": 2, "changed": 0}
    assert _freshness(store, "app").state == "unknown"

    changes = store.code.apply_paths("web", ["app/main.py"], replace=False)
    assert not changes.roots_changed
    assert recheck_after(changes, store).body() == {"read": 1, "changed": 1}
    assert _freshness(store, "app").state == "fresh"

    changes = store.code.apply_paths("web", ["app/other.py"], replace=True)
    assert recheck_after(changes, store).body() == {"read": 1, "changed": 1}
    stale = _freshness(store, "app")
    assert (stale.state, stale.missing) == ("stale", ("app/main.py",))


def test_a_sqlite_file_from_before_roots_gains_them(tmp_path: Any) -> None:
    """A file whose code index has no roots table opens with the roots of its paths, and
    judges by them."""
    import sqlite3

    from shared.store.sqlite import FILENAME, SqliteStore

    SqliteStore(tmp_path).code.put_paths("fastapi", FASTAPI, replace=True)
    old = sqlite3.connect(tmp_path / FILENAME)
    old.execute("DROP TABLE code_roots")  # what an older version's file looks like
    old.commit()
    old.close()

    store = SqliteStore(tmp_path)
    assert store.code.lookup([]).roots == {"fastapi", "docs_src", "tests"}
    _write(store, "proxy", "Ver `uvicorn/middleware/proxy_headers.py`.")
    _write(store, "ida", "Ver `docs_src/a/gone.py`.")
    assert _freshness(store, "proxy").state == "unknown"
    assert _freshness(store, "ida").state == "unknown"  # under a root, yet never held


def test_the_index_remembers_the_paths_a_replace_removed(store: Any) -> None:
    """A replace-mode put moves removed paths to the seen set: their keys are seen, not
    found; a path never indexed is neither."""
    index_paths("app", OLD, store, replace=True)
    store.code.apply_paths("app", MOVED, replace=True)
    lookup = store.code.lookup(["src/old/pkg/a.py", "old/pkg/a.py", "src/b.py", "src/nunca.py"])
    assert lookup.found == {"src/b.py"}
    assert lookup.seen == {"src/old/pkg/a.py", "old/pkg/a.py", "src/b.py"}
