"""The gcloud commands of cloudbuild.yaml, parsed by the real gcloud (nothing is deployed).

gcloud checks flag names, values and flag groups (``--cpu`` needs ``--memory``, ``--headers``
is ``create`` only…) before it looks for credentials. Run with an empty configuration, no
metadata-server credentials and the APIs pointed at a dead port, a command that got past
parsing stops at "no account" (exit 1); a malformed one stops at parsing (exit 2).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, skip_or_fail
from tests.unit.test_cloudbuild import (
    alert_commands,
    changing,
    deploy_steps,
    scheduler_command,
    substitute,
)

FAKE = {
    "PROJECT_ID": "biblioteca-argcheck-0000",
    "PROJECT_NUMBER": "1",
    "BUILD_ID": "b",
    "LOCATION": "europe-west1",
    "_SITE_BUCKET": "biblioteca-argcheck-site",
    "_REPORT_BUCKET": "biblioteca-argcheck-report",
    "_SITE_ORIGIN": "https://docs.example.com",
}
DEAD = "http://127.0.0.1:9/"


def commands() -> dict[str, list[str]]:
    """Every gcloud command of the build that changes something, substituted."""
    build: dict[str, Any] = yaml.safe_load((ROOT / "cloudbuild.yaml").read_text(encoding="utf-8"))
    values = {str(k): str(v) for k, v in build["substitutions"].items()} | FAKE
    found = {
        step["id"]: ["gcloud", *(substitute(a, values) for a in step["args"])]
        for step in deploy_steps(build)
    }
    public = next(s for s in deploy_steps(build, _MCP_ACCESS="public") if s["id"] == "deploy-mcp")
    found["deploy-mcp-public"] = ["gcloud", *(substitute(a, values) for a in public["args"])]
    _, script, argv = scheduler_command(build)
    header = {"create": "--headers", "update": "--update-headers"}
    for verb in ("create", "update"):
        line = [
            substitute(a, values)
            .replace("$verb", verb)
            .replace("$uri", "https://rebuild-x-ew.a.run.app")
            .replace("$headers", f"{header[verb]}=Content-Type=application/json")
            for a in argv
        ]
        found[f"scheduler-{verb}"] = line
    invoker = next(x for x in script.splitlines() if "add-invoker-policy-binding" in x)
    found["invoker"] = shlex.split(substitute(invoker, values))
    # The rebuild alert, both ways: created in a new project, updated in one that has it.
    for existing in (False, True):
        for argv in changing(alert_commands(build, email="ops@example.com", existing=existing)):
            found[f"alert-{'update' if existing else 'create'}-{argv[3]}"] = [
                substitute(a, values) for a in argv
            ]
    # The enrichment queue's topics, IAM bindings and dead-letter policy, as their scripts
    # run them (a topic that does not exist yet is created).
    for step in build["steps"]:
        if step["id"] in ("enrich-topics", "enrich-dead-letter"):
            for i, argv in enumerate(queue_calls(substitute(step["args"][-1], values))):
                found[f"{step['id']}-{i}"] = argv
    # The docs-as-code recipes' own gcloud call (a rebuild now, through the scheduler job).
    docs = yaml.safe_load((ROOT / "deploy" / "cloudbuild-docs.yaml").read_text(encoding="utf-8"))
    docs_values = values | {str(k): str(v) for k, v in docs["substitutions"].items()}
    docs_values |= {"REPO_FULL_NAME": "org/docs", "_DOCS_BUCKET": "biblioteca-docs"}
    for step in ("rebuild", "import"):  # a rebuild now, and the import job run to its end
        args = next(s for s in docs["steps"] if s["id"] == step)["args"]
        found[f"docs-{step}"] = ["gcloud", *(substitute(a, docs_values) for a in args)]
    return found


def queue_calls(script: str) -> list[list[str]]:
    """The gcloud commands a queue script runs that change something, from bash itself: a
    ``describe`` of a topic fails (so it is created), one of the function or trigger
    prints a name, as the platform would (calls are written to fd 3: the script sends
    the bindings' own output to /dev/null)."""
    shim = (
        'gcloud() { case "$1 $2 $3" in'
        ' "pubsub topics describe") return 1 ;;'
        ' *describe*) echo "projects/p/subscriptions/eventarc-enrich" ; return 0 ;;'
        " esac; { printf '%s\\0' \"$@\"; printf '\\n'; } >&3; }\nexec 3>&1\n"
    )
    done = subprocess.run(
        ["bash", "-ceu", shim + script.replace("\\\n", " ")],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return [["gcloud", *line.split("\0")[:-1]] for line in done.stdout.splitlines() if line]


@pytest.mark.slow
def test_gcloud_accepts_every_command_of_the_build(tmp_path: Path) -> None:
    """Each deploy, scheduler and IAM command parses; only the missing account stops it."""
    if shutil.which("gcloud") is None:
        skip_or_fail("gcloud is not installed (google-cloud-cli)")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "CLOUDSDK_CONFIG": str(tmp_path / "gcloud"),
        "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
        "CLOUDSDK_CORE_CHECK_GCE_METADATA": "false",
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDFUNCTIONS": DEAD,
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDSCHEDULER": DEAD,
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_RUN": DEAD,
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING": DEAD,
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_MONITORING": DEAD,
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_PUBSUB": DEAD,
    }
    running = {
        name: subprocess.Popen(
            [*argv, f"--project={FAKE['PROJECT_ID']}"],
            env=env,
            cwd=ROOT,  # the alert policy's file is named relative to the source
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, argv in commands().items()
    }
    # The functions (ten HTTP, enrich), mcp when public, the scheduler's, the alert's
    # (created, then updated), the enrichment queue's (two topics and a binding; the
    # policy and three bindings); the docs-as-code recipe's rebuild and import job.
    assert len(running) == 11 + 1 + 3 + 3 + 2 + 1 + 3 + 4 + 1
    for name, process in running.items():
        _, err = process.communicate(timeout=120)
        assert process.returncode == 1, f"{name} did not parse:\n{err[-1500:]}"
        assert "account" in err, f"{name} failed for another reason:\n{err[-1500:]}"
