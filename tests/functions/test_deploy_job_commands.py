"""The sharded import's Cloud Run job in docs/deploy.md ("8c"), parsed by the real gcloud
and by biblioteca's own parser (nothing is created): a flag gcloud does not have, or a
job command biblioteca would refuse, fails here rather than in a reader's project.

As in ``test_deploy_commands.py``: with an empty configuration and the APIs pointed at a
dead port, a command that got past gcloud's parsing stops at "no account" (exit 1); a
malformed one stops at parsing (exit 2).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from shared.cli import build_parser
from tests.conftest import ROOT, skip_or_fail
from tests.functions.test_deploy_commands import DEAD, FAKE

SECTION = "## 8c."
VALUES = {
    "PROJECT_ID": FAKE["PROJECT_ID"],
    "REGION": FAKE["LOCATION"],
    "IMAGE": "europe-west1-docker.pkg.dev/biblioteca-argcheck-0000/biblioteca/import",
    "DOCS_BUCKET": "biblioteca-argcheck-docs",
    "RUNTIME_SA": "biblioteca-runtime@biblioteca-argcheck-0000.iam.gserviceaccount.com",
}


def job_commands() -> list[list[str]]:
    """Every ``gcloud run jobs`` command of the section, continuation lines joined and
    the shell's variables given the fake project's values."""
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ", 1)]
    lines = section.replace("\\\n", " ").splitlines()
    found = []
    for line in lines:
        if line.strip().startswith("gcloud run jobs "):
            command = re.sub(r"\$([A-Z_]+)", lambda m: VALUES[m.group(1)], line.split(" # ")[0])
            found.append(shlex.split(command))
    return found


def test_the_job_runs_the_sharded_import_in_parallel_tasks() -> None:
    """``create`` with four tasks at once and ``execute --wait``; the task's command is a
    ``biblioteca import`` this checkout's parser accepts, with ``--sync`` and a named tree
    and no ``--shard`` (each task reads its own from Cloud Run's variables)."""
    commands = job_commands()
    verbs = [argv[3] for argv in commands]
    assert verbs == ["create", "execute"]
    create = dict(a.split("=", 1) for a in commands[0] if a.startswith("--") and "=" in a)
    assert (create["--tasks"], create["--parallelism"]) == ("4", "4")
    assert create["--command"] == "python"
    argv = create["--args"].split(",")
    assert argv[:2] == ["-m", "shared"]
    args = build_parser(argv[2:]).parse_args(argv[2:])
    assert (args.command, args.sync, args.tree, args.shard) == ("import", True, "docs", None)
    assert "--wait" in commands[1]


@pytest.mark.slow
def test_gcloud_accepts_the_jobs_commands(tmp_path: Path) -> None:
    """Each ``gcloud run jobs`` command parses; only the missing account stops it."""
    if shutil.which("gcloud") is None:
        skip_or_fail("gcloud is not installed (google-cloud-cli)")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "CLOUDSDK_CONFIG": str(tmp_path / "gcloud"),
        "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
        "CLOUDSDK_CORE_CHECK_GCE_METADATA": "false",
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_RUN": DEAD,
    }
    running = [
        subprocess.Popen(
            [*argv, f"--project={FAKE['PROJECT_ID']}"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in job_commands()
    ]
    assert len(running) == 2
    for process in running:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 1, f"{process.args[:4]} did not parse:\n{err[-1500:]}"
        assert "account" in err, f"{process.args[:4]} failed for another reason:\n{err[-1500:]}"
