"""`biblioteca import` + `rebuild` publish nothing from outside the tree: no symlinked
secret, no relative link out of DIR, no dotfile, and the import's environment nowhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from shared.cli import main
from shared.config import get_settings
from tests.fixtures.files import write

# The import's own environment, as a docs-as-code job would carry a key in it.
SECRET = "sk-leak-0f3c9e2d7b"


def test_links_out_of_the_tree_and_dotfiles_never_reach_the_site(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A tree with ``env.md -> /proc/self/environ``, ``passwd.md -> /etc/passwd``, a page
    linking ``../secret.txt`` and ``.env``: the import warns about both links, imports the
    real page, and after ``rebuild`` no file of the site holds the secret or passwd's root
    line."""
    docs = tmp_path / "docs"
    write(tmp_path, "secret.txt", SECRET)
    write(docs, ".env", f"KEY={SECRET}")
    write(docs, "img/.hidden.png", SECRET)
    write(
        docs,
        "guia.md",
        "# Guía\n\n[fuera](../secret.txt) [punto](.env) ![oculto](img/.hidden.png)\n",
    )
    (docs / "env.md").symlink_to("/proc/self/environ")
    (docs / "passwd.md").symlink_to("/etc/passwd")
    child = {**os.environ, **env, "OPENAI_API_KEY": SECRET, "BIBLIOTECA_SECRET_PROBE": SECRET}
    done = subprocess.run(
        [sys.executable, "-m", "shared", "import", str(docs), "--type", "guide", "--json"],
        env=child,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert SECRET not in done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["created"] == 1
    warned = {w["file"] for w in report["warnings"] if "out of the tree" in w["warning"]}
    assert warned == {"env.md", "passwd.md"}
    assert main(["rebuild"]) == 0
    site = Path(get_settings().site_location)
    published = [
        Path(folder) / name
        for folder, _, names in os.walk(site, followlinks=True)
        for name in names
    ]
    assert any(p.name == "index.html" and "gu" in p.parent.name for p in published)
    for path in published:
        data = path.read_bytes()
        assert SECRET.encode() not in data, path
        assert b"root:x:0:0" not in data, path
