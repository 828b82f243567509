"""The curator's commands on both stores: history, diff, revert, show, accept, reject, and
what status and the built site say about them (``biblioteca …`` through ``main``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.api.models import WikiUpdateRequest
from shared.bootstrap import build_embedder
from shared.cli import main
from shared.config import get_settings
from shared.schema import parse_front_matter
from shared.services import review
from shared.services.wiki import create_validated, update_validated


def _write(store: Any, actor: str, slug: str = "guide—pool", content: str = "uno") -> None:
    embedder = build_embedder(get_settings())
    if store.pages.get(slug) is None:
        create_validated(
            slug,
            parse_front_matter({"title": "Pool", "type": "guide"}),
            f"# Pool\n\n{content}",
            store,
            embedder,
            actor=actor,
        )
    else:
        update_validated(slug, {}, f"# Pool\n\n{content}", None, store, embedder, actor=actor)


def _out(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def test_history_diff_and_revert_from_the_command_line(
    store: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """history lists versions with actors; diff shows the last change; revert --to 1 writes
    version 3 as BIBLIOTECA_ACTOR, and history shows it on top."""
    _write(store, "ana")
    _write(store, "mcp:claude-code", content="dos")
    monkeypatch.setenv("BIBLIOTECA_ACTOR", "curator-eva")
    get_settings.cache_clear()

    assert main(["history", "guide—pool"]) == 0
    table = _out(capsys).splitlines()
    assert table[0].split() == ["VERSION", "AT", "ACTOR", "CHANGED", "NOTE"]
    assert table[1].split()[0::3][:2] == ["v2", "mcp:claude-code"]

    assert main(["diff", "guide—pool"]) == 0
    diff = _out(capsys)
    assert "-uno" in diff
    assert "+dos" in diff

    assert main(["revert", "guide—pool", "--to", "1"]) == 0
    assert "now v3" in _out(capsys)
    assert main(["history", "guide—pool", "--json"]) == 0
    found = json.loads(_out(capsys))["revisions"]
    assert [(r["version"], r["actor"]) for r in found] == [
        (3, "curator-eva"),
        (2, "mcp:claude-code"),
        (1, "ana"),
    ]
    assert store.pages.get("guide—pool").content == "# Pool\n\nuno"
    assert main(["revert", "guide—pool", "--to", "9"]) == 2  # no such version: usage
    assert main(["history", "nadie"]) == 1  # not found


def test_show_accept_and_reject_a_proposal_and_a_conflict_exits_1(
    store: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """show p-… prints who proposed what and the diff; accept of a proposal whose page
    moved on exits 1 naming the conflict and writes nothing; reject closes it."""
    _write(store, "ana")
    embedder = build_embedder(get_settings())

    def propose(content: str) -> str:
        request = WikiUpdateRequest.parse(
            {"slug": "guide—pool", "expected_version": store.pages.get("guide—pool").version,
             "content": f"# Pool\n\n{content}"}
        )  # fmt: skip
        return str(review.propose_update(request, store, embedder, actor="mcp:agente").proposal)

    first = propose("del agente")
    assert main(["show", first]) == 0
    shown = _out(capsys)
    assert f"proposal {first} (open) by mcp:agente" in shown
    assert "+del agente" in shown
    assert f"decide: biblioteca accept {first}" in shown

    assert main(["status", "--json"]) == 0
    waiting = json.loads(_out(capsys))["review"]["proposals"]
    assert [p["id"] for p in waiting] == [first]

    _write(store, "ana", content="de ana")  # the page moves on
    assert main(["accept", first]) == 1
    assert "moved on" in capsys.readouterr().err
    assert store.pages.get("guide—pool").content == "# Pool\n\nde ana"
    assert main(["reject", first, "--reason", "llegó tarde"]) == 0
    assert "rejected proposal" in _out(capsys)

    second = propose("mejor")
    assert main(["accept", second, "--json"]) == 0
    accepted = json.loads(_out(capsys))
    assert (accepted["version"], accepted["proposal"]) == (3, second)
    assert main(["status"]) == 0
    assert "0 draft(s), 0 proposal(s) waiting" in _out(capsys)


def test_show_and_accept_a_draft_then_the_site_says_who_edited_it(
    store: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """show SLUG prints the whole draft with its sources and grounding; accept promotes it;
    the rebuilt page says when and by whom it was last edited."""
    monkeypatch.setenv("BIBLIOTECA_ACTOR", "eva")
    get_settings.cache_clear()
    create_validated(
        "concept—borrador",
        parse_front_matter(
            {"title": "Borrador", "type": "concept", "status": "draft",
             "sources": ["src/app/main.py"]}
        ),
        "# Borrador\n\nLee `src/app/main.py`.",
        store,
        build_embedder(get_settings()),
        actor="mcp:agente",
    )  # fmt: skip
    assert main(["show", "concept—borrador"]) == 0
    shown = _out(capsys)
    assert "status:    draft" in shown
    assert "  - code: src/app/main.py" in shown
    assert "grounding: " in shown
    assert "Lee `src/app/main.py`." in shown

    assert main(["accept", "concept—borrador"]) == 0
    assert "accepted concept—borrador: now v2, active" in _out(capsys)
    assert main(["rebuild"]) == 0
    _out(capsys)
    html = (Path(get_settings().site_location) / "concept—borrador" / "index.html").read_text(
        encoding="utf-8"
    )
    assert '<span class="edited-by">eva</span>' in html


def test_an_import_is_written_by_its_tree_and_status_shows_the_last_sync(
    store: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """biblioteca import DIR writes as import:<folder name>; status says when the last
    import ran, by whom (BIBLIOTECA_ACTOR), what it did, and whether --sync ran."""
    monkeypatch.setenv("BIBLIOTECA_ACTOR", "ci-docs")
    get_settings.cache_clear()
    docs = tmp_path / "manual"
    docs.mkdir()
    (docs / "pool.md").write_text("# Pool\n\nTexto.\n")
    assert main(["import", str(docs), "--type", "guide"]) == 0
    capsys.readouterr()
    assert [r.actor for r in store.revisions.history("pool")] == ["import:manual"]
    assert main(["status"]) == 0
    [sync] = [line for line in _out(capsys).splitlines() if line.startswith("sync:")]
    assert sync.startswith("sync:      import:manual by ci-docs at ")
    assert sync.endswith("created 1, updated 0, unchanged 0, failed 0")
    assert main(["import", str(docs), "--type", "guide", "--sync"]) == 0
    capsys.readouterr()
    assert main(["status"]) == 0
    [sync] = [line for line in _out(capsys).splitlines() if line.startswith("sync:")]
    assert sync.endswith("created 0, updated 0, unchanged 1, failed 0, --sync retired 0")
