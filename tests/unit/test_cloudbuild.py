"""cloudbuild.yaml checked against the code: each function folder deployed once, as it must be."""

from __future__ import annotations

import ast
import json
import re
import shlex
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from deploy.firestore_indexes import composite_commands, index_key, override_commands
from shared.config import ENV

ROOT = Path(__file__).resolve().parents[2]
CLOUDBUILD = ROOT / "cloudbuild.yaml"
FUNCTIONS = ROOT / "functions"
SECRET_ENV = {"GOOGLE_AI_API_KEY", "BIBLIOTECA_API_TOKEN", "BIBLIOTECA_API_TOKENS"}
BUILTINS = {"PROJECT_ID", "PROJECT_NUMBER", "BUILD_ID", "LOCATION"}
_SUBSTITUTION = re.compile(r"\$\$|\$\{(\w+)\}|\$(\w+)")


@pytest.fixture(scope="module")
def build() -> dict[str, Any]:
    return dict(yaml.safe_load(CLOUDBUILD.read_text(encoding="utf-8")))


def function_folders() -> list[str]:
    return sorted(p.parent.name for p in FUNCTIONS.glob("*/main.py"))


def deploy_steps(build: dict[str, Any], **values: str) -> list[dict[str, Any]]:
    """Every function deploy as a step whose ``args`` are gcloud's: a scripted one (mcp's,
    whose flags a substitution picks) as its script runs with ``values`` (default: the
    build's own), other substitutions left as written."""
    found = []
    for step in build["steps"]:
        if step.get("args", [])[:2] == ["functions", "deploy"]:
            found.append(step)
        elif "gcloud functions deploy" in " ".join(step.get("args", [])):
            argv = scripted_gcloud(step["args"][-1], build, values)
            found.append({**step, "args": argv[1:]})
    return found


def scripted_gcloud(script: str, build: dict[str, Any], values: dict[str, str]) -> list[str]:
    """The gcloud argv a bash step would run, from bash itself (``gcloud`` only echoes).

    Cloud Build replaces ``${_X}`` before bash runs; here each substitution is a variable
    holding its own ``${_X}`` text (so the argv reads as the plain steps do), except those
    in ``values`` and the build's defaults for the ones the script branches on.
    """
    names = substitutions_used(script)
    env = {name: f"${{{name}}}" for name in names}
    defaults = {str(k): str(v) for k, v in build["substitutions"].items()}
    env |= {name: defaults[name] for name in names & {"_MCP_ACCESS"}} | values
    shim = "gcloud() { printf '%s\\0' \"$@\"; }\n"
    done = subprocess.run(
        ["bash", "-ceu", shim + script.replace("$$", "$")],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return ["gcloud", *done.stdout.split("\0")[:-1]]


def flags(args: list[str]) -> dict[str, list[str]]:
    """``["--a=1", "--b", "x"]`` -> ``{"--a": ["1"], "--b": [""]}`` (positionals dropped)."""
    found: dict[str, list[str]] = {}
    for arg in args:
        if arg.startswith("--"):
            name, _, value = arg.partition("=")
            found.setdefault(name, []).append(value)
    return found


def one(found: dict[str, list[str]], name: str) -> str:
    assert len(found.get(name, [])) == 1, f"{name} given {len(found.get(name, []))} times"
    return found[name][0]


def key_values(value: str) -> dict[str, str]:
    """gcloud's ``KEY=V,KEY=V`` lists, with its ``^D^`` alternate-delimiter escape."""
    delimiter = ","
    if value.startswith("^"):
        delimiter, value = value[1:].split("^", 1)
    pairs = [item.partition("=") for item in value.split(delimiter) if item]
    return {key: val for key, _, val in pairs}


def substitutions_used(text: str) -> set[str]:
    return {m.group(1) or m.group(2) for m in _SUBSTITUTION.finditer(text) if m.group(0) != "$$"}


def substitute(text: str, values: dict[str, str]) -> str:
    """Cloud Build's substitution: ``$$`` is a literal ``$``; ``$X``/``${X}`` a value."""
    return _SUBSTITUTION.sub(
        lambda m: "$" if m.group(0) == "$$" else values[m.group(1) or m.group(2)], text
    )


def http_functions(main_py: Path, kind: str = "http") -> set[str]:
    """Names of the module-level functions decorated with ``@functions_framework.http``
    (``kind``: ``cloud_event`` for the event-triggered ones)."""
    tree = ast.parse(main_py.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(
            isinstance(d, ast.Attribute)
            and d.attr == kind
            and isinstance(d.value, ast.Name)
            and d.value.id == "functions_framework"
            for d in node.decorator_list
        )
    }


def deployment_gaps(folders: list[str], deployed: list[str]) -> tuple[set[str], set[str]]:
    """(folders never deployed, deployed names with no folder)."""
    return set(folders) - set(deployed), set(deployed) - set(folders)


def scheduler_command(build: dict[str, Any]) -> tuple[dict[str, Any], str, list[str]]:
    """The scheduler step, its script, and the ``gcloud scheduler jobs … http`` argv."""
    step = next(s for s in build["steps"] if "gcloud scheduler jobs" in " ".join(s["args"]))
    script = step["args"][-1].replace("\\\n", " ")
    line = next(x for x in script.splitlines() if x.strip().startswith("gcloud scheduler jobs"))
    return step, script, shlex.split(line)


# -- every function, once, as written in functions/ ---------------------------------------


def test_every_function_folder_is_deployed_exactly_once(build: dict[str, Any]) -> None:
    """Each functions/<name>/ has one deploy step, and no step deploys a missing folder."""
    deployed = [s["args"][2] for s in deploy_steps(build)]
    assert [n for n, c in Counter(deployed).items() if c > 1] == []
    assert deployment_gaps(function_folders(), deployed) == (set(), set())


def test_a_new_function_folder_without_a_deploy_step_is_reported() -> None:
    """The gap check names an added folder that cloudbuild.yaml does not deploy."""
    deployed = ["ask", "rebuild"]
    assert deployment_gaps(["ask", "rebuild", "search"], deployed) == ({"search"}, set())
    assert deployment_gaps(["ask"], deployed) == (set(), {"rebuild"})


def test_entry_point_is_the_folder_name_and_an_http_function(build: dict[str, Any]) -> None:
    """--entry-point names a @functions_framework.http function of that folder's main.py,
    or for a Pub/Sub-triggered one (enrich) a @functions_framework.cloud_event function,
    retried, deployed once its topic exists."""
    for step in deploy_steps(build):
        name = step["args"][2]
        found = flags(step["args"])
        assert one(found, "--entry-point") == name
        main = FUNCTIONS / name / "main.py"
        assert main.is_file(), (
            f"cloudbuild.yaml deploys {name}; functions/{name}/main.py is missing"
        )
        assert one(found, "--source") == f"build/functions/{name}"
        assert one(found, "--runtime") == "python312"
        assert one(found, "--region") == "${_REGION}"
        assert "--gen2" in found
        if "--trigger-topic" in found:
            assert name in http_functions(main, "cloud_event"), f"{name}() is no cloud_event"
            assert "--trigger-http" not in found
            assert "--retry" in found
            assert step["waitFor"] == ["stage", "enrich-topics"]
            continue
        assert name in http_functions(main), f"functions/{name}/main.py has no http {name}()"
        assert "--trigger-http" in found
        assert step["waitFor"] == ["stage"]


def test_http_functions_finds_only_decorated_functions(tmp_path: Path) -> None:
    """The entry-point check ignores undecorated and otherwise-decorated functions."""
    main = tmp_path / "main.py"
    main.write_text(
        "import functions_framework\nimport functools\n"
        "@functions_framework.http\ndef ask(request):\n    return ''\n"
        "def helper():\n    pass\n"
        "@functools.cache\ndef cached():\n    pass\n"
    )
    assert http_functions(main) == {"ask"}


def test_only_ask_and_feedback_are_public_and_the_rest_trust_iam(build: dict[str, Any]) -> None:
    """ask and feedback allow unauthenticated calls; every other function (mcp by default)
    is private with AUTH=iam."""
    for step in deploy_steps(build):
        name = step["args"][2]
        found = flags(step["args"])
        env = key_values(one(found, "--set-env-vars"))
        assert env["BIBLIOTECA_STORE"] == "firestore"
        assert env["GOOGLE_CLOUD_PROJECT"] == "${PROJECT_ID}"
        if name in ("ask", "feedback"):
            assert "--allow-unauthenticated" in found
            assert "--no-allow-unauthenticated" not in found
            assert env.get("BIBLIOTECA_AUTH", "token") == "token"
        else:
            assert "--no-allow-unauthenticated" in found, name
            assert "--allow-unauthenticated" not in found, name
            assert env["BIBLIOTECA_AUTH"] == "iam", name


def test_resources_are_explicit_and_concurrency_has_a_whole_cpu(build: dict[str, Any]) -> None:
    """memory, cpu, timeout, max-instances, concurrency set; concurrency > 1 needs cpu >= 1.
    A memory given by a substitution (ask's ``_ASK_MEMORY``) has a valid default."""
    for step in deploy_steps(build):
        found = flags(step["args"])
        memory = one(found, "--memory")
        if substituted := re.fullmatch(r"\$\{(_[A-Z_]+)\}", memory):
            memory = build["substitutions"][substituted.group(1)]
        assert re.fullmatch(r"\d+(Mi|Gi)", memory)
        assert re.fullmatch(r"\d+s", one(found, "--timeout"))
        assert int(one(found, "--max-instances")) >= 1
        concurrency = int(one(found, "--concurrency"))
        if concurrency > 1:
            assert float(one(found, "--cpu")) >= 1, step["args"][2]


def test_environment_names_are_settings_the_code_reads(build: dict[str, Any]) -> None:
    """Every variable set on a function is one shared/config.py reads (no typos)."""
    for step in deploy_steps(build):
        env = key_values(one(flags(step["args"]), "--set-env-vars"))
        assert set(env) <= set(ENV), set(env) - set(ENV)


def test_the_curator_report_goes_to_its_own_private_bucket(build: dict[str, Any]) -> None:
    """rebuild writes the report to gs://_REPORT_BUCKET (a required value), not /tmp or the site."""
    rebuild = next(s for s in deploy_steps(build) if s["args"][2] == "rebuild")
    env = key_values(one(flags(rebuild["args"]), "--set-env-vars"))
    assert env["BIBLIOTECA_REPORT_DIR"] == "gs://${_REPORT_BUCKET}"
    assert env["BIBLIOTECA_SITE_DIR"] == "gs://${_SITE_BUCKET}"
    config = next(s for s in build["steps"] if s["id"] == "config")
    assert 'test -n "${_REPORT_BUCKET}"' in config["args"][-1]


# -- secrets ------------------------------------------------------------------------------


def test_no_secret_value_is_inline(build: dict[str, Any]) -> None:
    """Secrets come only as Secret Manager references; no *_TOKEN=/*_KEY= env values."""
    for step in deploy_steps(build):
        found = flags(step["args"])
        assert "--update-env-vars" not in found
        assert "--env-vars-file" not in found
        env = key_values(one(found, "--set-env-vars"))
        leaked = [k for k in env if re.search(r"(TOKEN|KEY|SECRET|PASSWORD)$", k)]
        assert leaked == [], f"{step['args'][2]} sets {leaked} as plain environment"
        for ref in found.get("--set-secrets", []):
            for variable, source in key_values(ref).items():
                assert variable in SECRET_ENV
                assert re.fullmatch(r"\$\{_[A-Z_]+\}:(latest|\d+)", source), source
    text = CLOUDBUILD.read_text(encoding="utf-8")
    assert not re.search(r"AIza[0-9A-Za-z_-]{20,}", text)  # the shape of a Google API key
    assert re.findall(r"[A-Z_]*(?:TOKEN|KEY)=(?!\$\{_)", text) == []


@pytest.mark.parametrize("access", ["private", "public"])
def test_mcp_is_private_with_iam_or_public_with_the_token(
    build: dict[str, Any], access: str
) -> None:
    """_MCP_ACCESS=private: IAM only, every invoker may propose; public: anyone reads and
    propose_* need the API token (BIBLIOTECA_AUTH=token with its secret)."""
    [step] = [s for s in deploy_steps(build, _MCP_ACCESS=access) if s["args"][2] == "mcp"]
    found = flags(step["args"])
    env = key_values(one(found, "--set-env-vars"))
    secrets = key_values(one(found, "--set-secrets"))
    public = access == "public"
    assert ("--allow-unauthenticated" in found) == public
    assert ("--no-allow-unauthenticated" in found) == (not public)
    assert env["BIBLIOTECA_AUTH"] == ("token" if public else "iam")
    assert ("BIBLIOTECA_API_TOKEN" in secrets) == public
    assert ("BIBLIOTECA_API_TOKENS" in secrets) == public
    assert env["BIBLIOTECA_SITE_URL"] == "${_SITE_ORIGIN}"  # absolute links in results
    assert build["substitutions"]["_MCP_ACCESS"] == "private"


def test_an_unknown_mcp_access_stops_the_build(build: dict[str, Any]) -> None:
    """_MCP_ACCESS other than private/public fails the config step and the deploy's case."""
    config = next(s for s in build["steps"] if s["id"] == "config")["args"][-1]
    assert 'case "${_MCP_ACCESS}" in private|public)' in config
    with pytest.raises(subprocess.CalledProcessError):
        deploy_steps(build, _MCP_ACCESS="open")


def test_ask_gets_the_api_token_to_let_trusted_callers_archive(build: dict[str, Any]) -> None:
    """The token reaches only ask (bearer callers may archive), feedback (bearer callers
    may vote when BIBLIOTECA_FEEDBACK_FROM_WIDGET=0) and a public mcp (bearer callers may
    propose); the IAM functions need none."""
    for step in deploy_steps(build):
        refs: dict[str, str] = {}
        for ref in flags(step["args"]).get("--set-secrets", []):
            refs |= key_values(ref)
        assert ("BIBLIOTECA_API_TOKEN" in refs) == (step["args"][2] in ("ask", "feedback"))
        # The named credentials go wherever the single one goes (both work together).
        assert ("BIBLIOTECA_API_TOKENS" in refs) == ("BIBLIOTECA_API_TOKEN" in refs)
        if "BIBLIOTECA_API_TOKENS" in refs:
            assert refs["BIBLIOTECA_API_TOKENS"] == "${_API_TOKENS_SECRET}:latest"


# -- the scheduler --------------------------------------------------------------------------


def test_scheduler_calls_rebuild_with_oidc_and_retries(build: dict[str, Any]) -> None:
    """The job posts JSON to rebuild's URL with an OIDC token, and retries with backoff."""
    step, script, argv = scheduler_command(build)
    assert step["waitFor"] == ["deploy-rebuild"]
    assert "gcloud functions describe rebuild" in script
    assert "uri=$$(gcloud functions describe rebuild" in script
    found = flags(argv)
    assert one(found, "--uri") == "$$uri"
    assert one(found, "--oidc-token-audience") == "$$uri"
    email = one(found, "--oidc-service-account-email")
    assert email.endswith(".iam.gserviceaccount.com")
    assert (
        f"add-invoker-policy-binding rebuild --region=${{_REGION}} --member=serviceAccount:{email}"
        in script
    )
    assert one(found, "--http-method") == "post"
    assert json.loads(one(found, "--message-body")) == {"full": False}
    assert "Content-Type=application/json" in script
    assert int(one(found, "--max-retry-attempts")) >= 1
    assert one(found, "--min-backoff").endswith("s")
    assert one(found, "--max-backoff").endswith("s")
    rebuild = next(s for s in deploy_steps(build) if s["args"][2] == "rebuild")
    timeout = int(one(flags(rebuild["args"]), "--timeout").removesuffix("s"))
    assert int(one(found, "--attempt-deadline").removesuffix("s")) >= timeout


def test_scheduler_job_is_created_or_updated(build: dict[str, Any]) -> None:
    """A rerun updates the existing job (with update's own header flag) instead of failing."""
    _, script, argv = scheduler_command(build)
    assert argv[:4] == ["gcloud", "scheduler", "jobs", "$$verb"]
    assert "verb=update" in script
    assert "--update-headers=Content-Type=application/json" in script
    assert "verb=create" in script
    assert "--headers=Content-Type=application/json" in script


# -- Firestore indexes --------------------------------------------------------------------


def test_firestore_indexes_are_deployed(build: dict[str, Any]) -> None:
    """A step deploys firestore.indexes.json, after the tests, with the gcloud-only helper."""
    step = next(s for s in build["steps"] if "deploy/firestore_indexes.py" in s.get("args", []))
    assert "firestore.indexes.json" in step["args"]
    assert "--project=${PROJECT_ID}" in step["args"]
    assert (ROOT / "firestore.indexes.json").is_file()


def test_index_helper_creates_every_index_and_override_once() -> None:
    """One create per composite index, one update per override, none for existing ones."""
    spec = json.loads((ROOT / "firestore.indexes.json").read_text(encoding="utf-8"))
    creates = composite_commands(spec, "(default)")
    assert len(creates) == len({index_key(i) for i in spec["indexes"]})
    groups = [c for c in creates if "--async" in c]
    assert len(groups) == len(creates)
    assert len(override_commands(spec, "(default)")) >= len(spec.get("fieldOverrides", []))
    existing = [index_key(i) for i in spec["indexes"]]
    assert composite_commands(spec, "(default)", existing) == []


def test_index_helper_matches_listed_indexes_and_builds_gcloud_flags() -> None:
    """A listed index (name path, trailing __name__) equals its spec; flags use gcloud's keys."""
    spec = {
        "indexes": [
            {
                "collectionGroup": "chunks",
                "queryScope": "COLLECTION",
                "fields": [
                    {"fieldPath": "status", "order": "ASCENDING"},
                    {"fieldPath": "tags", "arrayConfig": "CONTAINS"},
                    {"fieldPath": "vector", "vectorConfig": {"dimension": 512, "flat": {}}},
                ],
            }
        ],
        "fieldOverrides": [{"collectionGroup": "pages", "fieldPath": "content", "indexes": []}],
    }
    listed = {
        "name": "projects/p/databases/(default)/collectionGroups/chunks/indexes/CICAgJim",
        "queryScope": "COLLECTION",
        "fields": [*spec["indexes"][0]["fields"], {"fieldPath": "__name__", "order": "ASCENDING"}],
    }
    assert index_key(listed) == index_key(spec["indexes"][0])
    [create] = composite_commands(spec, "(default)")
    config = json.loads(create[-2].removeprefix("--field-config="))
    assert config == [
        {"field-path": "status", "order": "ascending"},
        {"field-path": "tags", "array-config": "contains"},
        {"field-path": "vector", "vector-config": {"dimension": 512, "flat": {}}},
    ]
    assert override_commands(spec, "(default)") == [
        [
            *["gcloud", "firestore", "indexes", "fields", "update", "content"],
            "--database=(default)",
            "--collection-group=pages",
            "--disable-indexes",
            "--async",
        ]
    ]


# -- the pipeline -------------------------------------------------------------------------


def test_tests_run_before_anything_is_staged_or_deployed(build: dict[str, Any]) -> None:
    """test runs before stage and the indexes; config first, then what the tests need."""
    steps = {s["id"]: s for s in build["steps"]}
    assert steps["test"]["name"] == "python:3.12"  # the runtime's Python
    assert steps["stage"]["waitFor"] == ["test"]
    assert steps["stage"]["args"][0] == "deploy/stage.py"
    assert steps["firestore-indexes"]["waitFor"] == ["test"]
    order = list(steps)
    assert order[0] == "config"  # no waitFor: each step waits for all before it
    assert order.index("test") < order.index("stage")
    assert all("waitFor" not in steps[n] for n in order[: order.index("test")])


def test_the_deploy_gate_is_the_ci_gate(build: dict[str, Any]) -> None:
    """The test step runs .ci/run, as CI does, with every tier: no marker deselected, the
    emulators of steps before it named by FIRESTORE_EMULATOR_HOST and PUBSUB_EMULATOR_HOST,
    the corpus copied."""
    steps = {s["id"]: s for s in build["steps"]}
    test = steps["test"]
    script = test["args"][-1]
    assert script.strip().splitlines()[-1] == ".ci/run"
    assert (ROOT / ".ci" / "run").is_file()
    env = dict(item.split("=", 1) for item in test.get("env", []))
    assert "-m" not in shlex.split(env.get("PYTEST_ADDOPTS", "")), env  # nothing deselected
    host, port = env["FIRESTORE_EMULATOR_HOST"].split(":")
    emulator = next(
        s for s in build["steps"] if any(a == f"--name={host}" for a in s.get("args", []))
    )
    args = emulator["args"]
    assert emulator["name"] == "gcr.io/cloud-builders/docker"
    assert args[:2] == ["run", "--detach"]
    assert "--network=cloudbuild" in args  # the network every step's container joins
    assert args[args.index("gcloud") :] == [
        "gcloud",
        "emulators",
        "firestore",
        "start",
        f"--host-port=0.0.0.0:{port}",
    ]
    corpus = steps["test-corpus"]
    assert "${_TEST_CORPUS}" in corpus["args"][-1]
    assert env["BIBLIOTECA_TEST_CORPUS"] in corpus["args"][-1]
    pubsub_host, pubsub_port = env["PUBSUB_EMULATOR_HOST"].split(":")
    pubsub = next(
        s for s in build["steps"] if any(a == f"--name={pubsub_host}" for a in s.get("args", []))
    )
    assert pubsub["args"][pubsub["args"].index("gcloud") :] == [
        "gcloud",
        "beta",
        "emulators",
        "pubsub",
        "start",
        f"--host-port=0.0.0.0:{pubsub_port}",
    ]
    assert set(test["waitFor"]) == {emulator["id"], pubsub["id"], "test-corpus"}
    config = steps["config"]["args"][-1]
    assert "_TEST_CORPUS" not in config  # optional: without it the corpus tests skip


def test_ci_uses_the_emulator_it_is_given() -> None:
    """.ci/run starts its own emulator only when FIRESTORE_EMULATOR_HOST is not set (Cloud
    Build sets it), installs chromium and gcloud when missing, and checks nothing skipped."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'external_emulator="${FIRESTORE_EMULATOR_HOST:-}"' in script
    assert 'if [[ -n "$external_emulator" ]]; then' in script
    assert 'external_pubsub="${PUBSUB_EMULATOR_HOST:-}"' in script
    assert 'if [[ -n "$external_pubsub" ]]; then' in script
    assert "missing+=(chromium)" in script
    assert "missing+=(google-cloud-cli)" in script
    assert "make test" in script
    assert "CI=true but the {word} tests did not all run" in script


def test_substitutions_are_defined_and_used(build: dict[str, Any]) -> None:
    """Every ${_X} used has a default, every default is used; only bash's own $ remain."""
    text = yaml.safe_dump(build["steps"])
    used = substitutions_used(text)
    defined = {str(k): str(v) for k, v in build["substitutions"].items()}
    assert used - set(defined) - BUILTINS == set()
    assert set(defined) - used == set()
    substituted = substitute(text, dict.fromkeys(BUILTINS, "x") | defined)
    bash_variables = {"(", "verb", "uri", "headers", "access", "auth", "token"}
    bash_variables |= {"filter", "metric", "channel", "channels", "policy"}  # rebuild-alert
    bash_variables |= {"topic", "trigger", "sub", "agent"}  # the enrichment queue
    assert set(re.findall(r"\$(\(|\w+)", substituted)) <= bash_variables


def test_public_functions_know_how_many_proxies_append_to_x_forwarded_for(
    build: dict[str, Any],
) -> None:
    """A public function counts rate limits per client: it must be told the proxy hops (with
    the default 0 every caller would be Google's front end, one client for the world)."""
    values = dict.fromkeys(BUILTINS, "x") | {
        str(k): str(v) for k, v in build["substitutions"].items()
    }
    for step in [*deploy_steps(build), *deploy_steps(build, _MCP_ACCESS="public")]:
        found = flags(step["args"])
        if "--allow-unauthenticated" not in found:
            continue
        env = key_values(substitute(one(found, "--set-env-vars"), values))
        assert int(env.get("BIBLIOTECA_TRUSTED_PROXIES", "0")) >= 1, step["args"][2]


# -- the alert on a failed rebuild ---------------------------------------------------------

ALERT_POLICY = ROOT / "deploy" / "rebuild-alert-policy.json"


def alert_commands(build: dict[str, Any], *, email: str, existing: bool) -> list[list[str]]:
    """The gcloud commands the rebuild-alert step runs, from bash itself: a shim records
    each call and answers describe/list as a project with (``existing``) or without the
    metric, channel and policy would."""
    step = next(s for s in build["steps"] if s["id"] == "rebuild-alert")
    script = substitute(step["args"][-1], {"_ALERT_EMAIL": email}).replace("$$", "$")
    answer = "projects/p/x/1" if existing else ""
    shim = (
        'gcloud() { printf \'%s\\0\' "$@" >>"$LOG"; printf \'\\n\' >>"$LOG"; '
        'case "$2 $3" in *describe*|*" describe") [ -n "$ANSWER" ] ;; '
        '*list*|"monitoring channels"|"monitoring policies") '
        'case "$*" in *" list "*) echo "$ANSWER" ;; *) echo projects/p/new ;; esac ;; '
        "esac; }\n"
    )
    log = Path(tempfile.mkdtemp()) / "calls"
    log.write_text("")
    subprocess.run(
        ["bash", "-ceu", shim + script],
        env={"PATH": "/usr/bin:/bin", "LOG": str(log), "ANSWER": answer},
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    calls = [c for c in log.read_text().split("\n") if c]
    log.unlink()
    return [["gcloud", *c.split("\0")[:-1]] for c in calls]


def changing(commands: list[list[str]]) -> list[list[str]]:
    """The commands that create or change something (not describe/list)."""
    return [c for c in commands if not {"describe", "list"} & set(c)]


def test_the_rebuild_alert_is_a_log_metric_and_a_policy_created_or_updated(
    build: dict[str, Any],
) -> None:
    """A new project gets the metric, the email channel and the policy created; a project
    that has them gets them updated (the step runs on every build), never duplicated."""
    fresh = changing(alert_commands(build, email="ops@example.com", existing=False))
    assert [c[1:4] for c in fresh] == [
        ["logging", "metrics", "create"],
        ["beta", "monitoring", "channels"],
        ["alpha", "monitoring", "policies"],
    ]
    assert "create" in fresh[1]
    assert "create" in fresh[2]
    assert "--notification-channels=projects/p/new" in fresh[2]
    again = changing(alert_commands(build, email="ops@example.com", existing=True))
    assert [c[3] for c in again] == ["update", "policies"]
    assert "update" in again[1]
    quiet = changing(alert_commands(build, email="", existing=False))
    assert len(quiet) == 2
    assert "--notification-channels=" in quiet[1]


def test_the_alert_counts_the_line_the_rebuild_logs_when_it_fails(build: dict[str, Any]) -> None:
    """The metric's filter names the rebuild service and the fields of the outcome line
    (event, outcome) that shared/services/site_build/report.py writes; the policy watches that
    metric and fires on the first failure."""
    metric = next(
        c
        for c in alert_commands(build, email="", existing=False)
        if c[1:4] == ["logging", "metrics", "create"]
    )
    [log_filter] = [a.split("=", 1)[1] for a in metric if a.startswith("--log-filter=")]
    assert 'resource.labels.service_name="rebuild"' in log_filter
    assert 'jsonPayload.event="rebuild_outcome"' in log_filter
    assert 'jsonPayload.outcome="failed"' in log_filter
    # (tests/functions/test_rebuild_alert.py matches the filter against a real failed run.)
    policy = json.loads(ALERT_POLICY.read_text(encoding="utf-8"))
    # gcloud reads the file only after it has an account: check its fields against the
    # AlertPolicy resource of the Monitoring API v3 here.
    assert set(policy) <= {
        "displayName", "documentation", "userLabels", "conditions", "combiner", "enabled",
        "notificationChannels", "alertStrategy", "severity",
    }  # fmt: skip
    [condition] = policy["conditions"]
    assert set(condition) == {"displayName", "conditionThreshold"}
    assert set(condition["conditionThreshold"]) <= {
        "filter", "aggregations", "denominatorFilter", "comparison", "thresholdValue",
        "duration", "trigger", "evaluationMissingData",
    }  # fmt: skip
    assert policy["documentation"]["mimeType"] == "text/markdown"
    threshold = condition["conditionThreshold"]
    assert 'logging.googleapis.com/user/biblioteca-rebuild-failed"' in threshold["filter"]
    assert metric[4] == "biblioteca-rebuild-failed"
    assert (threshold["comparison"], threshold["thresholdValue"]) == ("COMPARISON_GT", 0)
    assert threshold["duration"] == "0s"
