"""The `biblioteca` command as a real process: entry points, exit statuses, stdout vs stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def biblioteca(
    *args: str, env: dict[str, str], cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """``python -m shared …`` (what the console script runs) with the test's environment."""
    return subprocess.run(
        [sys.executable, "-m", "shared", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_console_script_is_installed() -> None:
    """`biblioteca --help` (the installed script) lists serve and import and exits 0."""
    script = Path(sys.executable).parent / "biblioteca"
    if not script.exists():
        pytest.skip("the project is not installed in this interpreter's environment")
    result = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0
    assert "serve" in result.stdout
    assert "import" in result.stdout


@pytest.mark.parametrize("args", [[], ["no-such-command"], ["import"], ["serve", "--port", "x"]])
def test_usage_errors_exit_2_with_a_message_on_stderr(env: dict[str, str], args: list[str]) -> None:
    """No command, an unknown one, a missing argument or a bad option value: exit status 2."""
    result = biblioteca(*args, env=env)
    assert result.returncode == 2
    assert "usage:" in result.stderr
    assert result.stdout == ""


def test_import_json_report_is_alone_on_stdout_and_exit_1_on_a_failure(
    env: dict[str, str], tmp_path: Path
) -> None:
    """--json prints only the report on stdout (logs go to stderr); a failed file gives exit 1."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bien.md").write_text("# Bien\n\nTexto.", encoding="utf-8")
    (docs / "mal.md").write_text("---\nsources: 5\n---\n# Mal", encoding="utf-8")
    result = biblioteca("import", str(docs), "--type", "guide", "--json", env=env)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["created"] == 1
    assert [f["file"] for f in report["failed"]] == ["mal.md"]
    again = biblioteca("import", str(docs), "--type", "guide", env=env)
    assert again.returncode == 1
    assert again.stdout.startswith("created 0, updated 0, unchanged 1, failed 1")


def test_a_clean_import_exits_0(env: dict[str, str], tmp_path: Path) -> None:
    """Every file imported: exit status 0."""
    (tmp_path / "a.md").write_text("# A", encoding="utf-8")
    result = biblioteca("import", str(tmp_path), "--type", "concept", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("created 1, updated 0, unchanged 0, failed 0")
