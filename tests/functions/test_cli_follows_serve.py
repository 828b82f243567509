"""After ``make run`` (``serve --demo``, demo store in ``.biblioteca/demo``), every command
run from the same folder without ``BIBLIOTECA_DATA_DIR`` uses the served store, says so on
stderr, and a write it makes reaches the served site without a manual rebuild."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.net import free_port
from tests.fixtures.server import STARTUP_TIMEOUT_S, _answers

_CLEAN_PREFIXES = ("BIBLIOTECA_", "GEMINI_", "GOOGLE_", "FIRESTORE_")
_REBUILD_WAIT_S = 60.0


def _environ() -> dict[str, str]:
    """The user's shell after a fresh clone: no Biblioteca variable at all."""
    return {k: v for k, v in os.environ.items() if not k.startswith(_CLEAN_PREFIXES)}


def _cli(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shared", *args],
        cwd=folder,
        env=env or _environ(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """``biblioteca serve --demo`` started from a fresh folder, as ``make run`` does."""
    folder = tmp_path_factory.mktemp("clone")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    err = folder / "serve.err"
    with err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "shared", "serve", "--demo", "--port", str(port)],
            cwd=folder,
            env=_environ(),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not (folder / ".biblioteca" / "serve.json").is_file() or not _answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"serve --demo did not start:\n{err.read_text()[-3000:]}")
            time.sleep(0.2)
        yield folder, url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_a_command_without_a_data_dir_reads_the_served_store_and_says_why(
    demo: tuple[Path, str],
) -> None:
    """history of a demo page, run beside make run, finds it and names the running serve."""
    folder, url = demo
    found = _cli(folder, "history", "concept—biblioteca", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["revisions"], found.stdout
    store_line = next(x for x in found.stderr.splitlines() if x.startswith("biblioteca: store:"))
    assert str((folder / ".biblioteca" / "demo").resolve()) in store_line
    assert f"the running serve's, at {url}/" in store_line
    assert "store is empty" not in found.stderr


def test_a_named_data_dir_wins_over_the_running_serve(demo: tuple[Path, str]) -> None:
    """BIBLIOTECA_DATA_DIR set: that store, said to be named, never the served one."""
    folder, _ = demo
    env = _environ() | {"BIBLIOTECA_DATA_DIR": str(folder / "mine")}
    found = _cli(folder, "status", env=env)
    assert "named by BIBLIOTECA_DATA_DIR" in found.stderr
    assert str((folder / "mine").resolve()) in found.stderr
    assert "store is empty" in found.stderr


def test_an_import_beside_the_serve_is_on_its_site_without_a_rebuild(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    """import into the followed store asks the serve to rebuild: the page is served soon."""
    folder, url = demo
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pool-de-hilos.md").write_text("# Pool de hilos\n\nSe dimensiona al arrancar.\n")
    done = _cli(folder, "import", str(docs), "--type", "guide")
    assert done.returncode == 0, done.stderr
    assert f"the serve at {url}/ rebuilds its site" in done.stderr
    deadline = time.monotonic() + _REBUILD_WAIT_S
    while True:
        try:
            with urllib.request.urlopen(f"{url}/pool-de-hilos/", timeout=10) as page:
                assert "Pool de hilos" in page.read().decode()
                return
        except urllib.error.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_the_rebuild_hook_refuses_a_caller_without_the_serves_key(
    demo: tuple[Path, str],
) -> None:
    """POST /_serve/rebuild without the key from serve.json is a 401 in the contract's body."""
    _, url = demo
    request = urllib.request.Request(f"{url}/_serve/rebuild", data=b"", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401
    assert json.loads(refused.value.read())["code"] == "unauthorized"
