"""The docs-as-code recipes of deploy/: a GitHub Actions workflow and a Cloud Build config
that send the docs tree to the import bucket, run the deployment's import job (which holds
the model key; the recipes never do) and index-code, as a named actor.

Each biblioteca command line, the import job's task command included, is parsed by
biblioteca's own parser.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.cli import build_parser
from shared.config import ENV

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
IMPORT_JOB = "biblioteca-import"
KEY_WORDS = ("GOOGLE_AI_API_KEY", "secretmanager", "secretEnv", "availableSecrets", "api-key")


def workflow() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "github-actions-docs.yml").read_text(encoding="utf-8"))


def trigger() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "cloudbuild-docs.yaml").read_text(encoding="utf-8"))


def _scripts_github() -> list[str]:
    return [s["run"] for s in workflow()["jobs"]["sync"]["steps"] if "run" in s]


def _scripts_cloudbuild() -> list[str]:
    scripts = []
    for step in trigger()["steps"]:
        args = step["args"]
        scripts.append(args[-1] if step["entrypoint"] == "bash" else shlex.join(["gcloud", *args]))
    return scripts


def _lines(scripts: list[str], start: str) -> list[str]:
    return [
        line.strip()
        for script in scripts
        for line in script.splitlines()
        if line.strip().startswith(start)
    ]


def _plain(line: str) -> str:
    """The line without the CI's expressions (``${{ x }}``, ``${_X}``, ``$X``)."""
    line = re.sub(r"\$\{\{[^}]*\}\}", "X", line)
    return re.sub(r"\$\$?\{?([A-Za-z_]+)\}?", r"\1", line)


RECIPES = [_scripts_github, _scripts_cloudbuild]


@pytest.mark.parametrize("scripts", RECIPES)
def test_both_recipes_send_the_tree_and_run_the_import_job_then_index_the_code(
    scripts: Any,
) -> None:
    """The docs go to the bucket with symlinks skipped (rsync's default, never
    --no-ignore-symlinks); the import is the deployment's job, run to its end, its task
    command one this checkout's parser reads as ``import /mnt/docs/docs --sync`` with a
    named tree; then index-code --repo ., parsed by biblioteca's own parser."""
    found = scripts()
    [rsync] = _lines(found, "gcloud storage rsync")
    assert "--recursive" in rsync
    assert "--no-ignore-symlinks" not in rsync
    [execute] = _lines(found, "gcloud run jobs execute")
    argv = shlex.split(_plain(execute))
    assert argv[4] == IMPORT_JOB
    assert "--wait" in argv
    override = next(a for a in argv if a.startswith("--args="))[len("--args=") :].split(",")
    assert override[:2] == ["-m", "shared"]
    args = build_parser(override[2:]).parse_args(override[2:])
    assert (args.command, str(args.directory), args.sync) == ("import", "/mnt/docs/docs", True)
    assert str(args.tree).startswith("github.com/")
    assert "--update-env-vars=BIBLIOTECA_ACTOR=ci-docs" in argv
    [index] = _lines(found, "biblioteca ")
    index_argv = shlex.split(_plain(index))[1:]
    parsed = build_parser(index_argv).parse_args(index_argv)
    assert (parsed.command, str(parsed.repo)) == ("index-code", ".")


@pytest.mark.parametrize("name", ["github-actions-docs.yml", "cloudbuild-docs.yaml"])
def test_no_recipe_carries_a_model_key(name: str) -> None:
    """Neither recipe reads, names or passes the embedding key: the import job holds it in
    the project (was: the key in the import step, where one merged symlink published it)."""
    text = (DEPLOY / name).read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert not [word for word in KEY_WORDS if word in body]


def test_the_workflow_runs_on_docs_pushes_as_a_named_actor_without_a_key_file() -> None:
    """Triggered by pushes to the docs only; one sync at a time, never cancelled; signed in
    through Workload Identity Federation (id-token), never a key file; every variable one
    the settings read."""
    flow = workflow()
    on = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads `on` as true
    assert set(on["push"]["paths"]) == {"docs/**", "mkdocs.yml"}
    assert flow["permissions"] == {"contents": "read", "id-token": "write"}
    assert flow["concurrency"]["cancel-in-progress"] is False
    env = flow["env"]
    assert env["BIBLIOTECA_ACTOR"] == "ci-docs"
    assert env["BIBLIOTECA_STORE"] == "firestore"
    assert {k for k in env if k.startswith(("BIBLIOTECA_", "GOOGLE_"))} <= set(ENV)
    steps = flow["jobs"]["sync"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert "google-github-actions/auth@v2" in uses
    auth = next(s for s in steps if s.get("uses") == "google-github-actions/auth@v2")
    assert "credentials_json" not in auth["with"]


def test_the_cloud_build_trigger_imports_before_the_rebuild_as_a_named_actor() -> None:
    """The import waits for the tree to be sent; the rebuild runs after the import and the
    code index; every variable one the settings read."""
    build = trigger()
    steps = {s["id"]: s for s in build["steps"]}
    assert steps["import"]["waitFor"] == ["send"]
    env = dict(item.split("=", 1) for item in steps["index"]["env"])
    assert set(env) <= set(ENV)
    rebuild = steps["rebuild"]
    assert rebuild["waitFor"] == ["import", "index"]
    assert rebuild["args"][:4] == ["scheduler", "jobs", "run", "biblioteca-rebuild"]
