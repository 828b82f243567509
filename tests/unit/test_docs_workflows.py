"""The docs-as-code recipes of deploy/: a GitHub Actions workflow and a Cloud Build config
that run the contract's import and index-code against the deployed store as a named actor.

Each command line is parsed by biblioteca's own parser where this checkout has the
command (``index-code``); ``import … --sync`` is checked against the contract's line.
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
IMPORT = re.compile(r'^biblioteca import "?\$\{?_?DOCS_DIR\}?"? --sync$')


def workflow() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "github-actions-docs.yml").read_text(encoding="utf-8"))


def trigger() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "cloudbuild-docs.yaml").read_text(encoding="utf-8"))


def _biblioteca_lines(scripts: list[str]) -> list[str]:
    return [
        line.strip()
        for script in scripts
        for line in script.splitlines()
        if line.strip().startswith("biblioteca ")
    ]


def _github_lines() -> list[str]:
    steps = workflow()["jobs"]["sync"]["steps"]
    return _biblioteca_lines([s["run"] for s in steps if "run" in s])


def _cloudbuild_lines() -> list[str]:
    return _biblioteca_lines([s["args"][-1] for s in trigger()["steps"] if s["id"] == "sync"])


@pytest.mark.parametrize("lines", [_github_lines, _cloudbuild_lines])
def test_both_recipes_import_with_sync_then_index_the_code(lines: Any) -> None:
    """import DIR --sync (the contract's line), then index-code --repo ., which this
    checkout's own parser accepts."""
    found = lines()
    assert len(found) == 2, found
    assert IMPORT.match(found[0]), found[0]
    argv = shlex.split(found[1].replace("${", "").replace("}", "").replace("$", ""))[1:]
    args = build_parser(argv).parse_args(argv)
    assert (args.command, str(args.repo)) == ("index-code", ".")


def test_the_workflow_runs_on_docs_pushes_as_a_named_actor_without_a_key_file() -> None:
    """Triggered by pushes to the docs only; one sync at a time, never cancelled; signed in
    through Workload Identity Federation (id-token), never a key; the embedding key read
    from Secret Manager; every variable one the settings read."""
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
    imported = next(s for s in steps if "biblioteca import" in s.get("run", ""))
    assert imported["env"]["GOOGLE_AI_API_KEY"] == "${{ steps.secrets.outputs.ai_key }}"


def test_the_cloud_build_trigger_reads_the_key_from_secret_manager_as_a_named_actor() -> None:
    """The key comes from availableSecrets (never a substitution's value); the actor is
    named; the rebuild runs after the sync; every variable one the settings read."""
    build = trigger()
    [secret] = build["availableSecrets"]["secretManager"]
    assert secret["env"] == "GOOGLE_AI_API_KEY"
    assert secret["versionName"].endswith("/versions/latest")
    sync = next(s for s in build["steps"] if s["id"] == "sync")
    assert sync["secretEnv"] == ["GOOGLE_AI_API_KEY"]
    env = dict(item.split("=", 1) for item in sync["env"])
    assert env["BIBLIOTECA_ACTOR"] == "ci-docs"
    assert set(env) <= set(ENV)
    rebuild = next(s for s in build["steps"] if s["id"] == "rebuild")
    assert rebuild["waitFor"] == ["sync"]
    assert rebuild["args"][:4] == ["scheduler", "jobs", "run", "biblioteca-rebuild"]
