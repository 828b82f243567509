"""The command line in a newcomer's hands (issue 10 item 5), as real processes.

Which store a command uses, a warning when it is empty, one line for many files
failing the same way, progress lines on a pipe, and ``ask`` through a running serve.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shared.cli.output import progress_lines
from tests.functions.test_cli import ROOT, biblioteca

EMPTY = "warning: the store is empty"


def store_line(env: dict[str, str], pages: int) -> str:
    path = Path(env["BIBLIOTECA_DATA_DIR"]).resolve() / "biblioteca.sqlite3"
    noun = "page" if pages == 1 else "pages"
    return f"biblioteca: store: SQLite at {path} ({pages} {noun}); named by BIBLIOTECA_DATA_DIR"


def test_every_command_names_its_store_and_warns_when_empty(
    env: dict[str, str], tmp_path: Path
) -> None:
    for args in (["rebuild", "--json"], ["drafts", "--json"]):
        done = biblioteca(*args, env=env)
        assert done.returncode == 0, done.stderr
        assert store_line(env, 0) in done.stderr.splitlines()
        assert EMPTY in done.stderr
        json.loads(done.stdout)  # stdout is still the result alone
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nTexto.", encoding="utf-8")
    imported = biblioteca("import", str(docs), "--type", "guide", env=env)
    assert imported.returncode == 0, imported.stderr
    assert store_line(env, 0) in imported.stderr.splitlines()
    assert EMPTY not in imported.stderr  # filling an empty store is how one starts
    rebuilt = biblioteca("rebuild", env=env)
    assert store_line(env, 1) in rebuilt.stderr.splitlines()
    assert EMPTY not in rebuilt.stderr


def test_files_failing_alike_are_one_line_and_progress_is_printed_on_a_pipe(
    env: dict[str, str], tmp_path: Path
) -> None:
    """60 files with the same bad status: one line naming three of them; progress lines."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(60):
        text = f"---\nstatus: publicado\n---\n# Página {i}\n\nTexto."
        (docs / f"p{i:02d}.md").write_text(text, encoding="utf-8")
    done = biblioteca("import", str(docs), env=env)
    assert done.returncode == 1
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("created 0, updated 0, unchanged 0, failed 60")
    assert lines[1:] == [
        "  dialect markdown (content: no generator configuration found)",
        "  failed  60 files: status must be one of: draft, active, archived (status): "
        "p00.md, p01.md, p02.md and 57 more",
    ]
    progress = [line for line in done.stderr.splitlines() if line.startswith("import: ")]
    assert [line.split(" pages")[0] for line in progress] == [
        "import: 25/60",
        "import: 50/60",
        "import: done, 60/60",
    ]
    quiet = biblioteca("import", str(docs), "--json", env=env)
    assert not [line for line in quiet.stderr.splitlines() if line.startswith("import: ")]


def test_progress_lines_come_every_n_items_or_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    now = [0.0]

    def slow(items: list[int]) -> Any:
        for item in items:
            now[0] += 2.0  # each item takes two seconds
            yield item

    consumed = list(
        progress_lines(slow(list(range(7))), "import", "page", every=100, clock=lambda: now[0])
    )
    assert consumed == list(range(7))
    # No total for a generator; a line once 5 s have passed since the last one.
    assert err.getvalue().splitlines() == [
        "import: 3 pages, 6 s",
        "import: 6 pages, 12 s",
        "import: done, 7 pages, 14 s",
    ]


def test_ask_uses_a_running_serve_and_says_so(
    env: dict[str, str], serve: Any, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cert.md").write_text(
        "# Certificados\n\nEl certificado TLS se rota cada noventa días con certbot.",
        encoding="utf-8",
    )
    assert biblioteca("import", str(docs), "--type", "guide", env=env).returncode == 0
    url = serve()
    done = biblioteca("ask", "¿Cada cuánto se rota el certificado?", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert f"answered by the running serve at {url}/" in done.stderr
    assert "loading the embedding model" not in done.stderr
    response = json.loads(done.stdout)
    assert [s["slug"] for s in response["sources"]][:1] == ["cert"]
    stdout, _ = serve.output(url)
    logged = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    assert [e["message"] for e in logged if e.get("function") == "ask"] == ["ask POST 200"]


def test_ask_without_a_serve_says_why_the_first_answer_is_slow(
    env: dict[str, str], tmp_path: Path
) -> None:
    done = biblioteca("ask", "¿Qué es esto?", env=env)
    assert done.returncode == 0, done.stderr
    assert "loading the embedding model in this process" in done.stderr
    assert "biblioteca serve" in done.stderr


def test_a_command_imports_only_its_own_module(env: dict[str, str]) -> None:
    """`biblioteca rebuild` does not load the server or the ask services (start-up)."""
    probe = (
        "import sys; from shared.cli import main; status = main(['rebuild', '--json']); "
        "print(sorted(m for m in ('flask', 'shared.cli.serve', 'shared.services.ask', "
        "'shared.cli.ask') if m in sys.modules), file=sys.stderr); sys.exit(status)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
    json.loads(done.stdout)
