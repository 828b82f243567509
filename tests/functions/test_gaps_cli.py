"""`biblioteca gaps` as a real process: JSON alone on stdout, human lines, bad --since."""

from __future__ import annotations

import json

from shared.bootstrap import open_store
from shared.config import get_settings
from tests.functions.test_cli import biblioteca


def _hit(question: str, slugs: list[str], confidence: str) -> None:
    open_store(get_settings()).events.record(
        "utility_hit",
        {"question": question, "mode": "help", "slugs": slugs, "confidence": confidence},
    )


def test_gaps_lists_the_grouped_questions(env: dict[str, str]) -> None:
    """Two languages, one gap, with its samples; the human form names the wanted page."""
    _hit("¿cómo subo un archivo?", [], "low")
    _hit("how do I upload a file?", ["guia"], "low")

    as_json = biblioteca("gaps", "--since", "1d", "--json", env=env)
    as_text = biblioteca("gaps", env=env)

    assert as_json.returncode == 0, as_json.stderr
    [gap] = json.loads(as_json.stdout)["open"]
    assert gap["count"] == 2
    assert gap["pages"] == [{"slug": "guia", "count": 1}]
    assert as_text.returncode == 0
    assert "1 open gap(s)" in as_text.stdout
    assert "wanted pages:" in as_text.stdout


def test_a_bad_since_is_a_clear_error(env: dict[str, str]) -> None:
    """--since that is neither a duration nor a date: a message naming it, not a trace."""
    result = biblioteca("gaps", "--since", "ayer", env=env)
    assert result.returncode != 0
    assert "--since" in result.stderr
    assert "Traceback" not in result.stderr


def test_freshness_rechecks_every_page_and_lists_the_stale_ones(env: dict[str, str]) -> None:
    """A page written with no index is unknown; after its path is indexed and removed
    behind the recheck's back, `biblioteca freshness` finds it stale and names the path."""
    from datetime import UTC, datetime

    from shared.records import PageRecord

    store = open_store(get_settings())
    now = datetime.now(UTC)
    fm = {"title": "Vieja", "type": "guide", "status": "active"}
    store.pages.create(PageRecord("vieja", fm, "Ver `src/gone.py`.", 1, now, now), [])
    # The raw port, no recheck: the index held src/gone.py once and holds it no more.
    store.code.put_paths("app", ["src/here.py", "src/gone.py"], replace=True)
    store.code.put_paths("app", ["src/here.py"], replace=True)

    result = biblioteca("freshness", "--json", env=env)

    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert (body["read"], body["changed"]) == (1, 1)
    [stale] = body["stale"]
    assert (stale["slug"], stale["missing"]) == ("vieja", ["src/gone.py"])


def test_gaps_prints_no_escape_sequence_of_a_question(env: dict[str, str]) -> None:
    """An anonymous question that would clear the curator's terminal prints as text."""
    _hit("¿cómo \x1b[2J\x1b]0;owned\x07 subo un archivo?\nforged", [], "low")
    as_text = biblioteca("gaps", env=env)
    assert as_text.returncode == 0, as_text.stderr
    assert "\x1b" not in as_text.stdout
    assert "\x07" not in as_text.stdout
    assert "\\x1b[2J" in as_text.stdout
    assert not any(line.startswith("forged") for line in as_text.stdout.splitlines())
