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
    flags,
    key_values,
    one,
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


# Every API a parsed command could reach points at a dead port: with no account nothing
# is sent, and if a gcloud release ever sent something before asking, it goes nowhere.
_APIS = (
    "CLOUDFUNCTIONS", "CLOUDSCHEDULER", "RUN", "LOGGING", "MONITORING", "PUBSUB", "COMPUTE",
    "STORAGE", "FIRESTORE", "IAM", "SECRETMANAGER", "SERVICEUSAGE", "CLOUDRESOURCEMANAGER",
    "CLOUDBILLING", "CLOUDBUILD",
)  # fmt: skip


def _gcloud_env(home: Path) -> dict[str, str]:
    """An empty gcloud configuration: no account, no metadata server, dead endpoints."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLOUDSDK_CONFIG": str(home / "gcloud"),
        "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
        "CLOUDSDK_CORE_CHECK_GCE_METADATA": "false",
    } | {f"CLOUDSDK_API_ENDPOINT_OVERRIDES_{api}": DEAD for api in _APIS}


@pytest.mark.slow
def test_gcloud_accepts_every_command_of_the_build(tmp_path: Path) -> None:
    """Each deploy, scheduler and IAM command parses; only the missing account stops it."""
    if shutil.which("gcloud") is None:
        skip_or_fail("gcloud is not installed (google-cloud-cli)")
    env = _gcloud_env(tmp_path)
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


# -- the one-command deploy (deploy/deploy.sh) ---------------------------------------

SCRIPT_ARGS = [
    f"--project={FAKE['PROJECT_ID']}",
    f"--region={FAKE['LOCATION']}",
    "--domain=docs.example.com",
]
# What docs/deploy.md's setup names with $VARIABLES, as the script spells it for SCRIPT_ARGS.
DOC_NAMES = {
    "$PROJECT_ID": FAKE["PROJECT_ID"],
    "$SITE_BUCKET": f"{FAKE['PROJECT_ID']}-biblioteca-site",
    "$REPORT_BUCKET": f"{FAKE['PROJECT_ID']}-biblioteca-report",
    "$CI_BUCKET": f"{FAKE['PROJECT_ID']}-biblioteca-ci",
}


def script_commands(*args: str, env: dict[str, str] | None = None) -> list[list[str]]:
    """The gcloud commands ``deploy/deploy.sh --dry-run`` prints, one argv each."""
    done = subprocess.run(
        ["bash", str(ROOT / "deploy" / "deploy.sh"), "--dry-run", *(args or SCRIPT_ARGS)],
        env={"PATH": os.environ.get("PATH", ""), **(env or {})},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [shlex.split(x) for x in done.stdout.splitlines() if x.startswith("gcloud ")]


def command_path(argv: list[str]) -> tuple[str, ...]:
    """``gcloud compute url-maps create NAME --flag`` -> ("compute", "url-maps", "create")."""
    words = [a for a in argv[1:] if not a.startswith("-")]
    verb = next(i for i, w in enumerate(words) if w in _VERBS)
    return tuple(words[: verb + 1])


def resource(argv: list[str]) -> str:
    """The positional after the command path (the resource's name), or "" without one."""
    words = [a for a in argv[1:] if not a.startswith("-")]
    rest = words[len(command_path(argv)) :]
    return rest[0] if rest else ""


_VERBS = {"create", "describe", "enable", "update", "link", "add-iam-policy-binding",
          "rsync", "submit", "run"}  # fmt: skip


def doc_setup_creates() -> set[tuple[tuple[str, ...], str]]:
    """(command path, resource name) of each ``create`` in docs/deploy.md's setup sections
    (1–6), but the GitHub connection, repository and trigger (they need a browser)."""
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    setup = text[text.index("## 1. Project") : text.index("## 7. First deploy")]
    found = set()
    for line in setup.replace("\\\n", " ").splitlines():
        if "gcloud " not in line or " create " not in line or "gcloud builds" in line:
            continue
        argv = shlex.split(line[line.index("gcloud ") :], comments=True)
        name = resource(argv)
        for var, value in DOC_NAMES.items():
            name = name.replace(var, value)
        found.add((command_path(argv), name))
    return found


def test_the_script_creates_everything_the_setup_of_deploy_md_creates() -> None:
    """Every resource docs/deploy.md's setup creates, the dry run creates too, by name."""
    printed = {
        (command_path(a), resource(a)) for a in script_commands() if command_path(a)[-1] == "create"
    }
    wanted = doc_setup_creates()
    assert len(wanted) >= 15  # the doc's setup really was read
    assert wanted <= printed, sorted(wanted - printed)


def test_each_create_of_the_script_follows_the_describe_of_the_same_resource() -> None:
    """Idempotent: a resource is created only after its describe (run again, it finds it)."""
    argvs = script_commands()
    for i, argv in enumerate(argvs):
        path = command_path(argv)
        if path[-1] != "create":
            continue
        before = argvs[i - 1]
        assert command_path(before) == (*path[:-1], "describe"), (argv, before)


def test_the_script_deploys_through_the_build_and_runs_the_first_rebuild() -> None:
    """The functions, indexes, scheduler, alert and queue come from cloudbuild.yaml (one
    gate for CI and deploy), with the site's origin for CORS; then the site is built."""
    argvs = script_commands(env={"WIDGET_ORIGINS": "https://team.example.com,http://x:8000"})
    submit = next(a for a in argvs if command_path(a) == ("builds", "submit"))
    assert "--config=cloudbuild.yaml" in submit
    subs = key_values(one(flags(submit[3:]), "--substitutions"))
    assert subs["_SITE_ORIGIN"] == "https://docs.example.com"
    assert subs["_SITE_BUCKET"] == DOC_NAMES["$SITE_BUCKET"]
    assert subs["_WIDGET_ORIGINS"] == "https://team.example.com,http://x:8000"
    assert subs["_LLM"] == subs["_EMBEDDER"] == "local"  # no GEMINI_API_KEY given
    assert command_path(argvs[-1]) == ("scheduler", "jobs", "run")


def test_the_script_without_a_project_says_what_is_missing_and_runs_nothing() -> None:
    """No --project/--domain: exit 2, each missing one named, nothing printed to run."""
    done = subprocess.run(
        ["bash", str(ROOT / "deploy" / "deploy.sh"), "--dry-run", "--region=europe-west1"],
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "PROJECT" in done.stderr
    assert "DOMAIN" in done.stderr
    assert "gcloud" not in done.stdout


@pytest.mark.slow
def test_gcloud_accepts_every_command_of_the_deploy_script(tmp_path: Path) -> None:
    """Each command the dry run prints parses in the real gcloud (flag names, values,
    groups); only the missing account stops it. One per command path and flag set."""
    if shutil.which("gcloud") is None:
        skip_or_fail("gcloud is not installed (google-cloud-cli)")
    env = _gcloud_env(tmp_path)
    distinct: dict[tuple[Any, ...], list[str]] = {}
    for argv in script_commands(env={"BILLING_ACCOUNT": "000000-000000-000000"}):
        shape = (command_path(argv), tuple(sorted(a.split("=")[0] for a in argv if a[:2] == "--")))
        distinct.setdefault(shape, argv)
    assert len(distinct) >= 25
    running = {
        " ".join(argv[:5]): subprocess.Popen(
            argv, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for argv in distinct.values()
    }
    for name, process in running.items():
        _, err = process.communicate(timeout=120)
        assert process.returncode == 1, f"{name} did not parse:\n{err[-1500:]}"
        assert "account" in err, f"{name} failed for another reason:\n{err[-1500:]}"
