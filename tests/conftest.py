"""Fixtures shared by every test tier: an isolated environment, the corpus, function clients."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import functions_framework
import pytest
from hypothesis import settings as hypothesis_settings

from shared.bootstrap import reset
from shared.config import get_settings
from tests.fixtures.secrets import TOKEN, leaked

pytest_plugins = [
    "tests.fixtures.firestore",
    "tests.fixtures.pubsub",
    "tests.fixtures.server",
    "tests.fixtures.gemini",
    "tests.fixtures.openai",
    "tests.fixtures.gcs",
    "tests.fixtures.corpora",
    "tests.fixtures.llm",
]

ROOT = Path(__file__).resolve().parents[1]
FUNCTIONS = ROOT / "functions"
# The FastAPI Spanish corpus: beside the checkout, or where BIBLIOTECA_TEST_CORPUS says (the
# Cloud Build test step copies it from the bucket named by _TEST_CORPUS).
CORPUS = Path(
    os.environ.get("BIBLIOTECA_TEST_CORPUS") or ROOT.parent / "shared" / "corpus" / "fastapi-es"
)
IN_CI = os.environ.get("CI", "").lower() == "true"

# Property tests: 200 examples each in `make test` and CI; `make unit` (the fast loop) sets
# HYPOTHESIS_PROFILE=dev for 20. A test's own @settings only sets its deadline.
hypothesis_settings.register_profile("ci", max_examples=200)
hypothesis_settings.register_profile("dev", max_examples=20)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test whose captured logs, stdout or stderr carry a secret of the suite fails."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    # Sections accumulate over setup, call and teardown: read this phase's only.
    found = leaked("\n".join(t for name, t in report.sections if name.endswith(report.when)))
    if found and report.passed:
        report.outcome = "failed"
        report.longrepr = f"a secret reached the captured output ({report.when}): {found}"


# Fixtures built once per module, class or package, and session fixtures that are
# expensive (a built corpus, the real model's server): a test using one runs on the worker
# where its module's other tests run, so the fixture is built once, not once per worker.
# The session fixtures below are cheap, or used everywhere: each worker has its own.
_GROUPED_SCOPES = {"module", "class", "package"}
_PER_WORKER = {
    *("tmp_path_factory", "pytestconfig", "worker_id", "testrun_uid", "corpus"),
    *("serve_shared", "_server_stores", "firestore_emulator", "pubsub_emulator", "gcs_emulator"),
}


def _worker_group(item: pytest.Item) -> str | None:
    """The pytest-xdist group a test runs in (``make test``: ``--dist loadgroup``).

    A test using a corpus built once per session (``built_corpus``) for a ``name`` it is
    parametrized with joins that corpus's group, so each corpus is built on one worker; a
    test using a fixture of module, class or package scope, or an expensive session one,
    joins its module's group; any other test goes to whichever worker is free.
    """
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "built_corpus" in getattr(item, "fixturenames", ()) and "name" in params:
        return f"corpus-{params['name']}"
    info = getattr(item, "_fixtureinfo", None)
    for name, definitions in info.name2fixturedefs.items() if info else ():
        scope = definitions[-1].scope if definitions else "function"
        if scope in _GROUPED_SCOPES or (scope == "session" and name not in _PER_WORKER):
            return item.nodeid.split("::", 1)[0]
    return None


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test without an ``xdist_group`` of its own gets the one ``_worker_group`` says."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            group = _worker_group(item)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))


def skip_or_fail(reason: str) -> None:
    """Skip with a clear reason on a laptop; fail under CI=true, where nothing may skip."""
    if IN_CI:
        pytest.fail(f"CI=true and {reason}")
    pytest.skip(reason)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[dict[str, str]]:
    """A fresh embedded store and a write token, for one test; returns the variables set."""
    for name in list(os.environ):
        if name.startswith(("BIBLIOTECA_", "GEMINI_", "GOOGLE_AI_")):
            monkeypatch.delenv(name)
    values = {
        "BIBLIOTECA_DATA_DIR": str(tmp_path / "data"),
        "BIBLIOTECA_API_TOKEN": TOKEN,
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    reset()
    yield values
    get_settings.cache_clear()
    reset()


@pytest.fixture
def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(env: dict[str, str]) -> Callable[[str], Any]:
    """``client("wiki_create")``: functions-framework's own test client for that function."""

    def make(name: str) -> Any:
        app = functions_framework.create_app(name, str(FUNCTIONS / name / "main.py"))
        return app.test_client()

    return make


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The FastAPI Spanish corpus beside the checkout.

    It is data that lives beside the project, not a dependency the project installs, so
    where it is absent its tests skip with the reason, under CI=true too.
    """
    if not (CORPUS / "docs").is_dir():
        pytest.skip(
            f"the corpus is not at {CORPUS} (it lives in ../shared beside the checkout; "
            "BIBLIOTECA_TEST_CORPUS names another place)"
        )
    return CORPUS


@pytest.fixture(autouse=True)
def _index_snapshot_saves_settle() -> Iterator[None]:
    """An ask's index snapshot is saved in a thread of its own: it ends with its test."""
    yield
    from shared.bootstrap import settle

    settle()
